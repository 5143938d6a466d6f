"""dingtalk-cdc end to end: the real cdcd binary against the DingTalk emulator, output through
the file sink as debezium-json (op c = INSERT, u = REPLACE, d = DELETE; source.db = workspace)."""
import time

import cdcd_process as cdcd
from dingtalk_env import OPERATOR, APP_SECRET, latest, paragraph, pipeline_yaml, rows, wait_for


def make_tree(emu):
    """Workspace A: folders, a deep chain, an excluded subtree, non-ALIDOC nodes.
    Workspace B: a document with a child document."""
    a = emu.create_workspace("Team A", owner_id=OPERATOR)
    b = emu.create_workspace("Team B", owner_id=OPERATOR)
    ids = {"wsA": a["workspaceId"], "wsB": b["workspaceId"]}
    root_a = a["rootNodeId"]
    folder = emu.create_folder(root_a, "Folder")["nodeId"]
    ids["a_top"] = emu.create_document(root_a, "Top doc")["nodeId"]
    ids["a_in_folder"] = emu.create_document(folder, "In folder", blocks=[paragraph("hello folder")])["nodeId"]
    ids["a_pdf"] = emu.create_file(root_a, "manual.pdf", category="DOCUMENT")["nodeId"]
    ids["a_sheet"] = emu.create_file(root_a, "sheet", category="ALIDOC", extension="axls")["nodeId"]
    excluded = emu.create_folder(root_a, "Private")["nodeId"]
    ids["excluded_folder"] = excluded
    ids["a_excluded_doc"] = emu.create_document(excluded, "Secret plan")["nodeId"]
    d1 = emu.create_folder(root_a, "L1")["nodeId"]
    d2 = emu.create_folder(d1, "L2")["nodeId"]
    ids["a_depth3"] = emu.create_document(d2, "Depth three")["nodeId"]
    d3 = emu.create_folder(d2, "L3")["nodeId"]
    ids["a_depth4"] = emu.create_document(d3, "Depth four")["nodeId"]
    ids["b_parent"] = emu.create_document(b["rootNodeId"], "Parent doc", blocks=[paragraph("parent")])["nodeId"]
    ids["b_child"] = emu.create_document(ids["b_parent"], "Child doc", blocks=[paragraph("child")])["nodeId"]
    ids["folder"] = folder
    ids["rootA"] = root_a
    return ids


def test_snapshot_two_workspaces_ends_by_itself(emu, tmp_path):
    ids = make_tree(emu)
    out = tmp_path / "out.jsonl"
    yaml = pipeline_yaml(emu, out, [ids["wsA"], ids["wsB"]],
                         {"scan.startup.mode": "snapshot", "scan.discovery.max-depth": 3,
                          "scan.document.exclude-node-ids": ids["excluded_folder"]})
    done = cdcd.run(["run", cdcd.write_pipeline(tmp_path, yaml), "--state-dir", tmp_path / "st"], timeout=120)
    assert done.returncode == 0, done.stderr + done.stdout
    got = rows(out)
    assert {r["_op"] for r in got} == {"c"}
    by_id = {r["doc_id"]: r for r in got}
    assert set(by_id) == {ids["a_top"], ids["a_in_folder"], ids["a_depth3"], ids["b_parent"], ids["b_child"]}
    assert len(got) == 5
    assert by_id[ids["a_in_folder"]]["parent_node_id"] == ids["folder"]
    assert by_id[ids["a_in_folder"]]["workspace_id"] == ids["wsA"]
    assert by_id[ids["a_in_folder"]]["_ws"] == ids["wsA"]
    assert by_id[ids["b_child"]]["parent_node_id"] == ids["b_parent"]
    assert by_id[ids["b_child"]]["content"] == "child\n"
    assert by_id[ids["b_child"]]["title"] == "Child doc"
    assert by_id[ids["b_child"]]["url"].endswith(ids["b_child"])
    top = by_id[ids["a_top"]]["content"]
    assert top.startswith("# Emulator sample document\n")
    assert "| h1 | h2 |" in top and "<!-- unsupported block: unknown -->" in top
    assert "blocks_json" not in by_id[ids["a_top"]]
    assert by_id[ids["a_top"]]["modified_time"] is not None
    assert APP_SECRET not in done.stderr + done.stdout


