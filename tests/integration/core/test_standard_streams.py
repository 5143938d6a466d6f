"""A daemon started with its standard streams closed (by a supervisor, `cdcd run p.yaml >&-`) has
them on /dev/null, as daemon(3) leaves them, not on the first files it opens: the event loop's
eventfd took descriptor 1, and the values sink printing to stdout then failed with EINVAL."""
import os
import signal
import subprocess

import cdcd_process as cdcd


def _close_standard_streams():
    os.closerange(0, 3)


def test_closed_standard_streams_are_dev_null_and_a_values_sink_prints_into_it(tmp_path):
    yaml = cdcd.write_pipeline(tmp_path, """
source:
  type: values
  event-set.id: GENERATED
  generator.rows: 1000
  generator.rate: 2000
  generator.bounded: false
sink:
  type: values
pipeline:
  name: closed-streams
""")
    log = tmp_path / "cdcd.log"
    proc = cdcd.start(["run", yaml, "--state-dir", tmp_path / "state", "--log-file", log],
                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                      preexec_fn=_close_standard_streams)
    try:
        assert cdcd.wait_for(lambda: log.exists() and "running" in log.read_text(), 30)
        assert proc.poll() is None, log.read_text()
        streams = [os.readlink(f"/proc/{proc.pid}/fd/{fd}") for fd in range(3)]
        assert streams == ["/dev/null"] * 3
        # Printing rows for a while: each went to /dev/null, none failed.
        assert cdcd.wait_for(lambda: "generate: done" in log.read_text() or proc.poll() is not None, 30)
        assert proc.poll() is None, log.read_text()
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    assert cdcd.wait_exit(proc, timeout=30) == 0, log.read_text()
    assert "error" not in log.read_text()
