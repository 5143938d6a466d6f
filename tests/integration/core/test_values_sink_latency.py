"""The values sink prints an event as soon as the pipeline has nothing more for it, as Flink's
values sink does, not at the next checkpoint: a quiet pipeline's output must not wait for one."""
import os
import select
import subprocess
import time

import cdcd_process as cdcd


def test_a_slow_stream_is_printed_without_waiting_for_a_checkpoint(tmp_path):
    yaml = cdcd.write_pipeline(tmp_path, """
source:
  type: values
  event-set.id: GENERATED
  generator.rows: 1000
  generator.rate: 5
sink:
  type: values
pipeline:
  name: quiet
  execution.checkpointing.interval: 1h
""")
    proc = cdcd.start(["run", yaml, "--state-dir", tmp_path / "s"], stdout=subprocess.PIPE,
                      stderr=subprocess.DEVNULL)
    fd = proc.stdout.fileno()
    text = b""
    try:
        deadline = time.monotonic() + 10
        while text.count(b"DataChangeEvent") < 3 and time.monotonic() < deadline:
            if select.select([fd], [], [], 0.1)[0]:
                text += os.read(fd, 65536)
    finally:
        proc.kill()
        proc.wait()
    # At 5 rows a second, three rows are out within a second or so; with a print at each
    # checkpoint only, none would be before the hour is up.
    assert text.count(b"DataChangeEvent") >= 3, text.decode()[-2000:]