def test_raw_json_column(emu, tmp_path):
    ws = emu.create_workspace("Raw", owner_id=OPERATOR)
    doc = emu.create_document(ws["rootNodeId"], "Raw doc", blocks=[paragraph("x")])["nodeId"]
    out = tmp_path / "out.jsonl"
    yaml = pipeline_yaml(emu, out, [ws["workspaceId"]],
                         {"scan.startup.mode": "snapshot", "scan.block.include-raw-json": "true",
                          "scan.block.fetch-size": 1})
    done = cdcd.run(["run", cdcd.write_pipeline(tmp_path, yaml), "--state-dir", tmp_path / "st"], timeout=60)
    assert done.returncode == 0, done.stderr
    (row,) = rows(out)
    assert row["doc_id"] == doc
    assert '"blockType":"paragraph"' in row["blocks_json"]
    assert row["blocks_json"].startswith("[") and row["blocks_json"].endswith("]")


def test_incremental_title_content_move_and_prefix_size(emu, tmp_path, daemon):
    ids = make_tree(emu)
    out = tmp_path / "out.jsonl"
    d = daemon(pipeline_yaml(emu, out, [ids["wsA"]], {"scan.prefix-size": 2})).start()
    wait_for(lambda: len(rows(out, "c")) == 5, timeout=60)  # no exclusions or depth limit here
    emu.edit(ids["a_top"], name="Top doc renamed")
    emu.edit(ids["a_in_folder"], blocks=[paragraph("new content")])
    emu.move(ids["a_depth3"], ids["folder"])
    changed = lambda: {r["doc_id"]: r for r in rows(out, "u")}
    wait_for(lambda: len(changed()) == 3, timeout=30)
    c = changed()
    assert c[ids["a_top"]]["title"] == "Top doc renamed"
    assert c[ids["a_in_folder"]]["content"] == "new content\n"
    assert c[ids["a_depth3"]]["parent_node_id"] == ids["folder"]
    # A burst of 7 new documents with prefix-size 2 needs at least 4 scans of the tree.
    emu.clear_requests()
    burst = [emu.create_document(ids["rootA"], f"Burst {i}", blocks=[paragraph(f"b{i}")])["nodeId"]
             for i in range(7)]
    wait_for(lambda: set(burst) <= set(changed()), timeout=60)
    root_scans = [r for r in emu.requests("ListNodes")["ListNodes"] if r["key"] == ids["rootA"]]
    assert len(root_scans) >= 4
    # Emitted in modification order.
    order = [r["doc_id"] for r in rows(out, "u") if r["doc_id"] in burst]
    assert order == burst
    assert d.alive()
    assert d.stop() == 0


def test_consistency_retry_reads_the_settled_version(emu, tmp_path, daemon):
    ws = emu.create_workspace("Busy", owner_id=OPERATOR)
    doc = emu.create_document(ws["rootNodeId"], "Busy doc", blocks=[paragraph("v1")])["nodeId"]
    # The first block read is followed by an edit: metadata before and after disagree.
    emu.add_hook("DocBlocksQuery", {"edit": {"blocks": [paragraph("v2")], "name": "Busy doc v2"}}, key=doc)
    out = tmp_path / "out.jsonl"
    daemon(pipeline_yaml(emu, out, [ws["workspaceId"]])).start()
    (row,) = wait_for(lambda: rows(out, "c"), timeout=30)
    assert row["content"] == "v2\n"
    assert row["title"] == "Busy doc v2"
    assert emu.counters()["DocBlocksQuery"]["total"] >= 2
    time.sleep(1.0)
    assert len(rows(out)) == 1  # the settled version is not emitted again


def test_token_expiry_mid_run(emu, tmp_path, daemon):
    emu.set_token_lifetime(2)
    ws = emu.create_workspace("Tokens", owner_id=OPERATOR)
    doc = emu.create_document(ws["rootNodeId"], "T", blocks=[paragraph("t0")])["nodeId"]
    out = tmp_path / "out.jsonl"
    d = daemon(pipeline_yaml(emu, out, [ws["workspaceId"]])).start()
    wait_for(lambda: rows(out, "c"), timeout=30)
    for i in range(1, 4):
        time.sleep(1.5)
        emu.expire_tokens()
        emu.edit(doc, blocks=[paragraph(f"t{i}")])
        wait_for(lambda: latest(out)[doc]["content"] == f"t{i}\n", timeout=20)
    assert emu.counters()["GetAccessToken"]["total"] >= 3
    assert d.alive()


