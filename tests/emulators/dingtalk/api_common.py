"""Parameter parsing and the checks every business API shares (scope, org level, operator)."""
from __future__ import annotations

from aiohttp import web

import errors
from store import App, Operator, Store


def store_of(request: web.Request) -> Store:
    return request.app["state"].store


def parse_bool(query, name: str, default: bool = False) -> bool:
    raw = query.get(name)
    if raw is None or raw == "":
        return default
    # The Java/Go SDKs send true/false; the Python SDK sends str(bool) = True/False.
    lowered = raw.lower()
    if lowered not in ("true", "false"):
        raise errors.param_error(f"{name} must be true or false")
    return lowered == "true"


def parse_int(query, name: str, default: int | None, lo: int, hi: int | None = None) -> int | None:
    raw = query.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise errors.param_error(f"{name} must be an integer") from None
    if value < lo or (hi is not None and value > hi):
        bound = f"between {lo} and {hi}" if hi is not None else f">= {lo}"
        raise errors.param_error(f"{name} must be {bound}")
    return value


def check_app(app: App, scope: str) -> None:
    if scope not in app.scopes:
        raise errors.scope_denied(scope)
    if not app.org_auth_level_ok:
        raise errors.org_auth_level()


def operator_of(store: Store, app: App, query) -> Operator:
    union_id = query.get("operatorId")
    if not union_id:
        raise errors.param_error("operatorId is mandatory for this action")
    op = store.operators.get(union_id)
    if op is None or op.corp_id != app.corp_id:
        raise errors.param_error("operatorId is invalid")
    return op
