"""The daemon's standard streams as supervisors leave them: closed at start (`cdcd run p.yaml
>&-`: they are /dev/null, as daemon(3) leaves them, not the first files cdcd opens), or stderr a
pipe whose reader stopped (a hung log collector: log lines are dropped, the pipeline goes on)."""
import fcntl
import os
import signal
import subprocess

import cdcd_process as cdcd

F_SETPIPE_SZ = 1031  # fcntl.F_SETPIPE_SZ, which Python has from 3.10 on Linux only


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


def _full_pipe():
    """A pipe with no room left (its capacity cut to one page, then filled): whoever writes to it
    waits for a reader that never comes."""
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, F_SETPIPE_SZ, 4096)
    os.set_blocking(write_end, False)
    try:
        while True:
            os.write(write_end, b"x" * 512)
    except BlockingIOError:
        pass
    os.set_blocking(write_end, True)  # cdcd gets it as a plain blocking stderr
    return read_end, write_end


def test_a_stderr_nobody_reads_does_not_stop_the_pipeline_or_its_drain(tmp_path):
    # A hung log collector: each log line used to block the event loop in write(), so no row
    # moved and SIGTERM could not drain.
    out = tmp_path / "out.jsonl"
    yaml = cdcd.write_pipeline(tmp_path, f"""
source:
  type: values
  event-set.id: GENERATED
  generator.rows: 100000
  generator.rate: 20000
  generator.bounded: false
sink:
  type: file
  path: {out}
pipeline:
  name: stderr-not-read
""")
    read_end, write_end = _full_pipe()
    try:
        proc = cdcd.start(["run", yaml, "--state-dir", tmp_path / "state"], stdout=subprocess.DEVNULL,
                          stderr=write_end)
        os.close(write_end)
        assert cdcd.wait_for(lambda: out.exists() and out.read_bytes().count(b"\n") >= 20_000, 30), \
            "no rows while stderr was full"
        proc.send_signal(signal.SIGTERM)
        assert cdcd.wait_exit(proc, timeout=30) == 0
        # Read now: what was dropped is counted (in a line written once there was room, which
        # never came while cdcd ran); the output holds every row once.
        lines = out.read_bytes().splitlines()
        assert len(lines) == len(set(lines)) > 20_000
    finally:
        os.close(read_end)


def test_the_error_that_ends_the_process_does_not_wait_for_a_stderr_nobody_reads(tmp_path):
    # A pipeline file with a mistake, and a log collector that hung: the error is dropped after a
    # moment and cdcd exits 1, where it waited in write() for ever.
    yaml = cdcd.write_pipeline(tmp_path, "source:\n  type: nowhere\nsink:\n  type: values\n")
    read_end, write_end = _full_pipe()
    try:
        proc = cdcd.start(["run", yaml, "--state-dir", tmp_path / "state"], stdout=subprocess.DEVNULL,
                          stderr=write_end)
        os.close(write_end)
        assert cdcd.wait_exit(proc, timeout=10) == 1
    finally:
        os.close(read_end)
