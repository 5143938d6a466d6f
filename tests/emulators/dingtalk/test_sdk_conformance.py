"""Drive the emulator with DingTalk's official Python SDK (PyPI alibabacloud-dingtalk).

The SDK is pointed at the emulator with Config(protocol="http", endpoint="127.0.0.1:PORT"):
the DingTalk gateway SPI sends `host: config.endpoint` and tea-openapi uses
`config.protocol or params.protocol` as the scheme (read in site-packages). If the SDK can
parse every answer into its typed models and errors surface as TeaException with DingTalk's
codes, the emulator speaks the wire format the real service does.
"""
from __future__ import annotations

import pytest
from alibabacloud_dingtalk.doc_1_0 import client as doc_client
from alibabacloud_dingtalk.doc_1_0 import models as doc_models
from alibabacloud_dingtalk.oauth2_1_0 import client as oauth_client
from alibabacloud_dingtalk.oauth2_1_0 import models as oauth_models
from alibabacloud_dingtalk.wiki_2_0 import client as wiki_client
from alibabacloud_dingtalk.wiki_2_0 import models as wiki_models
from alibabacloud_tea_openapi import models as open_api_models
from alibabacloud_tea_util import models as util_models
from Tea.exceptions import TeaException

from dingtalk_testenv import APP_KEY, APP_SECRET, OPERATOR, DingTalkEmulator

DOC_BLOCK_TYPES = {"paragraph", "heading", "blockquote", "callout", "columns", "orderedList",
                   "unorderedList", "table", "unknown"}


def config(emu) -> open_api_models.Config:
    return open_api_models.Config(protocol="http", endpoint=emu.endpoint, region_id="central")


def sdk_token(emu) -> str:
    client = oauth_client.Client(config(emu))
    resp = client.get_access_token(oauth_models.GetAccessTokenRequest(app_key=APP_KEY,
                                                                      app_secret=APP_SECRET))
    assert resp.status_code == 200
    assert resp.body.expire_in == 7200
    return resp.body.access_token


def test_token_is_issued_and_reused_inside_validity(emu):
    first = sdk_token(emu)
    assert len(first) >= 16
    assert sdk_token(emu) == first  # documented: same token while valid


def test_bad_secret_is_invalid_client(emu):
    client = oauth_client.Client(config(emu))
    with pytest.raises(TeaException) as exc:
        client.get_access_token(oauth_models.GetAccessTokenRequest(app_key=APP_KEY,
                                                                   app_secret="wrong"))
    assert exc.value.code == "invalidClientIdOrSecret"
    assert exc.value.data["statusCode"] == 400


def test_list_workspaces_paginates_at_30(emu):
    ids = {emu.create_workspace(f"ws{i:02d}", owner_id=OPERATOR)["workspaceId"] for i in range(35)}
    emu.create_workspace("hidden", owner_id="someoneElse")  # operator has no role here
    token = sdk_token(emu)
    client = wiki_client.Client(config(emu))
    headers = wiki_models.ListWorkspacesHeaders(x_acs_dingtalk_access_token=token)
    seen, next_token, pages = [], None, 0
    for _ in range(10):  # bounded pagination loop
        req = wiki_models.ListWorkspacesRequest(operator_id=OPERATOR, max_results=30,
                                                next_token=next_token, with_permission_role=True,
                                                order_by="CREATE_TIME_DESC")
        body = client.list_workspaces_with_options(req, headers, util_models.RuntimeOptions()).body
        pages += 1
        seen.extend(body.workspaces)
        next_token = body.next_token
        if not next_token:
            break
    assert pages == 2
    assert {w.workspace_id for w in seen} == ids
    assert all(w.permission_role == "OWNER" and w.type == "TEAM" and w.root_node_id for w in seen)
    assert [w.name for w in seen][:2] == ["ws34", "ws33"]  # CREATE_TIME_DESC


def test_get_workspace(emu):
    ws = emu.create_workspace("kb", owner_id=OPERATOR, description="about")
    client = wiki_client.Client(config(emu))
    body = client.get_workspace_with_options(
        ws["workspaceId"], wiki_models.GetWorkspaceRequest(operator_id=OPERATOR),
        wiki_models.GetWorkspaceHeaders(x_acs_dingtalk_access_token=sdk_token(emu)),
        util_models.RuntimeOptions()).body
    assert body.workspace.root_node_id == ws["rootNodeId"]
    assert body.workspace.description == "about" and body.workspace.corp_id == ws["corpId"]


