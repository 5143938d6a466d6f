"""Plain-HTTP tests of the emulator's levers: token expiry, throttling, faults, hooks,
permissions, the control API and bulk seeding. The SDK suite proves the wire shapes; these
prove the behaviour cdcd's C++ tests will lean on."""
from __future__ import annotations

import time

import pytest
import requests

from dingtalk_testenv import APP_KEY, APP_SECRET, OPERATOR, ControlError

TOKEN_HEADER = "x-acs-dingtalk-access-token"


class Api:
    """Minimal raw DingTalk client: what cdcd does, without the SDK's help."""

    def __init__(self, emu, app_key=APP_KEY, app_secret=APP_SECRET, operator=OPERATOR):
        self.emu, self.operator = emu, operator
        self.http = requests.Session()
        self.app_key, self.app_secret = app_key, app_secret
        self.token = self.fetch_token().json()["accessToken"]

    def fetch_token(self):
        return self.http.post(f"{self.emu.url}/v1.0/oauth2/accessToken",
                              json={"appKey": self.app_key, "appSecret": self.app_secret})

    def get(self, path, token=None, **params):
        params.setdefault("operatorId", self.operator)
        return self.http.get(f"{self.emu.url}{path}", params=params, timeout=10,
                             headers={TOKEN_HEADER: token if token is not None else self.token})

    def workspaces(self, **params):
        return self.get("/v2.0/wiki/workspaces", **params)

    def nodes(self, parent, **params):
        return self.get("/v2.0/wiki/nodes", parentNodeId=parent, **params)

    def node(self, node_id, **params):
        return self.get(f"/v2.0/wiki/nodes/{node_id}", **params)

    def blocks(self, doc_key, **params):
        return self.get(f"/v1.0/doc/suites/documents/{doc_key}/blocks", **params)


def code_of(resp):
    body = resp.json()
    assert set(body) >= {"code", "requestid", "message"}
    assert resp.headers["x-acs-request-id"]
    return resp.status_code, body["code"]


@pytest.fixture
def kb(emu):
    ws = emu.create_workspace("kb", owner_id=OPERATOR)
    doc = emu.create_document(ws["rootNodeId"], "doc", blocks="sample")
    return ws, doc


# ---- tokens --------------------------------------------------------------------------------
def test_token_expiry_and_refresh(emu, kb):
    ws, _ = kb
    emu.set_token_lifetime(1)
    api = Api(emu)
    assert api.fetch_token().json()["expireIn"] == 1
    assert api.nodes(ws["rootNodeId"]).status_code == 200
    time.sleep(1.2)
    assert code_of(api.nodes(ws["rootNodeId"])) == (400, "InvalidAuthentication")
    fresh = api.fetch_token().json()["accessToken"]
    assert fresh != api.token
    assert api.nodes(ws["rootNodeId"], token=fresh).status_code == 200
    emu.expire_tokens()
    assert code_of(api.nodes(ws["rootNodeId"], token=fresh)) == (400, "InvalidAuthentication")


def test_token_endpoint_errors_and_missing_header(emu, kb):
    url = f"{emu.url}/v1.0/oauth2/accessToken"
    form = requests.post(url, data={"appKey": APP_KEY, "appSecret": APP_SECRET})
    assert code_of(form) == (400, "Missingbody")
    assert code_of(requests.post(url, json={"appKey": "nope", "appSecret": "x"})) == \
        (400, "invalidClientIdOrSecret")
    no_header = requests.get(f"{emu.url}/v2.0/wiki/workspaces", params={"operatorId": OPERATOR})
    assert code_of(no_header) == (400, "InvalidAuthentication")


