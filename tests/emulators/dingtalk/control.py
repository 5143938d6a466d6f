"""Control API under /_emulator/ (JSON in, JSON out). Tests seed data, change it, inject
faults and read counters here; none of it is reachable through the vendor paths.

Errors are {"error": "..."} with 400 (bad input) or 404 (unknown id).
"""
from __future__ import annotations

import json
import math

from aiohttp import web

import blocks as block_fixtures
import render
from store import Store, StoreError
from traffic import Traffic


class State:
    """What `reset` swaps out wholesale."""

    def __init__(self, seed: int = 1):
        self.reset(seed)

    def reset(self, seed: int = 1) -> None:
        # The aiohttp app is frozen once serving, so reset swaps fields, not app["state"].
        self.store = Store(seed)
        self.traffic = Traffic()


def _ok(body=None, status: int = 200) -> web.Response:
    return web.json_response(body if body is not None else {"ok": True}, status=status,
                             dumps=lambda o: json.dumps(o, ensure_ascii=False))


async def _body(request: web.Request) -> dict:
    raw = await request.read()
    if not raw:
        return {}
    body = json.loads(raw)
    if not isinstance(body, dict):
        raise StoreError("body must be a JSON object")
    return body


@web.middleware
async def control_errors(request: web.Request, handler):
    """Turn bad control input into a readable 4xx instead of aiohttp's 500 page."""
    if not request.path.startswith("/_emulator/"):
        return await handler(request)
    try:
        return await handler(request)
    except StoreError as err:
        return _ok({"error": str(err)}, err.status)
    except (ValueError, KeyError, TypeError) as err:
        return _ok({"error": f"{type(err).__name__}: {err}"}, 400)


def node_view(store: Store, node, with_blocks: bool = True) -> dict:
    out = render.node_json(node)
    out["parentNodeId"] = node.parent_id
    out["stickyErrors"] = node.sticky_errors
    if with_blocks and node.blocks is not None:
        out["blocks"] = node.blocks
    return out


def apply_action(store: Store, action: dict, key: str | None) -> None:
    """Hook actions: {"edit": {...}} | {"delete": {}} | {"move": {"parentNodeId"}} |
    {"permission": {"unionId", "role"}}; the target is action["nodeId"] or the hook's key."""
    node_id = action.get("nodeId") or key
    if "edit" in action:
        edit = action["edit"]
        store.edit_node(node_id, name=edit.get("name", edit.get("title")),
                        blocks=edit.get("blocks"), modified_ms=edit.get("modifiedTimestamp"),
                        modifier_id=edit.get("modifierId"))
    if "move" in action:
        store.move_node(node_id, action["move"]["parentNodeId"])
    if "permission" in action:
        store.set_permission(node_id, action["permission"]["unionId"],
                             action["permission"].get("role"))
    if "delete" in action:
        store.delete_node(node_id)


# ---- handlers ----------------------------------------------------------------------------
async def reset(request):
    body = await _body(request)
    request.app["state"].reset(int(body.get("seed", 1)))
    return _ok()


async def state_summary(request):
    state = request.app["state"]
    store = state.store
    docs = sum(1 for n in store.nodes.values() if n.is_alidoc)
    return _ok({"apps": len(store.apps), "operators": len(store.operators),
                "workspaces": len(store.workspaces), "nodes": len(store.nodes),
                "documents": docs, "tokenLifetimeSeconds": store.token_lifetime_s,
                **state.traffic.state_json()})


async def create_app(request):
    b = await _body(request)
    app = request.app["state"].store.create_app(b.get("appKey"), b.get("appSecret"),
                                                b.get("corpId"), b.get("scopes"),
                                                b.get("orgAuthLevelOk", True))
    return _ok({"appKey": app.app_key, "corpId": app.corp_id, "scopes": sorted(app.scopes)})


