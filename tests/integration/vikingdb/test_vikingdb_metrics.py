"""The vikingdb sink's own series on /metrics while a pipeline writes to the emulator: requests by
operation and status (matching what the emulator answered), retries, errors, bytes and records
acknowledged."""
import signal
import socket

import cdcd_process as cdcd
from metrics_scrape import label_values, requests_by_endpoint, scrape, total
from vdb_pipelines import GENERATED, dump, expected_generated, generated_source, pipeline_block, sink_block

SNK = dict(role="sink", connector="vikingdb")
UPSERT, DELETE = "/api/vikingdb/data/upsert", "/api/vikingdb/data/delete"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def as_state(rows):
    return {int(k): (v["version"], v["payload"]) for k, v in rows.items()}


def written(emu):
    """The collection's rows as state; None until the sink has created it."""
    try:
        return as_state(dump(emu, GENERATED))
    except Exception:  # the emulator answers 404 before the collection exists
        return None


def test_requests_retries_errors_bytes_and_records_are_exposed(emu, tmp_path):
    emu.inject_faults({"kind": "error", "status": 503, "code": "ServiceUnavailable", "count": 2, "match": "upsert"},
                      {"kind": "throttle", "count": 1, "match": "upsert"},
                      {"kind": "error", "status": 500, "code": "InternalError", "count": 1,
                       "match": "CreateVikingdbCollection"})
    port = free_port()
    # Unbounded: the daemon stays up, idle, once the 600 rows are written.
    y = (generated_source(rows=600, updates=1, delete_every=4, payload=8, bounded=False) +
         sink_block(emu, **{"max-retries": 6, "retry.initial-backoff": "100ms"}) +
         pipeline_block(checkpoint="200ms", extra=f"  admin.address: 127.0.0.1:{port}\n"))
    path = cdcd.write_pipeline(tmp_path, y)
    proc = cdcd.start(["run", path, "--state-dir", tmp_path / "state"], stdout=cdcd.subprocess.DEVNULL,
                      stderr=cdcd.subprocess.PIPE, text=True)
    try:
        expected = expected_generated(600, 1, 4, 8)
        assert cdcd.wait_for(lambda: proc.poll() is not None or written(emu) == expected, 60)
        assert proc.poll() is None
        # Everything is acknowledged once a checkpoint after the last write has completed.
        first, _ = scrape(port)
        assert cdcd.wait_for(lambda: total(scrape(port)[0], "cdcd_checkpoints_total") >=
                             total(first, "cdcd_checkpoints_total") + 2, 20)
        samples, body = scrape(port)
        answered = emu.counters()["responses"]
        seen = requests_by_endpoint(samples, **SNK)
        assert {UPSERT, DELETE, "GetVikingdbCollection", "CreateVikingdbCollection"} <= set(seen), seen
        assert all("?" not in e and "Action=" not in e for e in seen)
        # Every HTTP answer the emulator gave, by status, is what cdcd counted.
        http_statuses = {s: n for s, n in seen[UPSERT].items() if s.isdigit()}
        assert http_statuses == {s: n for s, n in answered["upsert"].items()}
        assert http_statuses["503"] == 2 and http_statuses["429"] == 1
        assert seen["CreateVikingdbCollection"] == {"500": 1, "200": 1}
        assert seen[DELETE] == answered["delete"]
        assert seen["GetVikingdbCollection"] == answered["GetVikingdbCollection"]
        assert label_values(samples, "cdcd_http_request_duration_seconds_count", "endpoint", **SNK) == set(seen)

        # Two 503s and one 500, each retried; the 404 of GetVikingdbCollection (the collection
        # does not exist yet) is an answer the sink expects, not an error; the 429 is no error
        # either: a throttled request, resent at a lowered rate.
        assert seen["GetVikingdbCollection"].get("404") == 1
        assert total(samples, "cdcd_errors_total", **SNK) == 3
        assert total(samples, "cdcd_retries_total", **SNK) == 3
        assert total(samples, "cdcd_throttled_requests_total", limiter="data-plane", **SNK) == 1
        assert total(samples, "cdcd_throttled_requests_total", limiter="control-plane", **SNK) == 0
        assert total(samples, "cdcd_request_rate_limit", limiter="data-plane", **SNK) > 0
        # Rows upserted and ids deleted, acknowledged by VikingDB: every row once at least (the
        # batcher may merge an insert and its update), and the 150 deletes.
        acknowledged = total(samples, "cdcd_records_out_total", **SNK)
        assert 600 + 150 <= acknowledged <= 600 * 2 + 150
        assert acknowledged <= total(samples, "cdcd_records_in_total", **SNK)
        assert total(samples, "cdcd_bytes_out_total", **SNK) > 600 * 20
        assert "SKTEST" not in body and "test-api-key" not in body
    finally:
        proc.send_signal(signal.SIGTERM)
        assert cdcd.wait_exit(proc, timeout=30) == 0
