"""SIGTERM drains: the daemon stops its source, takes a final checkpoint and exits 0; a restart
continues where it stopped and emits nothing twice."""
import os
import signal
import subprocess
import time

import cdcd_process as cdcd

ROWS = 200_000


def pipeline(out, bounded):
    return f"""
source:
  type: values
  event-set.id: GENERATED
  generator.rows: {ROWS}
  generator.updates-per-row: 1
  generator.rate: 100000
  generator.bounded: {str(bounded).lower()}
sink:
  type: file
  path: {out}
pipeline:
  name: shutdown-test
  execution.checkpointing.interval: 10min
"""


def test_sigterm_takes_a_final_checkpoint_and_restart_emits_nothing_twice(tmp_path):
    out = tmp_path / "out.jsonl"
    state = tmp_path / "state"
    yaml = cdcd.write_pipeline(tmp_path, pipeline(out, bounded=False))
    proc = cdcd.start(["run", yaml, "--state-dir", state], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                      text=True)
    # Until the first rows are out (a loaded machine once took more than the 1 s slept here to
    # start), then a little more: the drain interrupts the stream mid-way.
    cdcd.wait_for(lambda: out.exists() and out.stat().st_size > 0, 30)
    time.sleep(0.3)
    assert proc.poll() is None
    proc.send_signal(signal.SIGTERM)
    code = cdcd.wait_exit(proc, timeout=30)
    stderr = proc.stderr.read()
    assert code == 0, stderr
    assert "SIGTERM: draining" in stderr
    assert "final checkpoint" in stderr
    lines_after_drain = out.read_bytes().count(b"\n")
    assert 0 < lines_after_drain < 2 * ROWS  # interrupted mid-way (checkpoint interval is 10 min)

    rest = cdcd.run(["run", cdcd.write_pipeline(tmp_path, pipeline(out, bounded=True), "b.yaml"),
                     "--state-dir", state])
    assert rest.returncode == 0, rest.stderr
    lines = out.read_bytes().splitlines()
    assert len(lines) == 2 * ROWS
    assert len(set(lines)) == len(lines), "a change was emitted twice"


def test_sigint_drains_like_sigterm(tmp_path):
    out = tmp_path / "out.jsonl"
    yaml = cdcd.write_pipeline(tmp_path, pipeline(out, bounded=False))
    proc = cdcd.start(["run", yaml, "--state-dir", tmp_path / "s"], stdout=subprocess.DEVNULL,
                      stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    assert cdcd.wait_exit(proc, timeout=30) == 0
    assert "SIGINT: draining" in proc.stderr.read()


def test_sigterm_while_the_configuration_loads_stops_cleanly(tmp_path):
    """A SIGTERM that comes while cdcd still reads its pipeline file (a FIFO here, written only
    after the signal) stops it with exit 0 before anything runs, as one during a restore does,
    instead of ending it with the signal's default action."""
    out = tmp_path / "out.jsonl"
    proc, stderr = _signal_while_loading(tmp_path, signal.SIGTERM, pipeline(out, bounded=False))
    assert proc.returncode == 0, stderr
    assert "SIGTERM: draining" in stderr
    assert "stop requested while it was starting; not started" in stderr
    assert not out.exists() or out.stat().st_size == 0


def test_sighup_while_the_configuration_loads_is_a_log_reopen(tmp_path):
    """A SIGHUP then (logrotate's, say) is handled once cdcd runs: the pipeline runs to its end."""
    out = tmp_path / "out.jsonl"
    proc, stderr = _signal_while_loading(tmp_path, signal.SIGHUP, pipeline(out, bounded=True))
    assert proc.returncode == 0, stderr
    assert "SIGHUP: logs go to stderr, nothing to reopen" in stderr
    assert out.read_bytes().count(b"\n") == 2 * ROWS


def _signal_while_loading(tmp_path, signum, yaml_text):
    """Starts cdcd on a FIFO as its pipeline file, sends `signum` while cdcd reads it, then
    writes `yaml_text`; returns the process once it exited, and its stderr."""
    fifo = tmp_path / "pipeline.yaml"
    os.mkfifo(fifo)
    proc = cdcd.start(["run", fifo, "--state-dir", tmp_path / "state"], stdout=subprocess.DEVNULL,
                      stderr=subprocess.PIPE, text=True)
    # The FIFO opens for writing once cdcd has opened it to read: it is loading its configuration.
    writer = cdcd.wait_for(lambda: _open_for_writing(fifo), 30)
    assert writer is not None, "cdcd never opened its pipeline file"
    proc.send_signal(signum)
    time.sleep(0.3)  # the signal's default action would have ended cdcd by now
    try:
        with os.fdopen(writer, "w") as f:
            f.write(yaml_text)
    except BrokenPipeError:
        pass  # cdcd is gone: its exit code says how
    cdcd.wait_exit(proc, timeout=60)
    return proc, proc.stderr.read()


def _open_for_writing(fifo):
    """The FIFO's write end, or None while nobody reads it."""
    try:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:  # ENXIO: no reader yet
        return None
    os.set_blocking(fd, True)
    return fd


def test_a_closed_stdout_fails_the_values_sink_with_its_error(tmp_path):
    """Whoever read the values sink's output went away: the write's EPIPE fails the pipeline with
    the sink's error (exit 1, the last checkpoint kept), not a SIGPIPE that ends cdcd without a
    word."""
    yaml = cdcd.write_pipeline(tmp_path, f"""
source:
  type: values
  event-set.id: GENERATED
  generator.rows: {ROWS}
  generator.rate: 1000
  generator.bounded: false
sink:
  type: values
pipeline:
  name: closed-stdout
""")
    proc = cdcd.start(["run", yaml, "--state-dir", tmp_path / "state"], stdout=subprocess.PIPE,
                      stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().startswith("CreateTableEvent")
    proc.stdout.close()
    code = cdcd.wait_exit(proc, timeout=30)
    stderr = proc.stderr.read()
    assert code == 1, stderr
    assert "values sink: cannot write to stdout: Broken pipe" in stderr
