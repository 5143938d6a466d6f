"""The connection options mean what their names say (spec 002 连接参数, Apache HttpClient's
pool): `connection.timeout` bounds connecting only, `connection.time-to-live` a connection's
life, `connection.idle-evict` closes idle connections, `connection.max-total` and
`connection.max-per-route` bound the connections open at once. The emulator reports the
connections its requests arrived on (GET /_emulator/connections)."""
import socket
import subprocess
import time

import pytest

import cdcd_process as cdcd
from vdb_pipelines import GENERATED, dump, generated_source, pipeline_block, run_pipeline, sink_block


@pytest.fixture
def blackhole():
    """A loopback listener whose accept queue is full: the kernel drops further SYNs, so a
    connect() to it hangs until the client gives up."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    queued = []
    for _ in range(3):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(listener.getsockname())
        queued.append(s)
    time.sleep(0.1)
    yield f"127.0.0.1:{listener.getsockname()[1]}"
    for s in queued + [listener]:
        s.close()


def test_connection_timeout_bounds_connecting_not_the_request(emu, tmp_path, blackhole):
    y = generated_source(rows=3) + sink_block(
        emu, **{"data-plane.host": blackhole, "connection.timeout": "500ms", "socket.timeout": "60s",
                "max-retries": 0}) + pipeline_block()
    start = time.monotonic()
    r = run_pipeline(tmp_path, y, timeout=30)
    assert r.returncode != 0
    assert "connect timeout 500 ms" in r.stderr
    assert time.monotonic() - start < 20


def test_connection_timeout_does_not_cut_a_slow_answer(emu, tmp_path):
    emu.inject_faults({"kind": "delay", "delay_ms": 1500, "match": "upsert"})
    y = generated_source(rows=3) + sink_block(emu, **{"connection.timeout": "500ms"}) + pipeline_block()
    r = run_pipeline(tmp_path, y)
    assert r.returncode == 0, r.stderr
    assert len(dump(emu, GENERATED)) == 3


@pytest.mark.parametrize("limits, most", [
    ({"connection.max-total": 1}, 1),
    ({"connection.max-per-route": 2}, 2),
])
def test_pool_limits_bound_connections_open_at_once(emu, tmp_path, limits, most):
    # Slow answers: without a limit the writer's four senders hold four connections at once.
    emu.inject_faults({"kind": "delay", "delay_ms": 300, "match": "upsert", "count": 8})
    y = generated_source(rows=800) + sink_block(emu, **limits) + pipeline_block()
    r = run_pipeline(tmp_path, y)
    assert r.returncode == 0, r.stderr
    assert len(dump(emu, GENERATED)) == 800
    assert emu.connections()["max_open"] == most
    assert emu.counters()["max_in_flight"]["upsert"] == most


def test_without_limits_the_writer_overlaps_requests(emu, tmp_path):
    emu.inject_faults({"kind": "delay", "delay_ms": 300, "match": "upsert", "count": 8})
    r = run_pipeline(tmp_path, generated_source(rows=800) + sink_block(emu) + pipeline_block())
    assert r.returncode == 0, r.stderr
    assert emu.connections()["max_open"] > 2


def test_time_to_live_bounds_how_long_a_connection_is_reused(emu, tmp_path):
    # A request every ~100 ms for ~3 s: one connection would serve them all.
    y = generated_source(rows=30, rate=10) + sink_block(
        emu, **{"connection.time-to-live": "1s", "sink.bulk-flush.interval": "100ms"}) + pipeline_block()
    r = run_pipeline(tmp_path, y)
    assert r.returncode == 0, r.stderr
    log = emu.connections()
    assert log["opened"] >= 3
    assert max(c["span_seconds"] for c in log["connections"]) <= 1.3


def test_idle_evict_closes_idle_connections_while_the_pipeline_runs(emu, tmp_path):
    y = generated_source(rows=5, bounded=False) + sink_block(
        emu, **{"connection.idle-evict": "300ms"}) + pipeline_block()
    proc = cdcd.start(["run", cdcd.write_pipeline(tmp_path, y), "--state-dir", tmp_path / "state"],
                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert cdcd.wait_for(lambda: emu.counters()["rows_upserted"] == 5, timeout=30)
        assert emu.connections()["open"] >= 1
        # Idle now (checkpoints write nothing to VikingDB): the evictor closes the connections.
        assert cdcd.wait_for(lambda: emu.connections()["open"] == 0, timeout=5)
        assert proc.poll() is None
    finally:
        proc.terminate()
        cdcd.wait_exit(proc, 30)
