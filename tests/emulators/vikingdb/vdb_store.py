"""In-memory collections and rows.

Rows live in a dict keyed by primary key so 1M upserts cost one dict store each.
Dense vectors (given or computed by vectorize) are kept beside the row for search.
"""
from __future__ import annotations

import itertools
import os
import time
from dataclasses import dataclass, field
from typing import Any

from vdb_errors import ApiError, collection_not_found, invalid, missing
from vdb_schema import COLLECTION_NAME_RE, Limits, Schema, parse_schema

DISTANCES = {"cosine", "ip", "l2"}
INDEX_TYPES = {"flat", "hnsw", "ivf", "diskann", "hnsw_hybrid", "flat_hybrid", "sort"}


def _now_str() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime())


@dataclass
class Index:
    name: str
    distance: str = "ip"
    index_type: str = "hnsw"
    description: str = ""
    create_time: str = field(default_factory=_now_str)

    def to_api(self, coll: "Collection") -> dict:
        return {"ProjectName": coll.project, "CollectionName": coll.name,
                "ResourceId": coll.resource_id, "IndexName": self.name,
                "Description": self.description,
                "VectorIndex": {"IndexType": self.index_type, "Distance": self.distance},
                "CreateTime": self.create_time, "UpdateTime": self.create_time}


@dataclass
class Collection:
    project: str
    name: str
    resource_id: str
    description: str
    schema: Schema
    create_time: str = field(default_factory=_now_str)
    update_time: str = field(default_factory=_now_str)
    rows: dict[Any, dict] = field(default_factory=dict)
    vectors: dict[Any, list] = field(default_factory=dict)        # dense, for search
    sparse: dict[Any, dict] = field(default_factory=dict)         # vectorize sparse output
    expires: dict[Any, float] = field(default_factory=dict)       # pk -> unix time (ttl)
    indexes: dict[str, Index] = field(default_factory=dict)
    next_auto_id: Any = field(default_factory=lambda: itertools.count(1))

    def purge_expired(self) -> None:
        if not self.expires:
            return
        now = time.time()
        for pk in [pk for pk, t in self.expires.items() if t <= now]:
            self.remove(pk)

    def remove(self, pk) -> bool:
        self.vectors.pop(pk, None)
        self.sparse.pop(pk, None)
        self.expires.pop(pk, None)
        return self.rows.pop(pk, None) is not None

    def clear(self) -> None:
        self.rows.clear()
        self.vectors.clear()
        self.sparse.clear()
        self.expires.clear()

    def full_fields(self, row: dict) -> dict:
        """Stored row plus defaults for fields the writer left out."""
        out = dict(self.schema.defaults)
        out.update(row)
        return out

    def to_api(self) -> dict:
        out = {
            "ProjectName": self.project, "CollectionName": self.name,
            "ResourceId": self.resource_id, "Description": self.description,
            "Fields": [f.to_api() for f in self.schema.fields],
            "PrimaryKey": self.schema.primary_key,
            "CreateTime": self.create_time, "UpdateTime": self.update_time,
            "UpdatePerson": "emulator",
            "IndexNames": sorted(self.indexes), "IndexCount": len(self.indexes),
            "CollectionStats": {"DataCount": len(self.rows), "DataStorage": 0},
            "EnableKeywordsSearch": False,
        }
        if self.schema.vectorize:
            out["Vectorize"] = self.schema.vectorize
        return out


class Store:
    def __init__(self, limits: Limits):
        self.limits = limits
        # DeleteVikingdbCollection refuses while indexes exist (tunable via /_emulator/config).
        self.reject_delete_with_indexes = True
        self.collections: dict[tuple[str, str], Collection] = {}
        self.by_resource_id: dict[str, Collection] = {}

    def reset(self) -> None:
        self.collections.clear()
        self.by_resource_id.clear()

    def create(self, project: str | None, name: Any, description: Any,
               fields: Any, vectorize: Any) -> Collection:
        project = project or "default"
        if not isinstance(project, str):
            raise invalid("ProjectName must be a string")
        if name is None:
            raise missing("CollectionName")
        if not isinstance(name, str) or not COLLECTION_NAME_RE.match(name):
            raise invalid(f"invalid CollectionName {name!r}: must match ^[A-Za-z][A-Za-z0-9_]{{0,127}}$")
        if (project, name) in self.collections:
            raise ApiError(409, "AlreadyExists.VikingdbCollection",
                           f"The specified collection '{name}' of VikingDB already exists.")
        if len(self.collections) >= self.limits.max_collections:
            raise ApiError(400, "QuotaExceeded.VikingdbCollection",
                           f"at most {self.limits.max_collections} collections per account")
        schema = parse_schema(fields, vectorize, self.limits)
        coll = Collection(project, name, "vdb-" + os.urandom(8).hex(),
                          description if isinstance(description, str) else "", schema)
        self.collections[(project, name)] = coll
        self.by_resource_id[coll.resource_id] = coll
        return coll

    def lookup(self, project: Any, name: Any, resource_id: Any) -> Collection:
        """Collection by resource_id or (project, name): the API's "2选1"."""
        if resource_id:
            coll = self.by_resource_id.get(resource_id)
            if coll is None:
                raise collection_not_found(str(resource_id))
            return coll
        if not name:
            raise missing("collection_name or resource_id")
        coll = self.collections.get((project or "default", name))
        if coll is None:
            raise collection_not_found(str(name))
        return coll

    def drop(self, coll: Collection) -> None:
        self.collections.pop((coll.project, coll.name), None)
        self.by_resource_id.pop(coll.resource_id, None)

    def add_index(self, coll: Collection, name: Any, distance: Any = "ip",
                  index_type: Any = "hnsw", description: Any = "") -> Index:
        if not isinstance(name, str) or not COLLECTION_NAME_RE.match(name):
            raise invalid(f"invalid IndexName {name!r}")
        if name in coll.indexes:
            raise ApiError(409, "AlreadyExists.VikingdbIndex",
                           f"The specified index '{name}' of VikingDB already exists.")
        distance = (distance or "ip").lower()
        if distance not in DISTANCES:
            raise invalid(f"Distance must be one of {sorted(DISTANCES)}")
        index_type = index_type or "hnsw"
        if index_type.lower() not in INDEX_TYPES:
            raise invalid(f"IndexType must be one of {sorted(INDEX_TYPES)}")
        idx = Index(name, distance, index_type, description if isinstance(description, str) else "")
        coll.indexes[name] = idx
        return idx