# ---- parameters and documented error codes -----------------------------------------------
def test_parameter_and_resource_errors(emu, kb):
    ws, doc = kb
    api = Api(emu)
    assert code_of(api.workspaces(orderBy="NAME")) == (400, "paramError.orderBy")
    assert code_of(api.workspaces(nextToken="garbage")) == (400, "paramError")
    assert code_of(api.workspaces(withPermissionRole="maybe")) == (400, "paramError")
    assert code_of(api.workspaces(operatorId="")) == (400, "paramError")
    assert code_of(api.workspaces(operatorId="unknownUser")) == (400, "paramError")
    assert code_of(api.nodes(ws["rootNodeId"], maxResults=51)) == (400, "paramError")
    assert code_of(api.nodes("NoSuchParent0000")) == (404, "parentNodeNotExist")
    assert code_of(api.node("NoSuchNode000000")) == (404, "nodeNotExist")
    assert code_of(api.blocks("NoSuchDoc0000000")) == (404, "docNotExist")
    assert code_of(api.blocks(doc["nodeId"], startIndex=5, endIndex=2)) == (400, "paramError")
    assert code_of(api.blocks(doc["nodeId"], blockType="image")) == (400, "paramError")
    folder = emu.create_folder(ws["rootNodeId"], "f")
    status, code = code_of(api.blocks(folder["nodeId"]))
    assert (status, code) == (400, "invalidRequest.inputArgs.invalid")
    assert api.blocks(folder["nodeId"]).json()["message"] == "doc key is illegal"
    assert code_of(api.get("/v2.0/wiki/nothing")) == (404, "InvalidAction.NotFound")


def test_sticky_node_error(emu, kb):
    _, doc = kb
    api = Api(emu)
    emu.set_node_error(doc["nodeId"], "DocBlocksQuery", 500, "forbidden.operationIllegal")
    assert code_of(api.blocks(doc["nodeId"])) == (500, "forbidden.operationIllegal")
    assert api.node(doc["nodeId"]).status_code == 200  # only the named endpoint fails
    emu.control("POST", f"nodes/{doc['nodeId']}/error",
                {"endpoint": "DocBlocksQuery", "clear": True})
    assert api.blocks(doc["nodeId"]).status_code == 200


def test_blocks_window_is_inclusive(emu, kb):
    _, doc = kb
    api = Api(emu)
    data = api.blocks(doc["nodeId"], startIndex=2, endIndex=4).json()["result"]["data"]
    assert [b["index"] for b in data] == [2, 3, 4]
    assert api.blocks(doc["nodeId"], startIndex=500, endIndex=510).json()["result"]["data"] == []


# ---- permissions ---------------------------------------------------------------------------
def test_permissions_inherit_and_hide(emu):
    emu.create_operators("reader0000000001")
    ws = emu.create_workspace("kb", owner_id=OPERATOR)
    shared = emu.create_folder(ws["rootNodeId"], "shared")
    private = emu.create_folder(ws["rootNodeId"], "private")
    shared_doc = emu.create_document(shared["nodeId"], "s")
    secret_doc = emu.create_document(shared["nodeId"], "secret")
    private_doc = emu.create_document(private["nodeId"], "p")
    emu.set_permission(ws["workspaceId"], "reader0000000001", "READER")
    emu.set_permission(private["nodeId"], "reader0000000001", "NONE")
    emu.set_permission(secret_doc["nodeId"], "reader0000000001", "NONE")
    reader = Api(emu, operator="reader0000000001")

    listed = reader.workspaces(withPermissionRole="true").json()["workspaces"]
    assert [(w["workspaceId"], w["permissionRole"]) for w in listed] == [(ws["workspaceId"], "READER")]
    top = [n["nodeId"] for n in reader.nodes(ws["rootNodeId"]).json()["nodes"]]
    assert top == [shared["nodeId"]]
    inside = [n["nodeId"] for n in reader.nodes(shared["nodeId"]).json()["nodes"]]
    assert inside == [shared_doc["nodeId"]]
    assert reader.blocks(shared_doc["nodeId"]).status_code == 200
    assert code_of(reader.blocks(secret_doc["nodeId"])) == (403, "forbidden.accessDenied")
    assert code_of(reader.node(private_doc["nodeId"])) == (403, "permissionDenied")
    assert code_of(reader.nodes(private["nodeId"])) == (403, "permissionDenied")

    emu.set_permission(ws["workspaceId"], "reader0000000001", None)  # revoke
    assert reader.workspaces().json()["workspaces"] == []


