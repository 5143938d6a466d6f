"""Data-plane (V2) request handlers: upsert, delete, fetch, search.

Each handler takes the store, the parsed JSON body and a per-request `ctx` dict
(where it reports rows touched for the counters) and returns the envelope's
`result`, or raises ApiError. Validation of a whole batch happens before any
row is applied: "any 4xx fails the whole batch" (§5.3).
"""
from __future__ import annotations

import time
from typing import Any

import vdb_search as search_mod
import vdb_vectorize as vectorize
from vdb_errors import ApiError, index_not_found, invalid, missing
from vdb_schema import decode_vector
from vdb_store import Collection, Store


def _collection(store: Store, body: dict) -> Collection:
    return store.lookup(body.get("project_name"), body.get("collection_name"),
                        body.get("resource_id"))


def _bool_param(body: dict, name: str) -> bool:
    v = body.get(name, False)
    if v is None:
        return False
    if type(v) is not bool:
        raise invalid(f"'{name}' must be a boolean")
    return v


def _int_param(body: dict, name: str, default: int, lo: int, hi: int) -> int:
    v = body.get(name)
    if v is None:
        return default
    if type(v) is not int or not lo <= v <= hi:
        raise invalid(f"'{name}' must be an integer in {lo}..{hi}")
    return v


def _check_pk(coll: Collection, pk: Any) -> Any:
    if coll.schema.pk_type == "int64":
        if type(pk) is not int:
            raise invalid(f"primary key '{coll.schema.primary_key}' must be int64, got {pk!r}")
        if pk == 0:
            raise invalid("primary key must not be 0")
    else:
        if type(pk) is not str or not pk:
            raise invalid(f"primary key '{coll.schema.primary_key}' must be a non-empty string, got {pk!r}")
    return pk


def _validate_row(coll: Collection, row: Any, ignore_unknown: bool) -> dict:
    if type(row) is not dict:
        raise invalid("each item of 'data' must be an object")
    checkers = coll.schema.checkers
    clean = row
    for k, v in row.items():
        check = checkers.get(k)
        if check is None or v is None:
            clean = None        # rare: rebuild without unknown/null fields below
            break
        nv = check(v)
        if nv is not v:
            row[k] = nv         # value replacement only; safe while iterating
    if clean is None:
        clean = {}
        for k, v in row.items():
            check = checkers.get(k)
            if check is None:
                if ignore_unknown:
                    continue
                raise invalid(f"unknown field '{k}' is not in the collection schema")
            if v is not None:   # null = absent: default or "missing" error
                clean[k] = check(v)
    for name in coll.schema.required:
        if name not in clean:
            if name == coll.schema.primary_key:
                raise invalid(f"missing primary key '{name}'")
            raise invalid(f"missing required field '{name}' (it has no default value)")
    return clean


def upsert(store: Store, body: dict, ctx: dict) -> Any:
    coll = _collection(store, body)
    data = body.get("data")
    if data is None:
        raise missing("data")
    if type(data) is not list or not data:
        raise invalid("'data' must be a non-empty list")
    schema = coll.schema
    vz = schema.vectorize
    limit = store.limits.max_rows_per_vectorize_upsert if vz else store.limits.max_rows_per_upsert
    if len(data) > limit:
        why = " for a collection with Vectorize" if vz else ""
        raise invalid(f"'data' holds {len(data)} rows; at most {limit} per request{why}")
    is_async = _bool_param(body, "async")
    if is_async and vz:
        raise invalid("'async' is not allowed for a collection with Vectorize")
    ttl = _int_param(body, "ttl", 0, 0, 1 << 62)
    ignore_unknown = _bool_param(body, "ignore_unknown_fields")

    rows = [_validate_row(coll, r, ignore_unknown) for r in data]
    pk_name = schema.primary_key
    if not schema.auto_id:
        for r in rows:
            _check_pk(coll, r[pk_name])

    result = None
    extra_vectors: list = []
    if vz:
        result, extra_vectors = _vectorize_rows(coll, rows)

    expire_at = time.time() + ttl if ttl > 0 else None
    vf = schema.vector_field.name if schema.vector_field else None
    coll_rows, coll_vectors, expires = coll.rows, coll.vectors, coll.expires
    for i, r in enumerate(rows):
        if schema.auto_id and pk_name not in r:
            r[pk_name] = next(coll.next_auto_id)
        pk = r[pk_name]
        coll_rows[pk] = r
        if vf is not None:
            coll_vectors[pk] = r[vf]
        elif extra_vectors:
            dense, sparse = extra_vectors[i]
            if dense is not None:
                coll_vectors[pk] = dense
            if sparse is not None:
                coll.sparse[pk] = sparse
        if expire_at is not None:
            expires[pk] = expire_at
        elif expires:
            expires.pop(pk, None)
    ctx["rows"] = len(rows)
    ctx["async"] = is_async
    return result


