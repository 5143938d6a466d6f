"""Exact (brute-force) search over stored vectors plus the filter DSL subset.

Scoring per index Distance: cosine and ip sort descending, l2 returns the squared
Euclidean distance and sorts ascending. Exact scan is fine for test-sized data.
"""
from __future__ import annotations

import math
import operator
from typing import Any, Callable, Iterable

from vdb_errors import invalid


def dot(a: list, b: list) -> float:
    return math.fsum(map(operator.mul, a, b))


def scorer(distance: str, query: list) -> tuple[Callable[[list], float], bool]:
    """Returns (score function, higher_is_better)."""
    if distance == "ip":
        return (lambda v: dot(query, v)), True
    if distance == "cosine":
        qn = math.sqrt(dot(query, query)) or 1.0

        def cos(v):
            vn = math.sqrt(dot(v, v)) or 1.0
            return dot(query, v) / (qn * vn)
        return cos, True
    if distance == "l2":
        return (lambda v: math.fsum((x - y) * (x - y) for x, y in zip(query, v))), False
    raise invalid(f"unsupported distance {distance!r}")


def compile_filter(f: Any) -> Callable[[dict], bool]:
    """Subset of the V2 filter DSL: must, must_not, range, range_out, prefix, and, or."""
    if f is None or f == {}:
        return lambda row: True
    if not isinstance(f, dict) or "op" not in f:
        raise invalid("filter must be an object with 'op'")
    op = f["op"]
    if op in ("and", "or"):
        subs = [compile_filter(c) for c in f.get("conds") or []]
        if op == "and":
            return lambda row: all(s(row) for s in subs)
        return lambda row: any(s(row) for s in subs)
    name = f.get("field")
    if not isinstance(name, str):
        raise invalid(f"filter op '{op}' needs 'field'")
    if op in ("must", "must_not"):
        conds = f.get("conds")
        if not isinstance(conds, list):
            raise invalid(f"filter op '{op}' needs 'conds' list")
        wanted = set(c for c in conds if not isinstance(c, (list, dict)))

        def match(row):
            v = row.get(name)
            if isinstance(v, list):
                return any(x in wanted for x in v)
            return v in wanted
        return match if op == "must" else (lambda row: not match(row))
    if op in ("range", "range_out"):
        bounds = [(k, f[k]) for k in ("gt", "gte", "lt", "lte") if k in f]
        if not bounds:
            raise invalid(f"filter op '{op}' needs gt/gte/lt/lte")
        cmp = {"gt": operator.gt, "gte": operator.ge, "lt": operator.lt, "lte": operator.le}

        def in_range(row):
            v = row.get(name)
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                return False
            return all(cmp[k](v, b) for k, b in bounds)
        return in_range if op == "range" else (lambda row: not in_range(row))
    if op == "prefix":
        prefixes = tuple(str(p) for p in f.get("conds") or [])
        return lambda row: isinstance(row.get(name), str) and row[name].startswith(prefixes)
    raise invalid(f"unsupported filter op '{op}'")


def rank(candidates: Iterable[tuple[Any, list]], distance: str, query: list,
         limit: int, offset: int) -> list[tuple[Any, float]]:
    score, higher = scorer(distance, query)
    scored = [(pk, score(vec)) for pk, vec in candidates]
    scored.sort(key=lambda t: t[1], reverse=higher)
    return scored[offset:offset + limit]