def test_hidden_children_do_not_break_pagination(emu):
    emu.create_operators("reader0000000002")
    ws = emu.create_workspace("kb", owner_id=OPERATOR, members={"reader0000000002": "READER"})
    visible = []
    for i in range(60):
        doc = emu.create_document(ws["rootNodeId"], f"d{i}", blocks=[])
        if i % 3 == 0:
            emu.set_permission(doc["nodeId"], "reader0000000002", "NONE")
        else:
            visible.append(doc["nodeId"])
    reader = Api(emu, operator="reader0000000002")
    seen, token = [], None
    for _ in range(10):
        params = {"maxResults": 25, **({"nextToken": token} if token else {})}
        body = reader.nodes(ws["rootNodeId"], **params).json()
        assert len(body["nodes"]) <= 25
        seen += [n["nodeId"] for n in body["nodes"]]
        token = body.get("nextToken")
        if not token:
            break
    assert seen == visible


# ---- control API: edit, move, delete -------------------------------------------------------
def test_edit_move_delete(emu, kb):
    ws, doc = kb
    api = Api(emu)
    before = api.node(doc["nodeId"]).json()["node"]
    emu.edit(doc["nodeId"], name="renamed", blocks=[{"blockType": "paragraph", "paragraph": {"text": "new"},
                                                      "children": [{"text": "new"}]}])
    after = api.node(doc["nodeId"]).json()["node"]
    assert after["name"] == "renamed"
    assert after["modifiedTimestamp"] > before["modifiedTimestamp"]
    data = api.blocks(doc["nodeId"]).json()["result"]["data"]
    assert [b["paragraph"]["text"] for b in data] == ["new"] and data[0]["id"]

    folder = emu.create_folder(ws["rootNodeId"], "dest")
    emu.move(doc["nodeId"], folder["nodeId"])
    assert [n["nodeId"] for n in api.nodes(folder["nodeId"]).json()["nodes"]] == [doc["nodeId"]]
    assert [n["nodeId"] for n in api.nodes(ws["rootNodeId"]).json()["nodes"]] == [folder["nodeId"]]

    assert emu.delete(folder["nodeId"]) == {"deleted": 2}
    assert code_of(api.node(doc["nodeId"])) == (404, "nodeNotExist")
    assert code_of(api.blocks(doc["nodeId"])) == (404, "invalidRequest.document.deleted")
    assert api.nodes(ws["rootNodeId"]).json()["nodes"] == []


def test_explicit_modified_timestamp_and_bad_control_input(emu, kb):
    ws, doc = kb
    emu.edit(doc["nodeId"], modifiedTimestamp=1684150140000)  # 2023-05-15T11:29Z
    node = Api(emu).node(doc["nodeId"]).json()["node"]
    assert node["modifiedTime"] == "2023-05-15T11:29Z" and node["modifiedTimestamp"] == 1684150140000
    with pytest.raises(ControlError) as exc:
        emu.create_document("NoSuchParent0000", "x")
    assert exc.value.status == 404
    with pytest.raises(ControlError) as exc:
        emu.set_permission(ws["workspaceId"], OPERATOR, "GOD")
    assert exc.value.status == 400


# ---- hooks: change data between two requests -----------------------------------------------
def test_hook_edits_document_after_blocks_request(emu, kb):
    _, doc = kb
    api = Api(emu)
    emu.add_hook("DocBlocksQuery", key=doc["nodeId"],
                 action={"edit": {"blocks": [{"blockType": "heading", "heading": {"level": 1, "text": "v2"},
                                              "children": [{"text": "v2"}]}]}})
    meta_before = api.node(doc["nodeId"]).json()["node"]["modifiedTimestamp"]
    first = api.blocks(doc["nodeId"]).json()["result"]["data"]
    meta_after = api.node(doc["nodeId"]).json()["node"]["modifiedTimestamp"]
    second = api.blocks(doc["nodeId"]).json()["result"]["data"]
    assert len(first) > 1 and [b["heading"]["text"] for b in second] == ["v2"]
    assert meta_after > meta_before  # a consistency check comparing metadata sees the change
    third = api.blocks(doc["nodeId"]).json()["result"]["data"]
    assert third == second  # the hook fired once


