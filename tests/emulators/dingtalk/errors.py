"""DingTalk's new-style error body: {"code", "requestid", "message"} (+ "accessdenieddetail").

The official gateway reads exactly these lower-case keys (vendor-apis.md §1.0), so the SDK's
TeaException.code is our `code`.
"""
from __future__ import annotations

import json
import uuid

from aiohttp import web

JSON_TYPE = "application/json;charset=utf-8"


def request_id() -> str:
    return str(uuid.uuid4()).upper()


def json_response(body, status: int = 200, headers: dict | None = None) -> web.Response:
    rid = request_id()
    all_headers = {"x-acs-request-id": rid, "x-acs-trace-id": uuid.uuid4().hex,
                   "Content-Type": JSON_TYPE}
    all_headers.update(headers or {})
    return web.Response(body=json.dumps(body, ensure_ascii=False).encode(), status=status,
                        headers=all_headers)


class ApiError(Exception):
    """Raised anywhere in a vendor handler; rendered by `error_response`."""

    def __init__(self, status: int, code: str, message: str, detail: dict | None = None,
                 headers: dict | None = None):
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message = status, code, message
        self.detail, self.headers = detail, headers or {}


def error_response(err: ApiError) -> web.Response:
    rid = request_id()
    body = {"code": err.code, "requestid": rid, "message": err.message}
    if err.detail is not None:
        body["accessdenieddetail"] = err.detail
    headers = {"x-acs-request-id": rid, "x-acs-trace-id": uuid.uuid4().hex,
               "Content-Type": JSON_TYPE, **err.headers}
    return web.Response(body=json.dumps(body, ensure_ascii=False).encode(), status=err.status,
                        headers=headers)


# Canned errors used by several handlers.
def invalid_token() -> ApiError:
    return ApiError(400, "InvalidAuthentication", "不合法的access_token")


def param_error(message: str, code: str = "paramError") -> ApiError:
    return ApiError(400, code, message)


def permission_denied() -> ApiError:
    return ApiError(403, "permissionDenied", "没有权限访问该资源")


def across_org() -> ApiError:
    return ApiError(403, "forbidden.acrossOrg", "请检查要访问的文档是否归属于accessToken指定的组织")


def org_auth_level() -> ApiError:
    return ApiError(403, "orgAuthLevelNotEnough", "auth level of org is not enough")


def scope_denied(scope: str) -> ApiError:
    return ApiError(403, "Forbidden.AccessDenied.AccessTokenPermissionDenied",
                    "没有调用该接口的权限，接口权限申请参考：https://open.dingtalk.com/document/orgapp-server/add-api-permission",
                    detail={"requiredScopes": [scope]})


def throttled(code: str, status: int = 403, retry_after: float | None = None) -> ApiError:
    headers = {"Retry-After": str(int(retry_after))} if retry_after is not None else None
    message = "请求太频繁" if status == 429 else "触发限流，请稍后重试"
    return ApiError(status, code, message, headers=headers)