async def create_operators(request):
    b = await _body(request)
    store = request.app["state"].store
    specs = b.get("operators") if "operators" in b else [b]
    ops = [store.create_operator(s.get("unionId"), s.get("name"), s.get("corpId")) for s in specs]
    return _ok({"operators": [{"unionId": o.union_id, "name": o.name, "corpId": o.corp_id}
                              for o in ops]})


async def create_workspace(request):
    b = await _body(request)
    ws = request.app["state"].store.create_workspace(
        b.get("name", "workspace"), b.get("ownerId"), b.get("corpId"), b.get("members"),
        b.get("workspaceId"), b.get("type", "TEAM"), b.get("teamId", ""), b.get("description", ""))
    return _ok({"workspaceId": ws.workspace_id, "rootNodeId": ws.root_node_id,
                "corpId": ws.corp_id})


async def create_node(request):
    b = await _body(request)
    store = request.app["state"].store
    node = store.create_node(b["parentNodeId"], b.get("kind", "document"), b.get("name", "untitled"),
                             blocks=b.get("blocks"), category=b.get("category"),
                             extension=b.get("extension"), size=b.get("size"),
                             node_id=b.get("nodeId"), creator_id=b.get("creatorId", ""),
                             modified_ms=b.get("modifiedTimestamp"))
    return _ok(node_view(store, node, with_blocks=False))


async def get_node(request):
    store = request.app["state"].store
    node_id = request.match_info["nodeId"]
    if node_id in store.deleted_node_ids and node_id not in store.nodes:
        return _ok({"nodeId": node_id, "deleted": True})
    return _ok(node_view(store, store.get_live_node(node_id)))


async def node_action(request):
    """POST /_emulator/nodes/{nodeId}/{edit|move|delete|error}."""
    b = await _body(request)
    store = request.app["state"].store
    node_id, verb = request.match_info["nodeId"], request.match_info["verb"]
    if verb == "edit":
        apply_action(store, {"edit": b}, node_id)
    elif verb == "move":
        apply_action(store, {"move": b}, node_id)
    elif verb == "delete":
        return _ok({"deleted": store.delete_node(node_id)})
    elif verb == "error":
        node = store.get_live_node(node_id)
        if b.get("clear"):
            node.sticky_errors.pop(b["endpoint"], None)
        else:
            node.sticky_errors[b["endpoint"]] = {"status": int(b["status"]), "code": b["code"],
                                                 "message": b.get("message", b["code"])}
    else:
        raise StoreError(f"unknown node action {verb}", 404)
    return _ok(node_view(store, store.get_live_node(node_id), with_blocks=False))


async def set_permission(request):
    b = await _body(request)
    request.app["state"].store.set_permission(b["targetId"], b["unionId"], b.get("role"))
    return _ok()


async def set_token_lifetime(request):
    b = await _body(request)
    seconds = float(b["lifetimeSeconds"])
    if seconds <= 0:
        raise StoreError("lifetimeSeconds must be > 0")
    request.app["state"].store.token_lifetime_s = seconds
    return _ok()


async def expire_tokens(request):
    b = await _body(request)
    return _ok({"expired": request.app["state"].store.expire_tokens(b.get("appKey"))})


async def set_limit(request):
    b = await _body(request)
    request.app["state"].traffic.set_limit(b["endpoint"], b.get("qps"), b.get("scope", "app"),
                                           int(b.get("status", 403)), b.get("retryAfter"),
                                           bool(b.get("perMinute", False)))
    return _ok()


async def add_fault(request):
    fault = request.app["state"].traffic.add_fault(await _body(request))
    return _ok({"endpoint": fault.endpoint, "kind": fault.kind, "count": fault.remaining})


async def clear_faults(request):
    request.app["state"].traffic.faults.clear()
    return _ok()


async def add_hook(request):
    hook = request.app["state"].traffic.add_hook(await _body(request))
    return _ok({"endpoint": hook.endpoint, "key": hook.key})


async def counters(request):
    return _ok(request.app["state"].traffic.counters)


