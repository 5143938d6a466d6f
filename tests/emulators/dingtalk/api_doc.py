"""GET /v1.0/doc/suites/documents/{docKey}/blocks (DocBlocksQuery, vendor-apis.md §1.4).

Only first-level blocks are returned, windowed by inclusive startIndex..endIndex; there is no
cursor, so a client stops when fewer blocks than requested come back.
"""
from __future__ import annotations

from aiohttp import web

import errors
from api_common import check_app, operator_of, parse_int, store_of
from store import LEGAL_ID

BLOCK_TYPES = ("paragraph", "heading", "blockquote", "callout", "columns", "orderedList",
               "unorderedList", "table", "tableRow", "tableCell", "unknown")


def _illegal_key() -> errors.ApiError:
    return errors.ApiError(400, "invalidRequest.inputArgs.invalid", "doc key is illegal")


async def doc_blocks_query(request: web.Request) -> web.Response:
    store, app, q = store_of(request), request["app"], request.query
    check_app(app, "Storage.File.Read")
    op = operator_of(store, app, q)
    doc_key = request.match_info["docKey"]
    if not LEGAL_ID.match(doc_key):
        raise _illegal_key()
    start = parse_int(q, "startIndex", 0, 0)
    end = parse_int(q, "endIndex", None, 0)
    if end is not None and end < start:
        raise errors.param_error("endIndex must not be less than startIndex")
    block_type = q.get("blockType") or None
    if block_type is not None and block_type not in BLOCK_TYPES:
        raise errors.param_error("blockType is invalid")

    node = store.nodes.get(doc_key)
    if node is None:
        if doc_key in store.deleted_node_ids:
            raise errors.ApiError(404, "invalidRequest.document.deleted", "文档已删除")
        raise errors.ApiError(404, "docNotExist", "文档不存在")
    if store.workspaces[node.workspace_id].corp_id != app.corp_id:
        raise errors.across_org()
    if store.role_of(op.union_id, node) == "NONE":
        raise errors.ApiError(403, "forbidden.accessDenied", "没有权限访问该文档")
    sticky = node.sticky_errors.get("DocBlocksQuery")
    if sticky:
        raise errors.ApiError(int(sticky["status"]), sticky["code"],
                              sticky.get("message", sticky["code"]))
    if node.blocks is None or node.extension != "adoc":
        raise _illegal_key()  # folders, uploads and non-document online files have no blocks

    selected = node.blocks
    if block_type is not None:
        selected = [b for b in selected if b.get("blockType") == block_type]
    window = selected[start:] if end is None else selected[start:end + 1]
    return errors.json_response({"success": True, "result": {"data": window}})
