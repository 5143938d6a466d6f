"""systemd notifications over a NOTIFY_SOCKET the test listens on: READY=1 once the pipeline
runs, STOPPING=1 when SIGTERM starts the drain, in that order; WATCHDOG=1 pings with
WATCHDOG_USEC set."""
import os
import signal
import socket
import subprocess
import time

import cdcd_process as cdcd
import opslib


def collect(sock, until, timeout):
    """Datagrams received until one contains `until`, as a list of message strings."""
    messages = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            data = sock.recv(4096).decode()
        except socket.timeout:
            break
        messages.append(data)
        if until in data.splitlines():
            break
    return messages


def assignments(messages):
    return [line for m in messages for line in m.splitlines()]


def test_ready_then_stopping_then_watchdog_pings(tmp_path):
    path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    env = dict(os.environ, NOTIFY_SOCKET=str(path), WATCHDOG_USEC="300000")
    env.pop("WATCHDOG_PID", None)
    yaml = cdcd.write_pipeline(tmp_path, opslib.generated("notify", rate=10_000))
    proc = cdcd.start(["run", yaml, "--state-dir", tmp_path / "s"], env=env, stderr=subprocess.PIPE, text=True)
    try:
        before = collect(sock, "READY=1", timeout=15)
        assert "READY=1" in assignments(before), before
        assert any(line.startswith("STATUS=pipeline 'notify' running") for line in assignments(before))
        time.sleep(0.7)  # a few watchdog intervals (150 ms each)
        proc.send_signal(signal.SIGTERM)
        after = collect(sock, "STOPPING=1", timeout=15)
        assert cdcd.wait_exit(proc, timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        sock.close()
    lines = assignments(before + after)
    assert lines.index("READY=1") < lines.index("STOPPING=1")
    assert lines.count("READY=1") == 1 and lines.count("STOPPING=1") == 1
    # Pings between READY and STOPPING: 0.7 s at one per 150 ms.
    between = lines[lines.index("READY=1"):lines.index("STOPPING=1")]
    assert between.count("WATCHDOG=1") >= 3, lines


def test_no_ready_when_the_pipeline_cannot_start(tmp_path):
    path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    # A state directory that is a file: restore fails, READY=1 must never be sent.
    state = tmp_path / "state-is-a-file"
    state.write_text("x")
    yaml = cdcd.write_pipeline(tmp_path, opslib.generated("broken", rows=10, bounded=True))
    result = cdcd.run(["run", yaml, "--state-dir", state], env=dict(os.environ, NOTIFY_SOCKET=str(path)))
    assert result.returncode == 1
    assert "READY=1" not in assignments(collect(sock, "READY=1", timeout=0.5))
    sock.close()