def _vectorize_rows(coll: Collection, rows: list[dict]) -> tuple[dict, list]:
    vz = coll.schema.vectorize
    usage: dict = {}
    out = []
    for r in rows:
        dense = sparse = None
        for kind in ("Dense", "Sparse"):
            cfg = vz.get(kind)
            if not cfg:
                continue
            src = cfg.get("TextField") or cfg.get("ImageField") or cfg.get("VideoField")
            value = r.get(src)
            text = value if isinstance(value, str) else (value or {}).get("value", "")
            n_tokens = len(vectorize.tokens(text))
            if kind == "Dense":
                dense = vectorize.dense_embedding(text, cfg["Dim"])
            else:
                sparse = vectorize.sparse_embedding(text)
            for key, u in vectorize.token_usage(cfg["ModelName"], cfg["ModelVersion"], n_tokens).items():
                acc = usage.setdefault(key, {k: 0 for k in u})
                for k, n in u.items():
                    acc[k] += n
        out.append((dense, sparse))
    return {"token_usage": usage}, out


def _ids(store: Store, coll: Collection, body: dict) -> list:
    ids = body.get("ids")
    if ids is None:
        raise missing("ids")
    if type(ids) is not list or not ids:
        raise invalid("'ids' must be a non-empty list")
    if len(ids) > store.limits.max_ids_per_request:
        raise invalid(f"'ids' holds {len(ids)} items; at most {store.limits.max_ids_per_request} per request")
    return [_check_pk(coll, pk) for pk in ids]


def delete(store: Store, body: dict, ctx: dict) -> Any:
    coll = _collection(store, body)
    _bool_param(body, "async")
    if _bool_param(body, "del_all"):
        ctx["rows"] = len(coll.rows)
        coll.clear()
        return None
    ids = _ids(store, coll, body)
    ctx["rows"] = sum(1 for pk in ids if coll.remove(pk))
    return None


def _live_row(coll: Collection, pk: Any) -> dict | None:
    exp = coll.expires.get(pk)
    if exp is not None and exp <= time.time():
        coll.remove(pk)
        return None
    return coll.rows.get(pk)


def _output(coll: Collection, row: dict, output_fields: Any) -> dict:
    full = coll.full_fields(row)
    if output_fields is None:
        return full
    return {k: full[k] for k in output_fields if k in full}


def _output_fields(coll: Collection, body: dict) -> list | None:
    of = body.get("output_fields")
    if of is None:
        return None
    if type(of) is not list or any(type(x) is not str for x in of):
        raise invalid("'output_fields' must be a list of field names")
    unknown = [x for x in of if x not in coll.schema.checkers]
    if unknown:
        raise invalid(f"unknown output_fields {unknown}")
    return of


def fetch_in_collection(store: Store, body: dict, ctx: dict) -> Any:
    coll = _collection(store, body)
    ids = _ids(store, coll, body)
    found, not_found = [], []
    for pk in ids:
        row = _live_row(coll, pk)
        if row is None:
            not_found.append(pk)
        else:
            found.append({"id": pk, "fields": coll.full_fields(row)})
    ctx["rows"] = len(found)
    return {"fetch": found, "ids_not_exist": not_found}


def _index(coll: Collection, body: dict):
    name = body.get("index_name")
    if not name:
        raise missing("index_name")
    idx = coll.indexes.get(name)
    if idx is None:
        raise index_not_found(str(name))
    return idx


def fetch_in_index(store: Store, body: dict, ctx: dict) -> Any:
    coll = _collection(store, body)
    _index(coll, body)
    ids = _ids(store, coll, body)
    of = _output_fields(coll, body)
    found, not_found = [], []
    for pk in ids:
        row = _live_row(coll, pk)
        if row is None:
            not_found.append(pk)
            continue
        item = {"id": pk, "fields": _output(coll, row, of)}
        vec = coll.vectors.get(pk)
        if vec is not None:
            item["dense_vector"] = vec
            item["dense_dim"] = len(vec)
        if pk in coll.sparse:
            item["sparse_vector"] = coll.sparse[pk]
        found.append(item)
    ctx["rows"] = len(found)
    return {"fetch": found, "ids_not_exist": not_found}


