"""Vendor JSON shapes for workspaces and nodes (vendor-apis.md §1.2, §1.3), plus opaque
nextToken encoding shared by the paginated list APIs."""
from __future__ import annotations

import base64

import blocks as block_fixtures
from store import Node, Workspace, format_minute

DOC_HOST = "https://alidocs.dingtalk.com"


def workspace_json(ws: Workspace, role: str | None) -> dict:
    out = {
        "workspaceId": ws.workspace_id,
        "corpId": ws.corp_id,
        "teamId": ws.team_id,
        "rootNodeId": ws.root_node_id,
        "name": ws.name,
        "type": ws.type,
        "description": ws.description,
        "url": f"{DOC_HOST}/i/spaces/{ws.workspace_id}/overview",
        "icon": {"type": "URL", "value": f"{DOC_HOST}/icons/{ws.workspace_id}.png"},
        "cover": "",
        "creatorId": ws.creator_id,
        "modifierId": ws.creator_id,
        "createTime": format_minute(ws.create_ms),
        "modifiedTime": format_minute(ws.modified_ms),
    }
    if role is not None:
        out["permissionRole"] = role
    return out


def node_json(node: Node, role: str | None = None, with_stats: bool = False) -> dict:
    out = {
        "nodeId": node.node_id,
        "workspaceId": node.workspace_id,
        "name": node.name,
        "size": node.size,
        "type": node.type,
        "url": f"{DOC_HOST}/i/nodes/{node.node_id}",
        "creatorId": node.creator_id,
        "modifierId": node.modifier_id,
        "createTime": format_minute(node.create_ms),
        "modifiedTime": format_minute(node.modified_ms),
        "hasChildren": bool(node.children),
        "createTimestamp": node.create_ms,
        "modifiedTimestamp": node.modified_ms,
    }
    if node.type == "FILE":  # folders carry no category/extension
        out["category"] = node.category
        out["extension"] = node.extension
    if with_stats and node.blocks is not None:
        out["statisticalInfo"] = {"wordCount": block_fixtures.word_count(node.blocks)}
    if role is not None:
        out["permissionRole"] = role
    return out


def encode_token(scope: str, offset: int) -> str:
    return base64.urlsafe_b64encode(f"v1|{scope}|{offset}".encode()).decode().rstrip("=")


def decode_token(token: str, scope: str) -> int | None:
    """Offset encoded in `token`, or None when the token is malformed or for another list."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
        version, token_scope, offset = raw.split("|")
        if version != "v1" or token_scope != scope or int(offset) < 0:
            return None
        return int(offset)
    except (ValueError, UnicodeDecodeError):
        return None
