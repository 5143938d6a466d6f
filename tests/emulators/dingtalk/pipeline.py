"""The middleware every vendor request passes through, in DingTalk-gateway order:
faults -> access token -> QPS limit -> handler -> hooks; every request is counted and logged.
Control-API requests (/_emulator/...) bypass all of it.
"""
from __future__ import annotations

import asyncio
import time

from aiohttp import web

import control
import errors
from store import StoreError

TOKEN_HEADER = "x-acs-dingtalk-access-token"


def _key_of(endpoint: str, request: web.Request) -> str | None:
    """The resource a request is about, so faults and hooks can target one document."""
    if endpoint == "DocBlocksQuery":
        return request.match_info.get("docKey")
    if endpoint == "GetNode":
        return request.match_info.get("nodeId")
    if endpoint == "GetWorkspace":
        return request.match_info.get("workspaceId")
    if endpoint == "ListNodes":
        return request.query.get("parentNodeId")
    return None


async def _serve(request: web.Request, handler, endpoint: str, key: str | None) -> web.StreamResponse:
    state = request.app["state"]
    fault = state.traffic.take_fault(endpoint, key)
    if fault is not None:
        if fault.kind == "delay":
            await asyncio.sleep(fault.delay_ms / 1000)
        elif fault.kind == "reset":
            request.transport.abort()  # client sees the connection drop with no response
            raise ConnectionResetError("emulated connection reset")
        else:  # "status" or "throttle"
            err = errors.ApiError(fault.status, fault.code, fault.message)
            if fault.retry_after is not None:
                err.headers["Retry-After"] = str(int(fault.retry_after))
            raise err

    app_key = ""
    if endpoint != "GetAccessToken":
        # The SDK (UtilClient.to_jsonstring) sends the raw token string, no "Bearer".
        app = state.store.resolve_token(request.headers.get(TOKEN_HEADER))
        if app is None:
            raise errors.invalid_token()
        request["app"] = app
        app_key = app.app_key

    limit = state.traffic.limits.get(endpoint)
    if limit is not None and not limit.admit(app_key, time.time()):
        raise errors.throttled(limit.code(), limit.status, limit.retry_after)

    response = await handler(request)
    if 200 <= response.status < 300:
        for hook in state.traffic.due_hooks(endpoint, key):
            # Runs before the next request is read: the data changes *between* two requests.
            try:
                control.apply_action(state.store, hook.action, key)
            except StoreError as err:  # e.g. the target was deleted meanwhile; report, not 500
                hook.error = str(err)
    return response


@web.middleware
async def vendor_middleware(request: web.Request, handler):
    route = request.match_info.route
    endpoint = route.name if route is not None else None
    if request.path.startswith("/_emulator/"):
        return await handler(request)
    state = request.app["state"]
    started = time.time()
    if endpoint is None:  # unknown vendor path
        response = errors.error_response(errors.ApiError(
            404, "InvalidAction.NotFound", f"Specified api is not found: {request.method} {request.path}"))
        state.traffic.record("unrouted", 404, request.path, started)
        return response
    key = _key_of(endpoint, request)
    try:
        response = await _serve(request, handler, endpoint, key)
    except errors.ApiError as err:
        response = errors.error_response(err)
    except ConnectionResetError:
        state.traffic.record(endpoint, 0, key, started)  # status 0 = connection reset
        # The transport is already aborted; aiohttp drops this response silently.
        raise web.HTTPInternalServerError() from None
    state.traffic.record(endpoint, response.status, key, started)
    return response
