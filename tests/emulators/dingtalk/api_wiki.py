"""Wiki 2.0 read APIs: ListWorkspaces, GetWorkspace, ListNodes, GetNode (vendor-apis.md §1.2-1.3)."""
from __future__ import annotations

from aiohttp import web

import errors
import render
from api_common import check_app, operator_of, parse_bool, parse_int, store_of
from store import Node, Store

WORKSPACES_MAX = 30  # documented default and cap
NODES_MAX = 50
ORDERS = {
    # No view history is modelled, so "recently viewed" falls back to recently modified.
    "VIEW_TIME_DESC": lambda ws: (-ws.modified_ms, ws.workspace_id),
    "MODIFIED_TIME_DESC": lambda ws: (-ws.modified_ms, ws.workspace_id),
    "CREATE_TIME_DESC": lambda ws: (-ws.create_ms, ws.workspace_id),
}


def _sticky(node: Node, endpoint: str) -> None:
    err = node.sticky_errors.get(endpoint)
    if err:
        raise errors.ApiError(int(err["status"]), err["code"], err.get("message", err["code"]))


def _readable_node(store: Store, app, op, node_id: str, missing_code: str) -> tuple[Node, str]:
    node = store.nodes.get(node_id)
    if node is None:
        raise errors.ApiError(404, missing_code, "节点不存在")
    ws = store.workspaces[node.workspace_id]
    if ws.corp_id != app.corp_id:
        raise errors.across_org()
    role = store.role_of(op.union_id, node)
    if role == "NONE":
        raise errors.permission_denied()
    return node, role


async def list_workspaces(request: web.Request) -> web.Response:
    store, app, q = store_of(request), request["app"], request.query
    check_app(app, "Wiki.Workspace.Read")
    op = operator_of(store, app, q)
    limit = parse_int(q, "maxResults", WORKSPACES_MAX, 1, WORKSPACES_MAX)
    order = q.get("orderBy") or "VIEW_TIME_DESC"
    if order not in ORDERS:
        raise errors.param_error("orderBy is invalid", code="paramError.orderBy")
    with_role = parse_bool(q, "withPermissionRole")
    team_id = q.get("teamId")
    visible = []
    for ws in store.workspaces.values():
        if ws.corp_id != app.corp_id or (team_id and ws.team_id != team_id):
            continue
        role = store.workspace_role(op.union_id, ws)
        if role != "NONE":
            visible.append((ws, role))
    visible.sort(key=lambda pair: ORDERS[order](pair[0]))
    start = 0
    if q.get("nextToken"):
        start = render.decode_token(q["nextToken"], f"ws:{op.union_id}:{order}")
        if start is None:
            raise errors.param_error("nextToken is invalid")
    page = visible[start:start + limit]
    body = {"workspaces": [render.workspace_json(ws, role if with_role else None)
                           for ws, role in page]}
    if start + limit < len(visible):
        body["nextToken"] = render.encode_token(f"ws:{op.union_id}:{order}", start + limit)
    return errors.json_response(body)


async def get_workspace(request: web.Request) -> web.Response:
    store, app, q = store_of(request), request["app"], request.query
    check_app(app, "Wiki.Workspace.Read")
    op = operator_of(store, app, q)
    ws = store.workspaces.get(request.match_info["workspaceId"])
    if ws is None:
        raise errors.ApiError(404, "workspaceNotExist", "知识库不存在")
    if ws.corp_id != app.corp_id:
        raise errors.across_org()
    role = store.workspace_role(op.union_id, ws)
    if role == "NONE":
        raise errors.permission_denied()
    return errors.json_response({"workspace": render.workspace_json(
        ws, role if parse_bool(q, "withPermissionRole") else None)})


async def list_nodes(request: web.Request) -> web.Response:
    store, app, q = store_of(request), request["app"], request.query
    check_app(app, "Wiki.Node.Read")
    op = operator_of(store, app, q)
    parent_id = q.get("parentNodeId")
    if not parent_id:
        raise errors.param_error("parentNodeId is mandatory for this action")
    limit = parse_int(q, "maxResults", NODES_MAX, 1, NODES_MAX)
    with_role = parse_bool(q, "withPermissionRole")
    parent, _ = _readable_node(store, app, op, parent_id, "parentNodeNotExist")
    _sticky(parent, "ListNodes")
    scope = f"nodes:{parent_id}"
    start = 0
    if q.get("nextToken"):
        start = render.decode_token(q["nextToken"], scope)
        if start is None:
            raise errors.param_error("nextToken is invalid")
    # nextToken is an offset into the raw child list; children the operator cannot read
    # are skipped, as DingTalk hides nodes without permission.
    children, page, cursor = parent.children, [], start
    while cursor < len(children) and len(page) < limit:
        child = store.nodes[children[cursor]]
        cursor += 1
        role = store.role_of(op.union_id, child)
        if role != "NONE":
            page.append(render.node_json(child, role if with_role else None))
    more = any(store.role_of(op.union_id, store.nodes[c]) != "NONE" for c in children[cursor:])
    body = {"nodes": page}
    if more:
        body["nextToken"] = render.encode_token(scope, cursor)
    return errors.json_response(body)


async def get_node(request: web.Request) -> web.Response:
    store, app, q = store_of(request), request["app"], request.query
    check_app(app, "Wiki.Node.Read")
    op = operator_of(store, app, q)
    with_role = parse_bool(q, "withPermissionRole")
    with_stats = parse_bool(q, "withStatisticalInfo")
    node, role = _readable_node(store, app, op, request.match_info["nodeId"], "nodeNotExist")
    _sticky(node, "GetNode")
    return errors.json_response({"node": render.node_json(node, role if with_role else None,
                                                          with_stats)})
