"""dingtalk-cdc → transform → vikingdb with Vectorize, end to end on the two emulators: the
collection is created with a dense Vectorize on the Markdown content, each document is upserted
alone (the API allows one row per upsert with Vectorize), edits and deletes follow."""
import importlib.util
import signal
import subprocess

import pytest

import cdcd_process as cdcd
from vdb_pipelines import sink_block

DINGTALK_CLIENT = cdcd.REPO / "tests" / "emulators" / "dingtalk" / "client.py"
if not (cdcd.REPO / "sources" / "dingtalk").exists() or not DINGTALK_CLIENT.exists():
    pytest.skip("the dingtalk-cdc source or its emulator is not in this tree", allow_module_level=True)
# Both emulators name their helper client.py: load DingTalk's under another module name.
_spec = importlib.util.spec_from_file_location("dingtalk_emulator_client", DINGTALK_CLIENT)
_client = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_client)

APP_KEY, APP_SECRET, OPERATOR = "dingvikingdbkey", "vikingdb-e2e-secret-77", "opUnion001"


def paragraph(text):
    return {"blockType": "paragraph", "paragraph": {"text": text}, "children": [{"text": text}]}


def start_emulator():
    emu = _client.DingTalkEmulator()
    emu.start()
    emu.create_app(APP_KEY, APP_SECRET)
    emu.create_operators(OPERATOR)
    return emu

COLLECTION = "dt_documents"


@pytest.fixture
def dingtalk():
    emu = start_emulator()
    try:
        yield emu
    finally:
        emu.stop()


def pipeline(dt, vdb, workspace):
    return f"""
source:
  type: dingtalk-cdc
  object-type: document
  app-key: {APP_KEY}
  app-secret: {APP_SECRET}
  operator-id: {OPERATOR}
  endpoint: {dt.url}
  workspace-id: {workspace}
  scan.poll-interval: 300ms
  scan.discovery.interval: 1s
  scan.document.emit-deletes: true
  scan.discovery.rate-limit.requests-per-second: 200
  scan.metadata.rate-limit.requests-per-second: 200
  scan.content.rate-limit.requests-per-second: 200
  scan.fetch.rate-limit.requests-per-second: 200
transform:
  - source-table: {workspace}.documents
    projection: doc_id, title, content, modified_time
""" + sink_block(vdb, **{
        "collection-name-template": "dt_${table}",
        "sink.bulk-flush.interval": "200ms",
        "vikingdb.field.content.type": "text",
        "vikingdb.vectorize.dense.model-name": "bge-m3",
        "vikingdb.vectorize.dense.model-version": "default",
        "vikingdb.vectorize.dense.text-field": "content",
        "vikingdb.vectorize.dense.dim": 8,
    }) + """
pipeline:
  name: dingtalk-vikingdb
  local-time-zone: Asia/Shanghai
  execution.checkpointing.interval: 300ms
"""


def test_dingtalk_documents_vectorized_in_vikingdb(dingtalk, emu, tmp_path):
    ws = dingtalk.create_workspace("Docs", owner_id=OPERATOR)
    root = ws["rootNodeId"]
    a = dingtalk.create_document(root, "Alpha", blocks=[paragraph("alpha text about vectors")])["nodeId"]
    b = dingtalk.create_document(root, "Beta", blocks=[paragraph("beta text")])["nodeId"]
    path = cdcd.write_pipeline(tmp_path, pipeline(dingtalk, emu, ws["workspaceId"]))
    proc = cdcd.start(["run", path, "--state-dir", tmp_path / "state"], stderr=subprocess.PIPE, text=True)
    try:
        rows = lambda: {r["id"]: r for r in emu.rows(COLLECTION, vectors=True)["rows"]} \
            if any(c["CollectionName"] == COLLECTION for c in emu.collections()) else {}
        assert cdcd.wait_for(lambda: set(rows()) == {a, b}, timeout=60)
        info = emu.collection(COLLECTION)
        assert info["Vectorize"]["Dense"]["TextField"] == "content"
        assert {f["FieldName"]: f["FieldType"] for f in info["Fields"]} == {
            "doc_id": "string", "title": "string", "content": "text", "modified_time": "date_time"}
        got = rows()
        assert got[a]["fields"]["title"] == "Alpha"
        assert got[a]["fields"]["content"] == "alpha text about vectors\n"
        assert got[a]["fields"]["modified_time"].endswith("+08:00")
        assert len(got[a]["vector"]) == 8
        dingtalk.edit(b, name="Beta 2", blocks=[paragraph("beta rewritten")])
        assert cdcd.wait_for(lambda: rows().get(b, {}).get("fields", {}).get("content") == "beta rewritten\n",
                             timeout=60)
        dingtalk.delete(a)
        assert cdcd.wait_for(lambda: set(rows()) == {b}, timeout=60)
        c = emu.counters()
        assert set(c["upsert_rows_histogram"]) == {"1"}  # one row per upsert with Vectorize
        assert c["async_upserts"] == 0
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    err = proc.stderr.read()
    assert APP_SECRET not in err and "test-api-key" not in err