def test_hook_after_nth_request_and_delete_action(emu, kb):
    _, doc = kb
    api = Api(emu)
    emu.add_hook("GetNode", key=doc["nodeId"], after=2, action={"delete": {}})
    assert api.node(doc["nodeId"]).status_code == 200
    assert api.node(doc["nodeId"]).status_code == 200
    assert code_of(api.node(doc["nodeId"])) == (404, "nodeNotExist")



def test_failing_hook_action_is_reported_not_served_as_500(emu, kb):
    ws, _ = kb
    api = Api(emu)
    emu.add_hook("ListNodes", key=ws["rootNodeId"], action={"nodeId": "GoneNode00000000", "delete": {}})
    assert api.nodes(ws["rootNodeId"]).status_code == 200
    assert "does not exist" in emu.state()["hooks"][0]["error"]


# ---- faults --------------------------------------------------------------------------------
def test_status_fault_then_recovery(emu, kb):
    ws, _ = kb
    api = Api(emu)
    emu.inject_fault("ListNodes", "status", count=2, status=503, code="operationTimeout")
    assert code_of(api.nodes(ws["rootNodeId"])) == (503, "operationTimeout")
    assert code_of(api.nodes(ws["rootNodeId"])) == (503, "operationTimeout")
    assert api.nodes(ws["rootNodeId"]).status_code == 200
    assert emu.counters()["ListNodes"]["byStatus"] == {"503": 2, "200": 1}


def test_reset_fault_drops_connection(emu, kb):
    _, doc = kb
    api = Api(emu)
    emu.inject_fault("GetNode", "reset", count=1)
    with pytest.raises(requests.ConnectionError):
        api.node(doc["nodeId"])
    assert api.node(doc["nodeId"]).status_code == 200
    statuses = [r["status"] for r in emu.requests("GetNode")["GetNode"]]
    assert statuses == [0, 200]


def test_delay_fault_slows_one_request(emu, kb):
    _, doc = kb
    api = Api(emu)
    # 1 s against the < 0.1 s of a loopback request: the margin keeps a loaded machine from
    # mistaking an undelayed request for a delayed one.
    emu.inject_fault("DocBlocksQuery", "delay", count=1, delayMs=1000)
    started = time.monotonic()
    assert api.blocks(doc["nodeId"]).status_code == 200
    assert time.monotonic() - started >= 0.99
    started = time.monotonic()
    assert api.blocks(doc["nodeId"]).status_code == 200
    assert time.monotonic() - started < 0.9


def test_throttle_fault_targets_one_doc_after_skip(emu, kb):
    ws, doc = kb
    other = emu.create_document(ws["rootNodeId"], "other")
    api = Api(emu)
    emu.inject_fault("DocBlocksQuery", "throttle", count=1, skip=1, key=doc["nodeId"], status=429,
                     retryAfter=2)
    assert api.blocks(other["nodeId"]).status_code == 200
    assert api.blocks(doc["nodeId"]).status_code == 200  # skipped
    resp = api.blocks(doc["nodeId"])
    assert code_of(resp) == (429, "systemBusy") and resp.headers["Retry-After"] == "2"
    assert api.blocks(doc["nodeId"]).status_code == 200


