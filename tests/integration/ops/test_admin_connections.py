"""The admin endpoint under more connections than it should hold: it keeps the pipeline's file
descriptors and event loop for the pipeline, and health probes get their answers."""
import os
import resource
import select
import socket
import time

import cdcd_process as cdcd
import opslib


def _open_connections(port, count):
    return [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(count)]


def _closed_by_the_server(sock) -> bool:
    sock.settimeout(0.5)
    try:
        return sock.recv(1) == b""
    except socket.timeout:
        return False
    except ConnectionResetError:
        return True


def _closed_of(socks):
    """Which of the sockets the server has closed, looked at once all together (one at a time,
    the idle timeout would close the last ones before they are looked at)."""
    readable, _, _ = select.select(socks, [], [], 0.5)
    return [sock in readable and _closed_by_the_server(sock) for sock in socks]


def test_out_of_file_descriptors_the_endpoint_waits_instead_of_spinning(tmp_path):
    """Connections that take the last file descriptors make accept fail (EMFILE): the endpoint
    warns once and retries every 200 ms, where it retried at once, warning each time (350,000
    lines in 2.5 s, the event loop it shares with the pipeline busy with them)."""
    port = opslib.free_port()
    err = tmp_path / "stderr.txt"
    (tmp_path / "probe").mkdir()
    probe = opslib.start_with_admin(tmp_path / "probe", opslib.generated("fds", rate=1000, interval="1h"), port)
    opslib.wait_ready(port, probe)
    fds = len(os.listdir(f"/proc/{probe.pid}/fd"))
    probe.terminate()
    assert cdcd.wait_exit(probe, timeout=30) == 0
    limit = fds + 8  # a few connections take the rest

    def few_fds():
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

    with open(err, "w") as stderr:
        proc = opslib.start_with_admin(tmp_path, opslib.generated("fds", rate=1000, interval="1h"), port,
                                       preexec_fn=few_fds, stderr=stderr)
    opslib.wait_ready(port, proc)
    flood = _open_connections(port, 20)
    time.sleep(2)
    warnings = err.read_text().count("admin endpoint: accept failed: Too many open files")
    assert 1 <= warnings <= 2, f"{warnings} warnings"
    for sock in flood:
        sock.close()
    # The queued connections are taken and dropped as their clients went; then it answers.
    assert cdcd.wait_for(lambda: opslib.get(port, "/healthz")[0] == 200, 10)
    proc.terminate()
    assert cdcd.wait_exit(proc, timeout=30) == 0, err.read_text()[-2000:]


def test_past_64_open_connections_the_one_waiting_longest_is_closed_and_probes_get_in(tmp_path):
    """A client that leaks connections gets at most 64 of them: one more closes the connection that
    has waited longest for a request (with a warning, once), so a health probe still gets its
    answer; a new connection was closed instead, which kept probes out for as long as the leaked
    ones stayed."""
    port = opslib.free_port()
    proc = opslib.start_with_admin(tmp_path, opslib.generated("cap", rate=1000, interval="1h"), port)
    opslib.wait_ready(port, proc)
    held = _open_connections(port, 64)
    # The 65th: answered (once the 64 are accepted and wait for their requests: before, one busy
    # being accepted would not be closed for it).
    assert cdcd.wait_for(lambda: opslib.get(port, "/healthz")[0] == 200, 10)
    extra = _open_connections(port, 10)
    closed = cdcd.wait_for(lambda: (seen := _closed_of(held + extra)).count(True) >= 10 and seen, 5)
    # 64 kept: the 10 oldest closed (one for the probe, nine for the extra ones once the probe's
    # went), well before the 10 s idle timeout; the others open.
    assert closed == [True] * 10 + [False] * 64, closed
    for sock in held + extra:
        sock.close()
    assert cdcd.wait_for(lambda: opslib.get(port, "/healthz")[0] == 200, 10)
    proc.terminate()
    assert cdcd.wait_exit(proc, timeout=30) == 0
    stderr = proc.stderr.read()
    assert stderr.count("admin endpoint: 64 connections open, the most it keeps: closed the one that had "
                        "waited longest for a request") == 1
