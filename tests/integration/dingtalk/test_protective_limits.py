"""The protective limits of dingtalk-cdc, each through the binary against the emulator: a limit
is honoured (what is over it is not read, or not read that fast) and named where it bites.
scan.block.max-pages: test_unreadable_and_truncated_documents.py; the metadata rate limit:
test_dingtalk_source.py::test_rate_limits_hold."""
import time

import pytest

from dingtalk_env import OPERATOR, paragraph, pipeline_yaml, rows, wait_for


def emitted(out):
    return {r["doc_id"] for r in rows(out)}


def test_max_bytes_leaves_a_larger_document_out_and_names_the_option(emu, tmp_path, daemon):
    ws = emu.create_workspace("Bytes", owner_id=OPERATOR)
    small = emu.create_document(ws["rootNodeId"], "small", blocks=[paragraph("s")])["nodeId"]
    big = emu.create_document(ws["rootNodeId"], "big", blocks=[paragraph("x" * 200)] * 20)["nodeId"]
    out = tmp_path / "out.jsonl"
    d = daemon(pipeline_yaml(emu, out, [ws["workspaceId"]], {"scan.document.max-bytes": 2000})).start()
    wait_for(lambda: emitted(out) == {small}, timeout=30)
    wait_for(lambda: f"document {big} not read (too large, over scan.document.max-bytes" in d.output(),
             timeout=10)
    time.sleep(0.5)
    assert emitted(out) == {small}
    assert d.stop() == 0


def test_fetch_max_duration_abandons_a_slow_fetch(emu, tmp_path, daemon):
    ws = emu.create_workspace("Slow", owner_id=OPERATOR)
    slow = emu.create_document(ws["rootNodeId"], "slow", blocks=[paragraph(f"p{i}") for i in range(10)])["nodeId"]
    emu.inject_fault("DocBlocksQuery", kind="delay", count=1000, key=slow, delayMs=400)
    out = tmp_path / "out.jsonl"
    d = daemon(pipeline_yaml(emu, out, [ws["workspaceId"]],
                             {"scan.document.fetch.max-duration": "1s", "scan.block.fetch-size": 1,
                              "scan.document.consistency.max-retries": 0})).start()
    wait_for(lambda: f"document {slow} not read (timed out, over scan.document.fetch.max-duration"
             in d.output(), timeout=30)
    pages = [r for r in emu.requests("DocBlocksQuery")["DocBlocksQuery"] if r["key"] == slow]
    # 400 ms a page: the attempt stops after about 1 s, not after the ten pages.
    assert 2 <= len(pages) <= 4, len(pages)
    assert emitted(out) == set()
    emu.clear_faults()  # fast again: read on the document's back-off, without an edit
    wait_for(lambda: emitted(out) == {slow}, timeout=30)
    assert d.stop() == 0


def test_fetch_max_duration_cuts_a_single_slow_request_short(emu, tmp_path, daemon):
    ws = emu.create_workspace("Stuck", owner_id=OPERATOR)
    stuck = emu.create_document(ws["rootNodeId"], "stuck", blocks=[paragraph("s")])["nodeId"]
    emu.inject_fault("DocBlocksQuery", kind="delay", count=1, key=stuck, delayMs=20_000)
    out = tmp_path / "out.jsonl"
    started = time.monotonic()
    d = daemon(pipeline_yaml(emu, out, [ws["workspaceId"]],
                             {"scan.document.fetch.max-duration": "1s", "request.timeout": "60s"})).start()
    wait_for(lambda: f"document {stuck} not read (timed out, over scan.document.fetch.max-duration"
             in d.output(), timeout=10)
    assert time.monotonic() - started < 10  # not after the 20 s answer
    wait_for(lambda: emitted(out) == {stuck}, timeout=20)  # the next read is answered at once
    assert d.stop() == 0


