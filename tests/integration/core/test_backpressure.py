"""A generator at full speed into a sink that cannot keep up keeps the process's memory flat:
bounded channels hold the source back instead of queueing."""
import os
import subprocess
import time

import cdcd_process as cdcd


def test_slow_stdout_reader_keeps_memory_flat(tmp_path):
    yaml = cdcd.write_pipeline(tmp_path, """
source:
  type: values
  event-set.id: GENERATED
  generator.rows: 50000000
  generator.payload-bytes: 200
sink:
  type: values
pipeline:
  name: backpressure
""")
    proc = cdcd.start(["run", yaml, "--state-dir", tmp_path / "s"], stdout=subprocess.PIPE,
                      stderr=subprocess.DEVNULL)
    fd = proc.stdout.fileno()
    samples = []
    read = 0
    try:
        deadline = time.monotonic() + 6
        while time.monotonic() < deadline:
            read += len(os.read(fd, 4096))  # a reader far slower than the generator
            time.sleep(0.01)
            samples.append(cdcd.rss_kib(proc.pid))
        assert proc.poll() is None, "the pipeline should still be held back by the reader"
    finally:
        proc.kill()
        proc.wait()
    assert read > 0
    steady = samples[len(samples) // 3:]
    # 50M events of ~260 bytes would need >10 GiB if queued; bounded channels keep it small.
    assert max(steady) < 96 * 1024, f"RSS peaked at {max(steady)} KiB"
    assert max(steady) - min(steady) < 16 * 1024, f"RSS grew from {min(steady)} to {max(steady)} KiB"