def test_over_cap_page_size_is_param_error(emu):
    client = wiki_client.Client(config(emu))
    headers = wiki_models.ListWorkspacesHeaders(x_acs_dingtalk_access_token=sdk_token(emu))
    with pytest.raises(TeaException) as exc:
        client.list_workspaces_with_options(
            wiki_models.ListWorkspacesRequest(operator_id=OPERATOR, max_results=31), headers,
            util_models.RuntimeOptions())
    assert exc.value.code == "paramError"


def test_list_nodes_get_node_and_read_all_blocks(emu):
    ws = emu.create_workspace("kb", owner_id=OPERATOR)
    folder = emu.create_folder(ws["rootNodeId"], "folder")
    doc = emu.create_document(folder["nodeId"], "Sample doc", blocks="sample")
    sheet = emu.create_file(folder["nodeId"], "sheet.pdf", category="DOCUMENT")
    for i in range(55):
        emu.create_document(ws["rootNodeId"], f"top {i}", blocks=[])
    token = sdk_token(emu)
    wiki = wiki_client.Client(config(emu))

    # ListNodes: 1 folder + 55 docs at top level, pages of at most 50.
    headers = wiki_models.ListNodesHeaders(x_acs_dingtalk_access_token=token)
    nodes, next_token, pages = [], None, 0
    for _ in range(10):
        body = wiki.list_nodes_with_options(
            wiki_models.ListNodesRequest(parent_node_id=ws["rootNodeId"], operator_id=OPERATOR,
                                         max_results=50, next_token=next_token),
            headers, util_models.RuntimeOptions()).body
        pages += 1
        nodes.extend(body.nodes)
        next_token = body.next_token
        if not next_token:
            break
    assert pages == 2 and len(nodes) == 56
    top_folder = next(n for n in nodes if n.node_id == folder["nodeId"])
    assert top_folder.type == "FOLDER" and top_folder.has_children is True

    children = wiki.list_nodes_with_options(
        wiki_models.ListNodesRequest(parent_node_id=folder["nodeId"], operator_id=OPERATOR),
        headers, util_models.RuntimeOptions()).body.nodes
    kinds = {n.node_id: (n.type, n.category, n.extension) for n in children}
    assert kinds == {doc["nodeId"]: ("FILE", "ALIDOC", "adoc"),
                     sheet["nodeId"]: ("FILE", "DOCUMENT", "pdf")}

    node = wiki.get_node_with_options(
        doc["nodeId"], wiki_models.GetNodeRequest(operator_id=OPERATOR, with_statistical_info=True,
                                                  with_permission_role=True),
        wiki_models.GetNodeHeaders(x_acs_dingtalk_access_token=token),
        util_models.RuntimeOptions()).body.node
    assert node.name == "Sample doc" and node.workspace_id == ws["workspaceId"]
    assert node.permission_role == "OWNER" and node.statistical_info.word_count > 0
    assert node.modified_time.endswith("Z") and len(node.modified_time) == len("2023-05-15T11:29Z")
    assert node.modified_timestamp == doc["modifiedTimestamp"]

    # DocBlocksQuery in windows of 10 until a short page comes back.
    docs = doc_client.Client(config(emu))
    doc_headers = doc_models.DocBlocksQueryHeaders(x_acs_dingtalk_access_token=token)
    blocks, start = [], 0
    for _ in range(20):
        body = docs.doc_blocks_query_with_options(
            doc["nodeId"], doc_models.DocBlocksQueryRequest(operator_id=OPERATOR, start_index=start,
                                                            end_index=start + 9),
            doc_headers, util_models.RuntimeOptions()).body
        assert body.success is True
        blocks.extend(body.result.data)
        if len(body.result.data) < 10:
            break
        start += 10
    assert [b["index"] for b in blocks] == list(range(len(blocks)))
    assert blocks == emu.get_node(doc["nodeId"])["blocks"]
    assert DOC_BLOCK_TYPES <= {b["blockType"] for b in blocks}

    # Block-type filter.
    headings = docs.doc_blocks_query_with_options(
        doc["nodeId"], doc_models.DocBlocksQueryRequest(operator_id=OPERATOR, block_type="heading"),
        doc_headers, util_models.RuntimeOptions()).body.result.data
    assert headings and {b["blockType"] for b in headings} == {"heading"}


def _sdk_error(fn) -> TeaException:
    with pytest.raises(TeaException) as exc:
        fn()
    return exc.value


