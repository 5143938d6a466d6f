"""Documents that cannot be read for a while are read again without waiting for an edit, and
documents cut at scan.block.max-pages say so in the `content_truncated` metadata column; both
are counted on /metrics."""
import socket

from dingtalk_env import OPERATOR, paragraph, pipeline_yaml, rows, wait_for
from metrics_scrape import scrape, total

SRC = dict(role="source", connector="dingtalk-cdc")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def with_admin(yaml: str, port: int) -> str:
    return yaml + f"  admin.address: 127.0.0.1:{port}\n"


def test_a_document_denied_once_is_emitted_on_a_later_poll_without_an_edit(emu, tmp_path, daemon):
    ws = emu.create_workspace("Flaky", owner_id=OPERATOR)
    ok = emu.create_document(ws["rootNodeId"], "ok", blocks=[paragraph("ok")])["nodeId"]
    flaky = emu.create_document(ws["rootNodeId"], "flaky", blocks=[paragraph("flaky")])["nodeId"]
    edited_at = emu.get_node(flaky)["modifiedTimestamp"]
    emu.inject_fault("DocBlocksQuery", kind="status", count=1, key=flaky, status=403,
                     code="forbidden.accessDenied", message="no permission")
    out = tmp_path / "out.jsonl"
    port = free_port()
    d = daemon(with_admin(pipeline_yaml(emu, out, [ws["workspaceId"]]), port)).start()

    got = wait_for(lambda: (lambda r: r if {x["doc_id"] for x in r} == {ok, flaky} else None)(rows(out)),
                   timeout=30)
    by_id = {r["doc_id"]: r for r in got}
    assert by_id[flaky]["content"] == "flaky\n"
    assert emu.get_node(flaky)["modifiedTimestamp"] == edited_at  # nobody edited it
    reads = [r["status"] for r in emu.requests("DocBlocksQuery")["DocBlocksQuery"] if r["key"] == flaky]
    assert reads[:2] == [403, 200]

    samples, _ = scrape(port)
    assert total(samples, "cdcd_dingtalk_documents_unreadable_total", reason="not_readable", **SRC) == 1
    assert total(samples, "cdcd_dingtalk_documents_retried_total", **SRC) == 1
    assert total(samples, "cdcd_dingtalk_documents_recovered_total", **SRC) == 1
    assert total(samples, "cdcd_dingtalk_documents_retry_pending", **SRC) == 0
    assert d.stop() == 0


def test_a_document_over_max_pages_is_flagged_truncated_and_counted(emu, tmp_path, daemon):
    ws = emu.create_workspace("Long", owner_id=OPERATOR)
    ws_id = ws["workspaceId"]
    long_doc = emu.create_document(ws["rootNodeId"], "long",
                                   blocks=[paragraph(f"p{i}") for i in range(5)])["nodeId"]
    short_doc = emu.create_document(ws["rootNodeId"], "short", blocks=[paragraph("s")])["nodeId"]
    out = tmp_path / "out.jsonl"
    port = free_port()
    yaml = pipeline_yaml(emu, out, [ws_id], {"scan.block.max-pages": 1, "scan.block.fetch-size": 2})
    transform = f"transform:\n  - source-table: {ws_id}.documents\n    projection: \\*, content_truncated\n"
    d = daemon(with_admin(yaml.replace("sink:", transform + "sink:", 1), port)).start()

    got = wait_for(lambda: (lambda r: r if len(r) == 2 else None)(rows(out)), timeout=30)
    by_id = {r["doc_id"]: r for r in got}
    assert by_id[long_doc]["content"] == "p0\n\np1\n"  # the first page of two blocks only
    assert by_id[long_doc]["content_truncated"] is True
    assert by_id[short_doc]["content_truncated"] is False
    samples, _ = scrape(port)
    assert total(samples, "cdcd_dingtalk_documents_truncated_total", **SRC) == 1
    assert d.stop() == 0