def test_discovery_max_nodes_bounds_one_scan(emu, tmp_path, daemon):
    ws = emu.create_workspace("Wide", owner_id=OPERATOR)
    docs = [emu.create_document(ws["rootNodeId"], f"W{i}", blocks=[paragraph(f"w{i}")])["nodeId"]
            for i in range(6)]
    out = tmp_path / "out.jsonl"
    d = daemon(pipeline_yaml(emu, out, [ws["workspaceId"]], {"scan.discovery.max-nodes": 3})).start()
    wait_for(lambda: len(emitted(out)) == 3, timeout=30)
    wait_for(lambda: "scan.discovery.max-nodes (3) reached" in d.output(), timeout=10)
    time.sleep(1.0)  # more polls: still only the first three nodes are visited
    assert emitted(out) == set(docs[:3])
    assert d.stop() == 0


def test_request_timeout_gives_up_on_an_answer_that_does_not_come(emu, tmp_path, daemon):
    ws = emu.create_workspace("Timeout", owner_id=OPERATOR)
    doc = emu.create_document(ws["rootNodeId"], "late answer", blocks=[paragraph("t")])["nodeId"]
    emu.inject_fault("GetNode", kind="delay", count=1, key=doc, delayMs=20_000)
    out = tmp_path / "out.jsonl"
    started = time.monotonic()
    d = daemon(pipeline_yaml(emu, out, [ws["workspaceId"]], {"request.timeout": "500ms"})).start()
    wait_for(lambda: emitted(out) == {doc}, timeout=10)  # 20 s without the timeout
    assert time.monotonic() - started < 10
    # The abandoned request is logged by the emulator only when it answers (in 20 s): the two
    # logged are its retry and the read after the blocks.
    reads = [r for r in emu.requests("GetNode")["GetNode"] if r["key"] == doc]
    assert len(reads) == 2
    assert d.stop() == 0


def test_retry_after_over_max_delay_fails_the_request_instead_of_waiting(emu, tmp_path, daemon):
    ws = emu.create_workspace("RetryAfter", owner_id=OPERATOR)
    doc = emu.create_document(ws["rootNodeId"], "throttled", blocks=[paragraph("r")])["nodeId"]
    emu.inject_fault("DocBlocksQuery", kind="throttle", count=1, key=doc, status=429, retryAfter=30)
    out = tmp_path / "out.jsonl"
    started = time.monotonic()
    d = daemon(pipeline_yaml(emu, out, [ws["workspaceId"]],
                             {"request.retry-after.max-delay": "1s"})).start()
    wait_for(lambda: emitted(out) == {doc}, timeout=15)  # read again at the next poll, not in 30 s
    assert time.monotonic() - started < 15
    assert "Retry-After exceeds request.retry-after.max-delay" in d.output()
    assert d.stop() == 0


def worst_window(times):
    return max(sum(1 for t in times if s <= t < s + 1.0) for s in times)


# option, the emulator endpoint it paces, and a workspace layout making enough such requests.
RATES = {
    "discovery": ("scan.discovery.rate-limit.requests-per-second", "ListNodes"),
    "content": ("scan.content.rate-limit.requests-per-second", "DocBlocksQuery"),
    # One Block API page per document here: its requests are the fetches.
    "fetch": ("scan.fetch.rate-limit.requests-per-second", "DocBlocksQuery"),
}


@pytest.mark.parametrize("limit", RATES)
def test_rate_limit_is_honoured(limit, emu, tmp_path, daemon):
    option, endpoint = RATES[limit]
    ws = emu.create_workspace(f"Rate {limit}", owner_id=OPERATOR)
    docs = []
    for i in range(8):  # eight folders of one document: nine listings a scan
        folder = emu.create_folder(ws["rootNodeId"], f"F{i}")["nodeId"]
        docs.append(emu.create_document(folder, f"R{i}", blocks=[paragraph(f"r{i}")])["nodeId"])
    out = tmp_path / "out.jsonl"
    d = daemon(pipeline_yaml(emu, out, [ws["workspaceId"]], {option: 4})).start()
    wait_for(lambda: emitted(out) == set(docs), timeout=30)
    times = sorted(r["t"] for r in emu.requests(endpoint)[endpoint])
    assert len(times) >= 8
    assert worst_window(times) <= 5  # 4 a second, plus the one a window's edge may hold
    assert times[7] - times[0] >= 7 / 4 - 0.5
    assert d.stop() == 0