def test_errors_surface_as_tea_exceptions(emu):
    ws = emu.create_workspace("kb", owner_id=OPERATOR)
    doc = emu.create_document(ws["rootNodeId"], "d")
    token = sdk_token(emu)
    wiki, docs = wiki_client.Client(config(emu)), doc_client.Client(config(emu))
    rt = util_models.RuntimeOptions()

    def get_node(node_id, tok=token):
        return wiki.get_node_with_options(node_id, wiki_models.GetNodeRequest(operator_id=OPERATOR),
                                          wiki_models.GetNodeHeaders(x_acs_dingtalk_access_token=tok), rt)

    def blocks(doc_key):
        return docs.doc_blocks_query_with_options(
            doc_key, doc_models.DocBlocksQueryRequest(operator_id=OPERATOR),
            doc_models.DocBlocksQueryHeaders(x_acs_dingtalk_access_token=token), rt)

    err = _sdk_error(lambda: get_node(doc["nodeId"], tok="not-a-token"))
    assert err.code == "InvalidAuthentication" and err.data["statusCode"] == 400
    assert "request id:" in err.message

    emu.delete(doc["nodeId"])
    err = _sdk_error(lambda: get_node(doc["nodeId"]))
    assert err.code == "nodeNotExist" and err.data["statusCode"] == 404

    err = _sdk_error(lambda: blocks("bad-key!"))
    assert err.code == "invalidRequest.inputArgs.invalid" and "doc key is illegal" in err.message

    other = emu.create_workspace("foreign", owner_id=OPERATOR, corpId="dingOtherCorp")
    foreign = emu.create_document(other["rootNodeId"], "x")
    err = _sdk_error(lambda: blocks(foreign["nodeId"]))
    assert err.code == "forbidden.acrossOrg" and err.data["statusCode"] == 403

    emu.create_app("lowlevel", "s", org_auth_level_ok=False)
    low = oauth_client.Client(config(emu)).get_access_token(
        oauth_models.GetAccessTokenRequest(app_key="lowlevel", app_secret="s")).body.access_token
    err = _sdk_error(lambda: get_node(foreign["nodeId"], tok=low))
    assert err.code == "orgAuthLevelNotEnough"

    emu.create_app("noscope", "s", scopes=["Wiki.Node.Read"])
    noscope = oauth_client.Client(config(emu)).get_access_token(
        oauth_models.GetAccessTokenRequest(app_key="noscope", app_secret="s")).body.access_token
    err = _sdk_error(lambda: docs.doc_blocks_query_with_options(
        foreign["nodeId"], doc_models.DocBlocksQueryRequest(operator_id=OPERATOR),
        doc_models.DocBlocksQueryHeaders(x_acs_dingtalk_access_token=noscope), rt))
    assert err.code == "Forbidden.AccessDenied.AccessTokenPermissionDenied"
    # The SDK wraps the gateway error; the body (with accessdenieddetail) stays in .data.
    assert err.data["accessdenieddetail"] == {"requiredScopes": ["Storage.File.Read"]}


def test_sdk_sees_qps_throttle_code(emu):
    ws = emu.create_workspace("kb", owner_id=OPERATOR)
    emu.set_limit("ListNodes", qps=2)
    token = sdk_token(emu)
    wiki = wiki_client.Client(config(emu))
    headers = wiki_models.ListNodesHeaders(x_acs_dingtalk_access_token=token)
    codes = []
    for _ in range(4):  # well inside one second
        try:
            wiki.list_nodes_with_options(
                wiki_models.ListNodesRequest(parent_node_id=ws["rootNodeId"], operator_id=OPERATOR),
                headers, util_models.RuntimeOptions())
            codes.append("ok")
        except TeaException as err:
            codes.append(err.code)
    assert codes[:2] == ["ok", "ok"]
    assert "Forbidden.AccessDenied.QpsLimitForAppkeyAndApi" in codes[2:]


def test_a_restart_with_a_state_file_keeps_apps_tokens_and_documents(tmp_path):
    # The server is stopped and started again on the same port: the app, its token (still valid,
    # as DingTalk's tokens live 7200 s whatever happens to a server) and the documents remain.
    with DingTalkEmulator(state_file=str(tmp_path / "dingtalk.state")) as emu:
        emu.create_app(APP_KEY, APP_SECRET)
        emu.create_operators(OPERATOR)
        ws = emu.create_workspace("kb", owner_id=OPERATOR)
        doc = emu.create_document(ws["rootNodeId"], "Kept", blocks=[
            {"blockType": "paragraph", "paragraph": {"text": "kept"}, "children": [{"text": "kept"}]}])
        token = sdk_token(emu)
        emu.restart()
        assert sdk_token(emu) == token
        wiki = wiki_client.Client(config(emu))
        node = wiki.get_node_with_options(
            doc["nodeId"], wiki_models.GetNodeRequest(operator_id=OPERATOR),
            wiki_models.GetNodeHeaders(x_acs_dingtalk_access_token=token), util_models.RuntimeOptions()).body.node
        assert node.name == "Kept" and node.workspace_id == ws["workspaceId"]
