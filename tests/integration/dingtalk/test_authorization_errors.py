"""Authorization errors are not retried (the spec's 授权问题排查): a configured workspace the
operator may not read fails the job at once, naming the workspace and the code; a subtree whose
listing is refused is skipped and not asked for again, while the rest of the workspace is read."""
import cdcd_process as cdcd
import pytest

from dingtalk_env import OPERATOR, paragraph, pipeline_yaml, rows, wait_for


@pytest.mark.parametrize("refusal", ["forbidden.acrossOrg", "permissionDenied"])
def test_a_configured_workspace_refused_for_authorization_fails_the_job_naming_it(refusal, emu, tmp_path):
    ok = emu.create_workspace("Readable", owner_id=OPERATOR)
    emu.create_document(ok["rootNodeId"], "doc", blocks=[paragraph("x")])
    if refusal == "forbidden.acrossOrg":
        refused = emu.create_workspace("Elsewhere", corpId="otherCorp")
    else:
        refused = emu.create_workspace("Private", owner_id=None)  # the operator has no role
    yaml = pipeline_yaml(emu, tmp_path / "out.jsonl", [ok["workspaceId"], refused["workspaceId"]])
    res = cdcd.run(["run", cdcd.write_pipeline(tmp_path, yaml), "--state-dir", tmp_path / "st"], timeout=30)
    text = res.stdout + res.stderr
    assert res.returncode != 0, text
    assert f"workspace-id {refused['workspaceId']} cannot be read" in text
    assert refusal in text and "not retried" in text
    asked = [r for r in emu.requests("GetWorkspace")["GetWorkspace"] if r["key"] == refused["workspaceId"]]
    assert len(asked) == 1


def test_a_subtree_refused_for_authorization_is_skipped_and_not_asked_again(emu, tmp_path, daemon):
    ws = emu.create_workspace("Mixed", owner_id=OPERATOR)
    root = ws["rootNodeId"]
    locked = emu.create_folder(root, "Locked")["nodeId"]
    emu.create_document(locked, "hidden", blocks=[paragraph("h")])
    doc = emu.create_document(root, "open", blocks=[paragraph("o")])["nodeId"]
    emu.set_node_error(locked, "ListNodes", 403, "permissionDenied")
    out = tmp_path / "out.jsonl"
    d = daemon(pipeline_yaml(emu, out, [ws["workspaceId"]])).start()
    wait_for(lambda: [r["doc_id"] for r in rows(out)] == [doc], timeout=30)

    def listings(key):
        return len([r for r in emu.requests("ListNodes")["ListNodes"] if r["key"] == key])

    wait_for(lambda: listings(root) >= 6, timeout=30)
    assert listings(locked) == 1  # every poll before the fix
    emu.edit(doc, blocks=[paragraph("o2")])  # the rest of the workspace is still followed
    wait_for(lambda: [r["_op"] for r in rows(out)] == ["c", "u"], timeout=30)
    assert d.alive()
    assert d.stop() == 0
    log = d.output()
    assert f"the children of node {locked} cannot be read (permissionDenied" in log
    assert "not retried" in log