# ---- QPS limits and the rate log -----------------------------------------------------------
def test_per_app_qps_limit_and_window(emu, kb):
    _, doc = kb
    emu.create_app("secondApp", "s2")
    emu.set_limit("GetNode", qps=3)
    first, second = Api(emu), Api(emu, app_key="secondApp", app_secret="s2")
    statuses = [first.node(doc["nodeId"]).status_code for _ in range(5)]
    assert statuses[:3] == [200, 200, 200] and statuses[3:] == [403, 403]
    assert code_of(first.node(doc["nodeId"]))[1] == "Forbidden.AccessDenied.QpsLimitForAppkeyAndApi"
    assert second.node(doc["nodeId"]).status_code == 200  # separate per-app budget
    time.sleep(1.05)
    assert first.node(doc["nodeId"]).status_code == 200  # window slid


def test_global_api_limit_and_429_mode(emu, kb):
    ws, doc = kb
    emu.create_app("secondApp", "s2")
    first, second = Api(emu), Api(emu, app_key="secondApp", app_secret="s2")
    emu.set_limit("ListNodes", qps=1, scope="api")
    assert first.nodes(ws["rootNodeId"]).status_code == 200
    assert code_of(second.nodes(ws["rootNodeId"])) == (403, "Forbidden.AccessDenied.QpsLimitForApi")
    emu.set_limit("DocBlocksQuery", qps=1, status=429, retry_after=1)
    assert first.blocks(doc["nodeId"]).status_code == 200
    busy = first.blocks(doc["nodeId"])
    assert code_of(busy) == (429, "systemBusy") and busy.headers["Retry-After"] == "1"
    emu.set_limit("DocBlocksQuery", qps=None)
    assert first.blocks(doc["nodeId"]).status_code == 200
    emu.set_limit("GetNode", qps=2, per_minute=True)
    assert [first.node(doc["nodeId"]).status_code for _ in range(2)] == [200, 200]
    assert code_of(first.node(doc["nodeId"])) == (403, "Forbidden.AccessDenied.QpmLimitForAppkeyAndApi")


def test_rate_log_measures_client_rate(emu, kb):
    _, doc = kb
    api = Api(emu)
    emu.clear_requests()
    started = time.monotonic()
    for i in range(6):  # a client pacing itself at ~10 req/s
        if i:
            time.sleep(0.1)
        api.node(doc["nodeId"])
    client_span = time.monotonic() - started
    log = emu.requests("GetNode")["GetNode"]
    assert len(log) == 6 and all(r["key"] == doc["nodeId"] and r["status"] == 200 for r in log)
    # The log's times span the client's pauses (5 x 0.1 s) and no more than the client's own
    # wall time, however loaded the machine is.
    span = log[-1]["t"] - log[0]["t"]
    assert 0.5 <= span <= client_span
    assert emu.counters() == {"GetNode": {"total": 6, "byStatus": {"200": 6}}}


# ---- scale ---------------------------------------------------------------------------------
def test_seed_ten_thousand_docs_walkable(emu):
    # Seeding and walking speeds are figures of bench/dingtalk, not asserted here.
    seeded = emu.seed(10_000, fanout=50, ownerId=OPERATOR, otherFiles=6, blocksPerDoc=3)
    assert len(seeded["documentIds"]) == 10_000
    api = Api(emu)
    docs, files, stack, requests_made = set(), 0, [seeded["rootNodeId"]], 0
    while stack and requests_made < 2_000:  # bounded walk
        parent, token = stack.pop(), None
        for _ in range(100):
            params = {"maxResults": 50, **({"nextToken": token} if token else {})}
            body = api.nodes(parent, **params).json()
            requests_made += 1
            for node in body["nodes"]:
                if node["type"] == "FOLDER" or node["hasChildren"]:
                    stack.append(node["nodeId"])
                if node["type"] == "FILE" and node.get("category") == "ALIDOC":
                    docs.add(node["nodeId"])
                elif node["type"] == "FILE":
                    files += 1
            token = body.get("nextToken")
            if not token:
                break
    assert docs == set(seeded["documentIds"]) and files == 6
    sample = api.blocks(seeded["documentIds"][-1]).json()["result"]["data"]
    assert len(sample) == 3 and sample[0]["blockType"] == "heading"
