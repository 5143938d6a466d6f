"""dingtalk-cdc's own series on /metrics while it runs against the emulator: requests by operation
and status (matching what the emulator counted), latency, retries, errors, rate-limiter waits,
bytes and documents read."""
import socket

from dingtalk_env import APP_SECRET, OPERATOR, paragraph, pipeline_yaml, rows, wait_for
from metrics_scrape import label_values, requests_by_endpoint, scrape, total

SRC = dict(role="source", connector="dingtalk-cdc")
ENDPOINTS = {"GetAccessToken", "ListWorkspaces", "GetWorkspace", "ListNodes", "GetNode", "DocBlocksQuery"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_requests_retries_errors_and_limiter_waits_are_exposed(emu, tmp_path, daemon):
    ws = emu.create_workspace("Metrics", owner_id=OPERATOR)
    docs = [emu.create_document(ws["rootNodeId"], f"M{i}", blocks=[paragraph(f"m{i}")] * 2)["nodeId"]
            for i in range(6)]
    emu.inject_fault("DocBlocksQuery", kind="throttle", count=2)
    emu.inject_fault("GetNode", kind="status", count=1, status=500, code="InternalError")
    out = tmp_path / "out.jsonl"
    port = free_port()
    yaml = pipeline_yaml(emu, out, [ws["workspaceId"]],
                         {"scan.metadata.rate-limit.requests-per-second": 5, "scan.poll-interval": "5s"})
    d = daemon(yaml + f"  admin.address: 127.0.0.1:{port}\n").start()
    wait_for(lambda: {r["doc_id"] for r in rows(out, "c")} == set(docs), timeout=60)

    before = emu.counters()
    samples, body = scrape(port)
    after = emu.counters()
    seen = requests_by_endpoint(samples, **SRC)
    # Operation names only: never a path with ids, never a query.
    assert set(seen) <= ENDPOINTS and {"GetAccessToken", "ListNodes", "GetNode", "DocBlocksQuery"} <= set(seen)
    for endpoint, statuses in seen.items():
        # cdcd counts a request once answered, the emulator once received.
        counted = sum(statuses.values())
        assert before[endpoint]["total"] - 4 <= counted <= after[endpoint]["total"], (endpoint, statuses)
        for status, n in statuses.items():
            assert n <= after[endpoint]["byStatus"].get(status, 0), (endpoint, status, n)
    assert seen["DocBlocksQuery"].get("403", 0) >= 2
    assert seen["GetNode"].get("500", 0) == 1
    assert seen["GetNode"].get("200", 0) >= 2 * len(docs)
    assert total(samples, "cdcd_http_request_duration_seconds_count", endpoint="GetNode", **SRC) == \
        sum(seen["GetNode"].values())
    assert label_values(samples, "cdcd_http_request_duration_seconds_bucket", "endpoint", **SRC) == set(seen)

    # Three failed responses, each retried.
    assert total(samples, "cdcd_errors_total", **SRC) >= 3
    assert total(samples, "cdcd_retries_total", **SRC) >= 3
    # GetNode at 5/s, two per document: the metadata limiter made cdcd wait.
    assert total(samples, "cdcd_rate_limiter_wait_seconds_count", limiter="metadata", **SRC) >= 3
    assert total(samples, "cdcd_rate_limiter_wait_seconds_sum", limiter="metadata", **SRC) > 0.3
    assert label_values(samples, "cdcd_rate_limiter_wait_seconds_count", "limiter", **SRC) <= \
        {"discovery", "metadata", "content", "fetch"}
    # Documents read and emitted; the bytes of every answer.
    assert total(samples, "cdcd_records_in_total", **SRC) == len(docs)
    assert total(samples, "cdcd_records_out_total", **SRC) >= len(docs)
    assert total(samples, "cdcd_bytes_in_total", **SRC) > 500
    assert APP_SECRET not in body
    # The snapshot's progress: documents fetched of those the tree walk found.
    progress = dict(connector="dingtalk-cdc", phase="snapshot")
    assert wait_for(lambda: "dingtalk-cdc snapshot: done, 6 items" in d.output(), timeout=30)
    samples, _ = scrape(port)
    assert total(samples, "cdcd_progress_items_done", **progress) == len(docs)
    assert total(samples, "cdcd_progress_items_total", **progress) == len(docs)
    assert d.alive()
    assert d.stop() == 0
