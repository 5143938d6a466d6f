"""dingtalk-cdc's cells of the fault matrix (docs/reliability.md) that no other test shows: each
fault meets a running pipeline, and the file sink's output is checked for records lost (none) and
repeated (none: every document is emitted once as c, every edit once as u), and whether the daemon
got over it by itself. kill -9 and token expiry: test_dingtalk_source.py; 403 QPS throttling:
test_dingtalk_source.py::test_throttling_403_qps_limit_is_retried."""
import time

import pytest

from dingtalk_env import (APP_KEY, APP_SECRET, OPERATOR, DingTalkEmulator, latest, paragraph, pipeline_yaml,
                          rows, wait_for)

ENDPOINTS = ("ListNodes", "GetNode", "DocBlocksQuery")
FAULTS = {
    "5xx": dict(kind="status", status=503, code="operationTimeout", message="timeout"),
    # DingTalk documents no Retry-After; a proxy or a future API may send one: it is waited for.
    "429-retry-after": dict(kind="throttle", status=429, code="systemBusy", retryAfter=1),
    "connection-reset": dict(kind="reset"),
    # Longer than request.timeout below: the answer never comes in time.
    "no-answer": dict(kind="delay", delayMs=2500),
}


def ops_per_doc(out, docs):
    got = rows(out)
    return {doc: [r["_op"] for r in got if r["doc_id"] == doc] for doc in docs}


def make_docs(emu, n=4, name="Matrix"):
    ws = emu.create_workspace(name, owner_id=OPERATOR)
    docs = [emu.create_document(ws["rootNodeId"], f"M{i}", blocks=[paragraph(f"m{i}")])["nodeId"] for i in range(n)]
    return ws, docs


@pytest.mark.parametrize("fault", FAULTS)
def test_http_faults_in_snapshot_and_incremental_lose_and_repeat_nothing(fault, emu, tmp_path, daemon):
    ws, docs = make_docs(emu)
    for endpoint in ENDPOINTS:
        emu.inject_fault(endpoint, count=2, **FAULTS[fault])
    out = tmp_path / "out.jsonl"
    d = daemon(pipeline_yaml(emu, out, [ws["workspaceId"]],
                             {"request.timeout": "1s", "request.max-retries": 10})).start()
    wait_for(lambda: len(rows(out, "c")) == len(docs), timeout=30)
    # Again while it follows changes.
    for endpoint in ENDPOINTS:
        emu.inject_fault(endpoint, count=2, **FAULTS[fault])
    emu.edit(docs[1], blocks=[paragraph("m1 edited")])
    emu.edit(docs[3], name="M3 edited")
    wait_for(lambda: latest(out)[docs[1]]["content"] == "m1 edited\n" and latest(out)[docs[3]]["title"] == "M3 edited",
             timeout=30)
    assert emu.state()["faults"] == []  # every injected fault was met
    time.sleep(1.0)  # a few more polls: nothing is emitted again
    assert ops_per_doc(out, docs) == {doc: ["c", "u"] if i in (1, 3) else ["c"] for i, doc in enumerate(docs)}
    assert d.alive()  # recovered by itself
    assert d.stop() == 0


def test_sigterm_mid_run_then_restart_loses_and_repeats_nothing(emu, tmp_path, daemon):
    ws, docs = make_docs(emu, n=6)
    out = tmp_path / "out.jsonl"
    yaml = pipeline_yaml(emu, out, [ws["workspaceId"]])
    d = daemon(yaml).start()
    wait_for(lambda: len(rows(out, "c")) >= 3, timeout=30)
    assert d.stop() == 0  # SIGTERM: a final checkpoint, a clean exit
    emu.edit(docs[0], blocks=[paragraph("m0 while stopped")])
    d2 = daemon(yaml, "again.yaml").start()
    wait_for(lambda: len(rows(out, "c")) == 6 and latest(out)[docs[0]]["content"] == "m0 while stopped\n",
             timeout=30)
    time.sleep(1.0)
    per_doc = ops_per_doc(out, docs)
    assert per_doc[docs[0]] in (["c", "u"], ["c"]) and latest(out)[docs[0]]["content"] == "m0 while stopped\n"
    assert all(ops == ["c"] for doc, ops in per_doc.items() if doc != docs[0]), per_doc
    assert d2.stop() == 0


def test_emulator_restart_is_ridden_out(tmp_path, daemon):
    emu = DingTalkEmulator(state_file=str(tmp_path / "dingtalk.state"))
    emu.start()
    try:
        emu.create_app(APP_KEY, APP_SECRET)
        emu.create_operators(OPERATOR)
        ws, docs = make_docs(emu)
        out = tmp_path / "out.jsonl"
        d = daemon(pipeline_yaml(emu, out, [ws["workspaceId"]], {"request.max-retries": 10})).start()
        wait_for(lambda: len(rows(out, "c")) == len(docs), timeout=30)
        emu.restart()  # connections refused, then the same data on the same port
        emu.edit(docs[2], blocks=[paragraph("m2 after restart")])
        wait_for(lambda: latest(out)[docs[2]]["content"] == "m2 after restart\n", timeout=30)
        time.sleep(1.0)
        assert ops_per_doc(out, docs) == {doc: ["c", "u"] if i == 2 else ["c"] for i, doc in enumerate(docs)}
        assert d.alive()
        assert d.stop() == 0
    finally:
        emu.stop()
