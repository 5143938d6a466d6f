"""A document listed in its workspace's tree whose reads keep failing (its blocks or node answer
404, or 5xx beyond request.max-retries) is read again on its own back-off -- the next poll, then
2, 4, 8... poll intervals later -- not at every poll, and does not hold up the other documents."""
import pytest

from dingtalk_env import OPERATOR, paragraph, pipeline_yaml, rows, wait_for

LASTING = {
    "blocks-404": dict(endpoint="DocBlocksQuery", status=404, code="docNotExist"),
    "node-404": dict(endpoint="GetNode", status=404, code="nodeNotExist"),
    "blocks-503": dict(endpoint="DocBlocksQuery", status=503, code="operationTimeout"),
}


@pytest.mark.parametrize("error", LASTING)
def test_a_document_that_keeps_failing_is_read_on_a_back_off_not_every_poll(error, emu, tmp_path, daemon):
    ws = emu.create_workspace("Lasting", owner_id=OPERATOR)
    root = ws["rootNodeId"]
    # The broken document sorts first (oldest): before the fix it was read at every poll.
    broken = emu.create_document(root, "broken", blocks=[paragraph("b")], modifiedTimestamp=1_000)["nodeId"]
    ok = emu.create_document(root, "ok", blocks=[paragraph("ok")])["nodeId"]
    emu.set_node_error(broken, **LASTING[error])
    out = tmp_path / "out.jsonl"
    d = daemon(pipeline_yaml(emu, out, [ws["workspaceId"]], {"request.max-retries": 0})).start()
    wait_for(lambda: [r["doc_id"] for r in rows(out)] == [ok], timeout=30)

    endpoint = LASTING[error]["endpoint"]

    def reads():
        return len([r for r in emu.requests(endpoint)[endpoint] if r["key"] == broken])

    def polls():
        return len([r for r in emu.requests("ListNodes")["ListNodes"] if r["key"] == root])

    wait_for(lambda: polls() >= 14, timeout=30)
    # Reads at polls 1 and 2, then 2, 4, 8 intervals apart: about 5 in 14 polls (every poll before).
    assert 2 <= reads() <= 7, (reads(), polls())
    assert [r["doc_id"] for r in rows(out)] == [ok]
    assert d.alive()
    # Once readable again it is emitted without an edit.
    emu.control("POST", f"nodes/{broken}/error", {"endpoint": endpoint, "clear": True})
    wait_for(lambda: broken in {r["doc_id"] for r in rows(out)}, timeout=30)
    assert d.stop() == 0