def test_throttling_403_qps_limit_is_retried(emu, tmp_path, daemon):
    ws = emu.create_workspace("Many", owner_id=OPERATOR)
    docs = [emu.create_document(ws["rootNodeId"], f"D{i}", blocks=[paragraph(f"d{i}")] * 3)["nodeId"]
            for i in range(12)]
    # The emulator answers 403 Forbidden.AccessDenied.QpsLimitForAppkeyAndApi above 3 req/s;
    # cdcd is allowed 50/s and one block per page, so it is throttled and must back off.
    emu.set_limit("DocBlocksQuery", 3)
    out = tmp_path / "out.jsonl"
    d = daemon(pipeline_yaml(emu, out, [ws["workspaceId"]],
                             {"scan.content.rate-limit.requests-per-second": 50,
                              "scan.block.fetch-size": 1, "request.max-retries": 10})).start()
    wait_for(lambda: {r["doc_id"] for r in rows(out, "c")} == set(docs), timeout=90)
    counts = emu.counters()["DocBlocksQuery"]["byStatus"]
    assert counts.get("403", 0) >= 1
    assert len(rows(out, "c")) == 12
    assert d.alive()


def test_rate_limits_hold(emu, tmp_path, daemon):
    ws = emu.create_workspace("Rated", owner_id=OPERATOR)
    docs = [emu.create_document(ws["rootNodeId"], f"R{i}", blocks=[paragraph(f"r{i}")])["nodeId"]
            for i in range(12)]
    out = tmp_path / "out.jsonl"
    daemon(pipeline_yaml(emu, out, [ws["workspaceId"]],
                         {"scan.metadata.rate-limit.requests-per-second": 3})).start()
    wait_for(lambda: {r["doc_id"] for r in rows(out, "c")} == set(docs), timeout=60)
    # GetNode (two per document) is limited by cdcd to 3/s: no 1 s window holds more than 3 + 1.
    times = sorted(r["t"] for r in emu.requests("GetNode")["GetNode"])
    assert len(times) >= 24
    worst = max(sum(1 for t in times if s <= t < s + 1.0) for s in times)
    assert worst <= 4
    span = times[-1] - times[0]
    assert span >= (len(times) - 1) / 3.0 - 1.0


def test_throttled_answers_back_off(emu, tmp_path, daemon):
    ws = emu.create_workspace("Throttled", owner_id=OPERATOR)
    doc = emu.create_document(ws["rootNodeId"], "Th", blocks=[paragraph("x")])["nodeId"]
    emu.inject_fault("DocBlocksQuery", kind="throttle", count=2)
    emu.inject_fault("GetNode", kind="status", count=1, status=429, code="systemBusy")
    out = tmp_path / "out.jsonl"
    daemon(pipeline_yaml(emu, out, [ws["workspaceId"]])).start()
    (row,) = wait_for(lambda: rows(out, "c"), timeout=30)
    assert row["doc_id"] == doc
    assert emu.counters()["DocBlocksQuery"]["total"] >= 3


def test_permanent_document_errors_skip_and_app_errors_fail(emu, tmp_path, daemon):
    ws = emu.create_workspace("Errors", owner_id=OPERATOR)
    root = ws["rootNodeId"]
    ok = emu.create_document(root, "ok", blocks=[paragraph("ok")])["nodeId"]
    across = emu.create_document(root, "across", blocks=[paragraph("a")])["nodeId"]
    gone = emu.create_document(root, "gone", blocks=[paragraph("g")])["nodeId"]
    emu.set_node_error(across, "DocBlocksQuery", 403, "forbidden.acrossOrg")
    emu.set_node_error(gone, "GetNode", 404, "nodeNotExist")
    out = tmp_path / "out.jsonl"
    d = daemon(pipeline_yaml(emu, out, [ws["workspaceId"]])).start()
    wait_for(lambda: rows(out, "c"), timeout=30)

    # The forbidden document is read again on its own back-off (the next poll, then 2, 4...
    # poll intervals later), not on every poll, and never emitted while it stays forbidden.
    def reads():
        return len([r for r in emu.requests("DocBlocksQuery")["DocBlocksQuery"] if r["key"] == across])

    def polls():
        return len([r for r in emu.requests("ListNodes")["ListNodes"] if r["key"] == root])

    wait_for(lambda: polls() >= 8, timeout=30)
    assert 2 <= reads() < polls()
    assert [r["doc_id"] for r in rows(out)] == [ok]
    assert d.alive()
    d.stop()

    # An app without the wiki scope fails the job, and the secret is never printed.
    emu.create_app("noscopekey", "noscope-secret-77", scopes=[])
    yaml = pipeline_yaml(emu, tmp_path / "o2.jsonl", [ws["workspaceId"]]).replace(
        "dingintegrationkey", "noscopekey").replace(APP_SECRET, "noscope-secret-77")
    failed = cdcd.run(["run", cdcd.write_pipeline(tmp_path, yaml, "noscope.yaml"), "--state-dir",
                       tmp_path / "st2"], timeout=60)
    assert failed.returncode != 0
    assert "AccessTokenPermissionDenied" in failed.stderr + failed.stdout
    assert "noscope-secret-77" not in failed.stderr + failed.stdout

    bad = pipeline_yaml(emu, tmp_path / "o3.jsonl", [ws["workspaceId"]]).replace(APP_SECRET, "wrong-secret-123")
    failed = cdcd.run(["run", cdcd.write_pipeline(tmp_path, bad, "bad.yaml"), "--state-dir", tmp_path / "st3"],
                      timeout=60)
    assert failed.returncode != 0
    assert "invalidClientIdOrSecret" in failed.stderr + failed.stdout
    assert "wrong-secret-123" not in failed.stderr + failed.stdout