async def request_log(request):
    return _ok(request.app["state"].traffic.log_json(request.query.get("endpoint")))


async def clear_requests(request):
    request.app["state"].traffic.clear_log()
    return _ok()


async def seed(request):
    """Bulk-create `documents` ALIDOC docs under a parent in a tree with at most `fanout`
    children per container (folders are added only as needed), plus `otherFiles`
    non-document files spread over the non-ALIDOC categories."""
    b = await _body(request)
    store = request.app["state"].store
    n_docs, fanout = int(b.get("documents", 0)), int(b.get("fanout", 50))
    if fanout < 2 or n_docs < 0 or n_docs > 1_000_000:
        raise StoreError("fanout must be >= 2 and 0 <= documents <= 1000000")
    blocks_per_doc = int(b.get("blocksPerDoc", 3))
    if b.get("workspaceId"):
        ws = store.workspaces.get(b["workspaceId"])
        if ws is None:
            raise StoreError("unknown workspaceId", 404)
    else:
        ws = store.create_workspace(b.get("name", "seeded"), b.get("ownerId"), b.get("corpId"),
                                    b.get("members"))
    parent_id = b.get("parentNodeId") or ws.root_node_id
    creator = b.get("ownerId") or ""
    doc_ids, folder_ids, file_ids = [], [], []

    def fill(parent: str, count: int, depth: int) -> None:
        if count <= fanout or depth >= 64:
            for _ in range(count):
                title = f"Doc {len(doc_ids) + 1}"
                node = store.create_node(parent, "document", title, creator_id=creator,
                                         blocks=block_fixtures.generated_blocks(title, blocks_per_doc))
                doc_ids.append(node.node_id)
            return
        n_folders = min(fanout, math.ceil(count / fanout))
        share, extra = divmod(count, n_folders)
        for i in range(n_folders):
            folder = store.create_node(parent, "folder", f"Folder {len(folder_ids) + 1}",
                                       creator_id=creator)
            folder_ids.append(folder.node_id)
            fill(folder.node_id, share + (1 if i < extra else 0), depth + 1)

    fill(parent_id, n_docs, 0)
    categories = ["DOCUMENT", "IMAGE", "VIDEO", "AUDIO", "ARCHIVE", "OTHER"]
    for i in range(int(b.get("otherFiles", 0))):
        node = store.create_node(parent_id, "file", f"File {i + 1}",
                                 category=categories[i % len(categories)], creator_id=creator)
        file_ids.append(node.node_id)
    return _ok({"workspaceId": ws.workspace_id, "rootNodeId": ws.root_node_id,
                "documentIds": doc_ids, "folderIds": folder_ids, "fileIds": file_ids})


def add_routes(app: web.Application) -> None:
    r = app.router
    r.add_post("/_emulator/reset", reset)
    r.add_get("/_emulator/state", state_summary)
    r.add_post("/_emulator/apps", create_app)
    r.add_post("/_emulator/operators", create_operators)
    r.add_post("/_emulator/workspaces", create_workspace)
    r.add_post("/_emulator/nodes", create_node)
    r.add_get("/_emulator/nodes/{nodeId}", get_node)
    r.add_post("/_emulator/nodes/{nodeId}/{verb}", node_action)
    r.add_post("/_emulator/permissions", set_permission)
    r.add_post("/_emulator/tokens", set_token_lifetime)
    r.add_post("/_emulator/tokens/expire", expire_tokens)
    r.add_post("/_emulator/limits", set_limit)
    r.add_post("/_emulator/faults", add_fault)
    r.add_delete("/_emulator/faults", clear_faults)
    r.add_post("/_emulator/hooks", add_hook)
    r.add_get("/_emulator/counters", counters)
    r.add_get("/_emulator/requests", request_log)
    r.add_post("/_emulator/requests/clear", clear_requests)
    r.add_post("/_emulator/seed", seed)
