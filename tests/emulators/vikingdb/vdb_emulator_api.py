"""Test-only control API under /_emulator/ (JSON in, JSON out, no auth).

Never reachable through the vendor paths. See README.md for the endpoint list.
"""
from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from vdb_errors import ApiError, invalid
from vdb_faults import parse_fault

CONFIG_KEYS = {"max_rows_per_upsert", "max_ids_per_request", "max_rows_per_vectorize_upsert",
               "string_max_bytes", "max_collections"}


def _json(obj: Any, status: int = 200) -> web.Response:
    return web.Response(text=json.dumps(obj, ensure_ascii=False), status=status,
                        content_type="application/json")


def _config(state) -> dict:
    out = {k: getattr(state.store.limits, k) for k in sorted(CONFIG_KEYS)}
    out["max_clock_skew_seconds"] = state.credentials.max_clock_skew_seconds
    out["clock_offset_seconds"] = state.credentials.clock_offset_seconds
    out["reject_delete_with_indexes"] = state.store.reject_delete_with_indexes
    return out


def _set_config(state, body: dict) -> dict:
    for k, v in body.items():
        if k in CONFIG_KEYS:
            if type(v) is not int or v < 1:
                raise invalid(f"{k} must be a positive integer")
            setattr(state.store.limits, k, v)
        elif k == "max_clock_skew_seconds":
            if v is not None and (not isinstance(v, (int, float)) or v < 0):
                raise invalid("max_clock_skew_seconds must be >= 0 or null")
            state.credentials.max_clock_skew_seconds = v
        elif k == "clock_offset_seconds":
            if type(v) not in (int, float):
                raise invalid("clock_offset_seconds must be a number")
            state.credentials.clock_offset_seconds = float(v)
        elif k == "reject_delete_with_indexes":
            state.store.reject_delete_with_indexes = bool(v)
        else:
            raise invalid(f"unknown config key '{k}'")
    return _config(state)


def _set_credentials(state, body: dict) -> dict:
    creds = state.credentials
    if "api_keys" in body:
        keys = body["api_keys"]
        if not isinstance(keys, list) or any(not isinstance(k, str) or not k for k in keys):
            raise invalid("api_keys must be a list of non-empty strings")
        creds.api_keys = set(keys)
    if "access_keys" in body:
        aks = body["access_keys"]
        if not isinstance(aks, dict) or any(not isinstance(v, str) or not v for v in aks.values()):
            raise invalid("access_keys must map AK -> SK")
        creds.access_keys = dict(aks)
    return _credentials(state)


def _credentials(state) -> dict:
    return {"api_keys": sorted(state.credentials.api_keys),
            "access_keys": dict(state.credentials.access_keys)}


def _dump_rows(coll, query) -> dict:
    with_vectors = query.get("vectors", "0") in ("1", "true")
    offset = int(query.get("offset", 0))
    limit = int(query.get("limit", len(coll.rows)))
    coll.purge_expired()
    rows = []
    for pk in list(coll.rows)[offset:offset + limit]:
        item = {"id": pk, "fields": coll.full_fields(coll.rows[pk])}
        if with_vectors:
            if pk in coll.vectors:
                item["vector"] = coll.vectors[pk]
            if pk in coll.sparse:
                item["sparse_vector"] = coll.sparse[pk]
        if pk in coll.expires:
            item["expires_at"] = coll.expires[pk]
        rows.append(item)
    return {"count": len(coll.rows), "rows": rows}


async def handle(state, request: web.Request) -> web.Response:
    try:
        return await _route(state, request)
    except ApiError as e:
        return _json({"error": e.code, "message": e.message}, e.status)
    except (ValueError, json.JSONDecodeError) as e:
        return _json({"error": "InvalidParameter", "message": str(e)}, 400)


async def _route(state, request: web.Request) -> web.Response:
    parts = [p for p in request.path[len("/_emulator/"):].split("/") if p]
    method = request.method
    body: Any = {}
    if method in ("POST", "PUT") and request.can_read_body:
        raw = await request.read()
        body = json.loads(raw) if raw.strip() else {}
        if not isinstance(body, dict):
            raise invalid("body must be a JSON object")
    q = request.query
    store = state.store

    if parts == ["reset"] and method == "POST":
        state.reset(credentials=bool(body.get("credentials")))
        return _json({"ok": True})
    if parts == ["credentials"]:
        return _json(_set_credentials(state, body) if method in ("POST", "PUT") else _credentials(state))
    if parts == ["config"]:
        return _json(_set_config(state, body) if method in ("POST", "PUT") else _config(state))
    if parts == ["counters"] and method == "GET":
        return _json(state.counters.to_json())
    if parts == ["counters", "reset"] and method == "POST":
        state.counters.reset()
        state.connections.reset()
        return _json({"ok": True})
    if parts == ["connections"] and method == "GET":
        return _json(state.connections.to_json())
    if parts == ["faults"]:
        if method == "POST":
            raw_faults = body.get("faults", [body])
            faults = [parse_fault(f) for f in raw_faults]
            state.faults.queue.extend(faults)
            return _json({"queued": len(faults), "pending": len(state.faults.queue)})
        if method == "DELETE":
            state.faults.queue.clear()
            return _json({"ok": True})
        return _json({"faults": [f.to_json() for f in state.faults.queue]})
    if parts == ["throttle"]:
        if method == "DELETE":
            state.faults.buckets.clear()
        elif method == "POST":
            state.faults.set_throttle(body.get("match", "*"), body.get("qps"), body.get("burst"))
        return _json({"throttles": {k: {"qps": b.qps, "burst": b.burst}
                                    for k, b in state.faults.buckets.items()}})
    if parts and parts[0] == "collections":
        if len(parts) == 1:
            if method == "POST":
                coll = store.create(body.get("ProjectName"), body.get("CollectionName"),
                                    body.get("Description"), body.get("Fields"), body.get("Vectorize"))
                for idx in body.get("Indexes") or []:
                    store.add_index(coll, idx.get("IndexName"), idx.get("Distance"),
                                    idx.get("IndexType"), idx.get("Description"))
                return _json({"ResourceId": coll.resource_id, "ProjectName": coll.project,
                              "CollectionName": coll.name})
            return _json({"collections": [
                {"ProjectName": c.project, "CollectionName": c.name, "ResourceId": c.resource_id,
                 "rows": len(c.rows), "IndexNames": sorted(c.indexes)}
                for c in store.collections.values()]})
        coll = store.lookup(q.get("project_name"), parts[1], None)
        rest = parts[2:]
        if not rest:
            if method == "DELETE":
                store.drop(coll)
                return _json({"ok": True})
            return _json(coll.to_api())
        if rest == ["rows"] and method == "GET":
            return _json(_dump_rows(coll, q))
        if rest == ["indexes"] and method == "POST":
            idx = store.add_index(coll, body.get("IndexName"), body.get("Distance"),
                                  body.get("IndexType"), body.get("Description"))
            return _json(idx.to_api(coll))
    return _json({"error": "NotFound", "message": f"no emulator endpoint {method} {request.path}"}, 404)
