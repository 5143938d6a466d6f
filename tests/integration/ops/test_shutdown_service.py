"""Stopping as a service: /readyz flips to 503 as soon as SIGTERM arrives, the drain ends with a
final checkpoint and exit 0, a second signal exits at once, pipeline.shutdown.timeout bounds a
stuck drain, and SIGHUP reopens the log file."""
import json
import re
import signal
import subprocess
import time

import cdcd_process as cdcd
import opslib


def stuck_pipeline(name, extra=""):
    # The values sink prints to stdout; the test never reads that pipe, so once it is full the
    # sink writer waits forever and a drain cannot finish.
    return opslib.generated(name, rate=0, sink_options="  print.enabled: true", interval="10min",
                            extra_pipeline=extra)


def test_readyz_flips_to_503_on_sigterm_and_a_second_signal_exits_at_once(tmp_path):
    port = opslib.free_port()
    proc = opslib.start_with_admin(tmp_path, stuck_pipeline("stuck"), port, stdout=subprocess.PIPE)
    try:
        opslib.wait_ready(port, proc)
        assert opslib.get(port, "/readyz") == (200, "running\n")
        time.sleep(0.5)  # the stdout pipe fills up
        proc.send_signal(signal.SIGTERM)
        assert cdcd.wait_for(lambda: opslib.get(port, "/readyz")[0] == 503, timeout=5)
        assert opslib.get(port, "/readyz") == (503, "draining\n")
        assert opslib.get(port, "/healthz") == (200, "ok\n")  # alive while draining
        time.sleep(1.0)
        assert proc.poll() is None, "the drain should be stuck on the unread pipe"
        started = time.monotonic()
        proc.send_signal(signal.SIGINT)
        code = cdcd.wait_exit(proc, timeout=5)
        assert code == 130
        assert time.monotonic() - started < 2.0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    stderr = proc.stderr.read()
    assert "SIGTERM: draining" in stderr
    assert "second signal" in stderr
    assert not re.search(r"final checkpoint \d+ written", stderr)


def test_shutdown_timeout_bounds_a_stuck_drain(tmp_path):
    port = opslib.free_port()
    proc = opslib.start_with_admin(tmp_path, stuck_pipeline("stuck-timeout", "  shutdown.timeout: 2s\n"), port,
                                   stdout=subprocess.PIPE)
    opslib.wait_ready(port, proc)
    time.sleep(0.5)
    started = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    code = cdcd.wait_exit(proc, timeout=20)
    took = time.monotonic() - started
    assert code != 0
    assert 1.8 < took < 6, took
    assert "did not finish within pipeline.shutdown.timeout" in proc.stderr.read()


def test_drain_exits_0_with_a_final_checkpoint_at_the_position_of_the_output(tmp_path):
    port = opslib.free_port()
    out = tmp_path / "out.jsonl"
    yaml_text = opslib.generated("drain", rows=5_000_000, rate=100_000, sink="file", sink_options=f"  path: {out}",
                                 interval="10min")
    proc = opslib.start_with_admin(tmp_path, yaml_text, port)
    opslib.wait_ready(port, proc)
    time.sleep(1.0)
    proc.send_signal(signal.SIGTERM)
    assert cdcd.wait_exit(proc, timeout=30) == 0
    stderr = proc.stderr.read()
    assert "final checkpoint" in stderr
    assert opslib.get(port, "/healthz")[0] is None  # the endpoint closed with the process

    shown = cdcd.run(["checkpoints", "show", "--state-dir", tmp_path / "state", "--pipeline-file",
                      tmp_path / "pipeline.yaml"])
    assert shown.returncode == 0, shown.stderr
    checkpoint = json.loads(shown.stdout)
    position = checkpoint["parts"]["source"]["state"]["position"]
    lines = out.read_bytes().count(b"\n")
    assert 0 < position < 5_000_000
    assert position == lines, "the final checkpoint must hold exactly what the sink wrote"
    assert f"final checkpoint {checkpoint['id']} written" in stderr


def test_sighup_reopens_the_log_file(tmp_path):
    port = opslib.free_port()
    log = tmp_path / "cdcd.log"
    proc = opslib.start_with_admin(tmp_path, opslib.generated("hup", rate=1000), port,
                                   extra_args=("--log-file", log))
    try:
        opslib.wait_ready(port, proc)
        rotated = tmp_path / "cdcd.log.1"
        log.rename(rotated)  # what logrotate does
        proc.send_signal(signal.SIGHUP)
        assert cdcd.wait_for(lambda: log.exists() and "log file reopened" in log.read_text(), timeout=5)
        assert proc.poll() is None, "SIGHUP must not stop the daemon"
        assert "running" in rotated.read_text()
    finally:
        proc.send_signal(signal.SIGTERM)
        assert cdcd.wait_exit(proc, timeout=30) == 0
    assert "final checkpoint" in log.read_text()


def test_sighup_without_a_log_file_is_harmless(tmp_path):
    port = opslib.free_port()
    proc = opslib.start_with_admin(tmp_path, opslib.generated("hup-stderr", rate=1000), port)
    opslib.wait_ready(port, proc)
    proc.send_signal(signal.SIGHUP)
    time.sleep(0.3)
    assert proc.poll() is None
    proc.send_signal(signal.SIGTERM)
    assert cdcd.wait_exit(proc, timeout=30) == 0
    assert "SIGHUP: logs go to stderr" in proc.stderr.read()