def test_timestamp_startup_mode_is_rejected(emu, tmp_path):
    yaml = pipeline_yaml(emu, tmp_path / "o.jsonl", ["ws"], {"scan.startup.mode": "timestamp"})
    res = cdcd.run(["run", cdcd.write_pipeline(tmp_path, yaml), "--state-dir", tmp_path / "st"], timeout=30)
    assert res.returncode != 0
    assert "historical content" in res.stderr + res.stdout


def test_latest_offset_late_workspace_and_deletes(emu, tmp_path, daemon):
    ws = emu.create_workspace("Existing", owner_id=OPERATOR)
    old = emu.create_document(ws["rootNodeId"], "old", blocks=[paragraph("old")])["nodeId"]
    out = tmp_path / "out.jsonl"
    daemon(pipeline_yaml(emu, out, None, {"scan.startup.mode": "latest-offset",
                                         "scan.document.emit-deletes": "true"})).start()
    time.sleep(2.0)
    assert rows(out) == []  # existing content is not read
    new = emu.create_document(ws["rootNodeId"], "new", blocks=[paragraph("new")])["nodeId"]
    wait_for(lambda: any(r["doc_id"] == new and r["_op"] == "u" for r in rows(out)), timeout=20)
    # A workspace created later is read from the beginning (initial).
    late = emu.create_workspace("Late", owner_id=OPERATOR)
    late_doc = emu.create_document(late["rootNodeId"], "late", blocks=[paragraph("l")])["nodeId"]
    wait_for(lambda: any(r["doc_id"] == late_doc and r["_op"] == "c" for r in rows(out)), timeout=20)
    emu.delete(old)
    wait_for(lambda: any(r["doc_id"] == old and r["_op"] == "d" for r in rows(out)), timeout=20)


def test_kill_9_and_restart_loses_nothing_and_repeats_nothing(emu, tmp_path, daemon):
    ws = emu.create_workspace("Crash", owner_id=OPERATOR)
    docs = [emu.create_document(ws["rootNodeId"], f"C{i}", blocks=[paragraph(f"c{i}")])["nodeId"]
            for i in range(6)]
    out = tmp_path / "out.jsonl"
    yaml = pipeline_yaml(emu, out, [ws["workspaceId"]])
    d = daemon(yaml).start()
    wait_for(lambda: len(rows(out, "c")) == 6, timeout=30)
    time.sleep(1.0)  # several checkpoints
    d.kill9()
    emu.edit(docs[2], name="C2 edited while down")
    emu.edit(docs[4], blocks=[paragraph("c4 while down")])
    d2 = daemon(yaml, "again.yaml").start()
    wait_for(lambda: latest(out)[docs[2]]["title"] == "C2 edited while down"
             and latest(out)[docs[4]]["content"] == "c4 while down\n", timeout=30)
    time.sleep(1.0)
    got = rows(out)
    per_doc = {doc: [r["_op"] for r in got if r["doc_id"] == doc] for doc in docs}
    for i, doc in enumerate(docs):
        assert per_doc[doc] == (["c", "u"] if i in (2, 4) else ["c"]), per_doc
    assert d2.stop() == 0
