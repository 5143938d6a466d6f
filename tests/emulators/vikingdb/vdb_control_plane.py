"""Control-plane (V2 OpenAPI, Version 2025-06-09) action handlers.

`POST /?Action=<Action>&Version=2025-06-09`, PascalCase JSON bodies, results in
the ResponseMetadata/Result envelope (vendor-apis.md §5.7). Index actions are
included because search is index-scoped and carries the Distance.
"""
from __future__ import annotations

from typing import Any

from vdb_errors import index_not_found, invalid, missing
from vdb_store import Collection, Store

VERSION = "2025-06-09"


def _coll(store: Store, body: dict) -> Collection:
    return store.lookup(body.get("ProjectName"), body.get("CollectionName"), body.get("ResourceId"))


def create_collection(store: Store, body: dict) -> dict:
    coll = store.create(body.get("ProjectName"), body.get("CollectionName"),
                        body.get("Description"), body.get("Fields"), body.get("Vectorize"))
    return {"ResourceId": coll.resource_id, "Message": "success"}


def get_collection(store: Store, body: dict) -> dict:
    return _coll(store, body).to_api()


def list_collections(store: Store, body: dict) -> dict:
    project = body.get("ProjectName") or "default"
    page = body.get("PageNumber", 1)
    size = body.get("PageSize", 10)
    if type(page) is not int or page < 1:
        raise invalid("PageNumber must be a positive integer")
    if type(size) is not int or not 1 <= size <= 100:
        raise invalid("PageSize must be in 1..100")
    keyword = ((body.get("Filter") or {}).get("CollectionNameKeyword") or "")
    matched = sorted((c for (p, n), c in store.collections.items()
                      if p == project and keyword in n), key=lambda c: c.name)
    start = (page - 1) * size
    return {"Collections": [c.to_api() for c in matched[start:start + size]],
            "TotalCount": len(matched), "PageNumber": page, "PageSize": size}


def delete_collection(store: Store, body: dict) -> dict:
    coll = _coll(store, body)
    # Spec 002: associated indexes must be dealt with before the collection is dropped.
    if coll.indexes and store.reject_delete_with_indexes:
        raise invalid(f"collection '{coll.name}' still has indexes {sorted(coll.indexes)}; delete them first")
    store.drop(coll)
    return {"Message": "success"}


def create_index(store: Store, body: dict) -> dict:
    coll = _coll(store, body)
    if not body.get("IndexName"):
        raise missing("IndexName")
    vi = body.get("VectorIndex") or {}
    if not isinstance(vi, dict):
        raise invalid("VectorIndex must be an object")
    idx = store.add_index(coll, body["IndexName"], vi.get("Distance"), vi.get("IndexType"),
                          body.get("Description"))
    return {"ResourceId": coll.resource_id, "IndexName": idx.name, "Message": "success"}


def _index(coll: Collection, body: dict):
    name = body.get("IndexName")
    if not name:
        raise missing("IndexName")
    if name not in coll.indexes:
        raise index_not_found(name)
    return coll.indexes[name]


def get_index(store: Store, body: dict) -> dict:
    coll = _coll(store, body)
    return _index(coll, body).to_api(coll)


def list_indexes(store: Store, body: dict) -> dict:
    coll = _coll(store, body)
    items = [i.to_api(coll) for _, i in sorted(coll.indexes.items())]
    return {"Indexes": items, "TotalCount": len(items), "PageNumber": 1, "PageSize": len(items)}


def delete_index(store: Store, body: dict) -> dict:
    coll = _coll(store, body)
    del coll.indexes[_index(coll, body).name]
    return {"Message": "success"}


ACTIONS: dict[str, Any] = {
    "CreateVikingdbCollection": create_collection,
    "GetVikingdbCollection": get_collection,
    "ListVikingdbCollection": list_collections,
    "DeleteVikingdbCollection": delete_collection,
    "CreateVikingdbIndex": create_index,
    "GetVikingdbIndex": get_index,
    "ListVikingdbIndex": list_indexes,
    "DeleteVikingdbIndex": delete_index,
}