def _search_common(coll: Collection, body: dict):
    limit = _int_param(body, "limit", 10, 1, 100000)
    offset = _int_param(body, "offset", 0, 0, 100000)
    row_ok = search_mod.compile_filter(body.get("filter"))
    advance = body.get("advance") or {}
    if not isinstance(advance, dict):
        raise invalid("'advance' must be an object")
    ids_in = set(advance["ids_in"]) if advance.get("ids_in") else None
    ids_not_in = set(advance.get("ids_not_in") or [])
    return limit, offset, row_ok, ids_in, ids_not_in, _output_fields(coll, body)


def _vector_search(coll: Collection, body: dict, query: list, ctx: dict,
                   exclude: Any = None) -> dict:
    idx = _index(coll, body)
    limit, offset, row_ok, ids_in, ids_not_in, of = _search_common(coll, body)
    coll.purge_expired()
    has_filter = bool(body.get("filter"))
    candidates = []
    for pk, vec in coll.vectors.items():
        if pk == exclude or pk in ids_not_in or (ids_in is not None and pk not in ids_in):
            continue
        if has_filter and not row_ok(coll.full_fields(coll.rows[pk])):
            continue
        candidates.append((pk, vec))
    ranked = search_mod.rank(candidates, idx.distance, query, limit, offset)
    data = [{"id": pk, "fields": _output(coll, coll.rows[pk], of), "score": s, "ann_score": s}
            for pk, s in ranked]
    ctx["rows"] = len(data)
    result = {"data": data, "total_return_count": len(data)}
    if has_filter:
        result["filter_matched_count"] = len(candidates)
    return result


def search_by_vector(store: Store, body: dict, ctx: dict) -> Any:
    coll = _collection(store, body)
    query = body.get("dense_vector")
    if query is None:
        raise missing("dense_vector")
    dim = coll.schema.dense_dim
    if dim is None:
        raise invalid("the collection has no dense vector to search")
    query = decode_vector("dense_vector", dim, query)
    return _vector_search(coll, body, query, ctx)


def search_by_id(store: Store, body: dict, ctx: dict) -> Any:
    coll = _collection(store, body)
    if body.get("id") is None:
        raise missing("id")
    pk = _check_pk(coll, body["id"])
    if _live_row(coll, pk) is None or pk not in coll.vectors:
        raise ApiError(404, "NotFound.VikingdbData", f"The specified data '{pk}' does not exist.")
    return _vector_search(coll, body, coll.vectors[pk], ctx)


def search_by_multi_modal(store: Store, body: dict, ctx: dict) -> Any:
    coll = _collection(store, body)
    dense = (coll.schema.vectorize or {}).get("Dense")
    if not dense:
        raise invalid("search by multi_modal needs a collection with Vectorize.Dense")
    text = body.get("text")
    if not isinstance(text, str) or not text:
        raise missing("text")
    result = _vector_search(coll, body, vectorize.dense_embedding(text, dense["Dim"]), ctx)
    result["token_usage"] = vectorize.token_usage(dense["ModelName"], dense["ModelVersion"],
                                                  len(vectorize.tokens(text)))
    return result


def search_by_scalar(store: Store, body: dict, ctx: dict) -> Any:
    coll = _collection(store, body)
    _index(coll, body)
    name = body.get("field")
    if not name:
        raise missing("field")
    ftype = next((f.type for f in coll.schema.fields if f.name == name), None)
    if ftype not in ("int64", "float32"):
        raise invalid(f"search by scalar needs an int64/float32 field, '{name}' is {ftype}")
    order = body.get("order", "desc")
    if order not in ("asc", "desc"):
        raise invalid("'order' must be asc or desc")
    limit, offset, row_ok, ids_in, ids_not_in, of = _search_common(coll, body)
    coll.purge_expired()
    rows = []
    for pk, row in coll.rows.items():
        if pk in ids_not_in or (ids_in is not None and pk not in ids_in):
            continue
        full = coll.full_fields(row)
        if row_ok(full):
            rows.append((pk, full[name]))
    rows.sort(key=lambda t: t[1], reverse=(order == "desc"))
    data = [{"id": pk, "fields": _output(coll, coll.rows[pk], of), "score": v}
            for pk, v in rows[offset:offset + limit]]
    ctx["rows"] = len(data)
    return {"data": data, "total_return_count": len(data)}


# path suffix after /api/vikingdb/data/ -> (counter name, handler)
ROUTES = {
    "upsert": upsert,
    "delete": delete,
    "fetch_in_collection": fetch_in_collection,
    "fetch_in_index": fetch_in_index,
    "search/vector": search_by_vector,
    "search/id": search_by_id,
    "search/multi_modal": search_by_multi_modal,
    "search/scalar": search_by_scalar,
}
