"""Discovery is cumulative (the spec's 使用限制): ids added to scan.document.exclude-node-ids,
and workspaces dropped from workspace-id, on a restart from the job's state do not remove what
the job discovered already -- it keeps being read; only what is new under an added exclusion is
skipped. A start without state honours the exclusions in full."""
import time

from dingtalk_env import OPERATOR, latest, paragraph, pipeline_yaml, rows, wait_for


def test_exclusions_added_on_a_restart_keep_what_was_discovered(emu, tmp_path, daemon):
    ws = emu.create_workspace("Cumulative", owner_id=OPERATOR)
    other = emu.create_workspace("Dropped", owner_id=OPERATOR)
    root = ws["rootNodeId"]
    folder = emu.create_folder(root, "Folder")["nodeId"]
    in_folder = emu.create_document(folder, "in folder", blocks=[paragraph("f")])["nodeId"]
    single = emu.create_document(root, "single", blocks=[paragraph("s")])["nodeId"]
    other_doc = emu.create_document(other["rootNodeId"], "other", blocks=[paragraph("o")])["nodeId"]
    out = tmp_path / "out.jsonl"
    first = daemon(pipeline_yaml(emu, out, [ws["workspaceId"], other["workspaceId"]])).start()
    wait_for(lambda: len(rows(out, "c")) == 3, timeout=30)
    assert first.stop() == 0

    # Restart from the state with the folder and the single document excluded, and the second
    # workspace no longer configured.
    narrowed = pipeline_yaml(emu, out, [ws["workspaceId"]],
                             {"scan.document.exclude-node-ids": f"{folder},{single}"})
    new_in_folder = emu.create_document(folder, "new in folder", blocks=[paragraph("n")])["nodeId"]
    again = daemon(narrowed, "narrowed.yaml").start()
    emu.edit(in_folder, blocks=[paragraph("f2")])
    emu.edit(single, name="single renamed")
    emu.edit(other_doc, blocks=[paragraph("o2")])
    wait_for(lambda: latest(out)[in_folder]["content"] == "f2\n"
             and latest(out)[single]["title"] == "single renamed"
             and latest(out)[other_doc]["content"] == "o2\n", timeout=30)
    time.sleep(1.0)  # a few more polls
    assert new_in_folder not in {r["doc_id"] for r in rows(out)}  # new under an added exclusion
    assert "node " + folder + " was added after the job discovered" in again.output()
    assert again.stop() == 0

    # The exclusions stay late on a further restart; a start without state honours them in full.
    third = daemon(narrowed, "third.yaml").start()
    emu.edit(in_folder, blocks=[paragraph("f3")])
    wait_for(lambda: latest(out)[in_folder]["content"] == "f3\n", timeout=30)
    assert third.stop() == 0
    fresh_out = tmp_path / "fresh.jsonl"
    fresh = daemon(pipeline_yaml(emu, fresh_out, [ws["workspaceId"]],
                                 {"scan.document.exclude-node-ids": f"{folder},{single}"}).replace(
        "name: dingtalk-it", "name: dingtalk-fresh"), "fresh.yaml")
    fresh.state, fresh.log = tmp_path / "fresh-state", tmp_path / "fresh.log"
    fresh.start()
    wait_for(lambda: "snapshot complete" in fresh.output(), timeout=30)
    time.sleep(0.5)
    assert {r["doc_id"] for r in rows(fresh_out)} == set()
    assert fresh.stop() == 0
