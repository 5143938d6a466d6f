"""POST /v1.0/oauth2/accessToken (vendor-apis.md §1.1)."""
from __future__ import annotations

import json

from aiohttp import web

import errors
from api_common import store_of


async def get_access_token(request: web.Request) -> web.Response:
    raw = await request.read()
    try:
        body = json.loads(raw) if raw else None
    except (ValueError, UnicodeDecodeError):
        body = None
    if not isinstance(body, dict):  # form bodies and empty bodies are refused by DingTalk
        raise errors.ApiError(400, "Missingbody", "body is mandatory for this action")
    token = store_of(request).issue_token(str(body.get("appKey") or ""),
                                          str(body.get("appSecret") or ""))
    if token is None:
        raise errors.ApiError(400, "invalidClientIdOrSecret", "无效的clientId或者clientSecret")
    store = store_of(request)
    return errors.json_response({"accessToken": token.value,
                                 "expireIn": int(round(store.token_lifetime_s))})
