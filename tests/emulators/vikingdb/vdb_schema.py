"""Collection schema: field types, CreateVikingdbCollection parsing, row validation.

Rules from vendor-apis.md §5.3 (value formats) and §5.7 (schema rules); the type
names the sink maps to (spec 002 type table) are all accepted.
Row validation is the hot path of the benchmark: one precomputed checker per
field, C-level sum()/min()/max() for vectors instead of per-element Python loops.
"""
from __future__ import annotations

import base64
import math
import re
import struct
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable

from vdb_errors import ApiError, invalid

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
FLOAT32_MAX = 3.4028234663852886e38
AUTO_ID_FIELD = "__AUTO_ID__"
COLLECTION_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,127}$")
FIELD_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
MAX_FIELDS = 200

SCALAR_TYPES = {"int64", "float32", "string", "bool", "list<string>", "list<int64>",
                "date_time", "geo_point"}
NO_DEFAULT_TYPES = {"vector", "sparse_vector", "text", "image", "video"}
FIELD_TYPES = SCALAR_TYPES | NO_DEFAULT_TYPES
# Value a missing scalar field takes when the schema gives no DefaultValue.
TYPE_DEFAULTS = {"int64": 0, "float32": 0.0, "string": "", "bool": False,
                 "list<string>": [], "list<int64>": [], "date_time": "", "geo_point": ""}


@dataclass
class Limits:
    """Tunable through /_emulator/config; defaults are the documented limits."""
    max_rows_per_upsert: int = 100
    max_ids_per_request: int = 100
    max_rows_per_vectorize_upsert: int = 1
    string_max_bytes: int = 65535
    max_collections: int = 200


@dataclass
class FieldDef:
    name: str
    type: str
    dim: int | None = None
    default: Any = None
    has_default: bool = False
    is_primary_key: bool = False

    def to_api(self) -> dict:
        out = {"FieldName": self.name, "FieldType": self.type}
        if self.dim is not None:
            out["Dim"] = self.dim
        if self.has_default:
            out["DefaultValue"] = self.default
        if self.is_primary_key:
            out["IsPrimaryKey"] = True
        return out


@dataclass
class Schema:
    fields: list[FieldDef]
    primary_key: str
    pk_type: str                       # "string" or "int64"
    auto_id: bool
    vector_field: FieldDef | None
    vectorize: dict | None             # as given (PascalCase), normalised Dim
    checkers: dict[str, Callable[[Any], Any]] = field(default_factory=dict)
    required: list[str] = field(default_factory=list)
    defaults: dict[str, Any] = field(default_factory=dict)
    limits: Limits | None = None       # what the checkers check against (the store's)

    def __getstate__(self) -> dict:
        # Saved for a restart (common/emulator_state_file.py): the checkers are closures, made
        # again from the fields and the limits.
        state = dict(self.__dict__)
        state["checkers"] = {}
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.checkers = {f.name: make_checker(f, self.limits) for f in self.fields}

    @property
    def dense_dim(self) -> int | None:
        if self.vector_field is not None:
            return self.vector_field.dim
        dense = (self.vectorize or {}).get("Dense")
        return dense.get("Dim") if dense else None


# ---------------------------------------------------------------- value checks

def _type_error(name: str, expected: str, value: Any) -> ApiError:
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return invalid(f"invalid value for field '{name}': expected {expected}, got {shown}")


def _check_int64(name):
    def check(v):
        if type(v) is not int or v < INT64_MIN or v > INT64_MAX:
            raise _type_error(name, "int64", v)
        return v
    return check


def _check_float32(name):
    def check(v):
        t = type(v)
        if t is float:
            if not math.isfinite(v) or abs(v) > FLOAT32_MAX:
                raise _type_error(name, "finite float32", v)
            return v
        if t is int:
            return v
        raise _type_error(name, "float32", v)
    return check


def _check_string(name, limits: Limits):
    def check(v):
        if type(v) is not str:
            raise _type_error(name, "string", v)
        # len(str) <= bytes <= 4*len(str): encode only when it could exceed the limit.
        if len(v) * 4 > limits.string_max_bytes and len(v.encode()) > limits.string_max_bytes:
            raise invalid(f"field '{name}' exceeds {limits.string_max_bytes} bytes")
        return v
    return check


def _check_bool(name):
    def check(v):
        if type(v) is not bool:
            raise _type_error(name, "bool", v)
        return v
    return check


def _check_list_string(name, limits: Limits):
    item = _check_string(name, limits)

    def check(v):
        if type(v) is not list:
            raise _type_error(name, "list<string>", v)
        for s in v:
            item(s)
        return v
    return check


def _check_list_int64(name):
    item = _check_int64(name)

    def check(v):
        if type(v) is not list:
            raise _type_error(name, "list<int64>", v)
        for i in v:
            item(i)
        return v
    return check


def decode_vector(name: str, dim: int, v: Any) -> list:
    """Float array, or base64 of packed little-endian float32/float64 (§5.3)."""
    if type(v) is str:
        try:
            raw = base64.b64decode(v, validate=True)
        except (ValueError, TypeError):
            raise _type_error(name, "float array or base64 vector", v) from None
        if len(raw) == dim * 4:
            v = list(struct.unpack(f"<{dim}f", raw))
        elif len(raw) == dim * 8:
            v = list(struct.unpack(f"<{dim}d", raw))
        else:
            raise invalid(f"vector field '{name}' base64 payload does not hold {dim} floats")
    elif type(v) is not list:
        raise _type_error(name, "float array", v)
    if len(v) != dim:
        raise invalid(f"vector field '{name}' has dimension {len(v)}, collection expects {dim}")
    try:
        # One C-level pass each: rejects non-numbers (TypeError), NaN/Inf (non-finite sum)
        # and values outside float32 range. |sum| <= 4096*FLOAT32_MAX cannot overflow.
        total = sum(v)
        lo, hi = min(v), max(v)
    except TypeError:
        raise invalid(f"vector field '{name}' must contain only numbers") from None
    if not math.isfinite(total) or lo < -FLOAT32_MAX or hi > FLOAT32_MAX:
        raise invalid(f"vector field '{name}' must contain only finite float32 values")
    return v


def _check_vector(name, dim):
    return lambda v: decode_vector(name, dim, v)


def _check_sparse(name):
    def check(v):
        if type(v) is not dict:
            raise _type_error(name, "sparse vector object {token: weight}", v)
        for w in v.values():
            if type(w) not in (int, float) or not math.isfinite(w):
                raise invalid(f"sparse_vector field '{name}' weights must be finite numbers")
        return v
    return check


def _check_text(name):
    def check(v):
        if type(v) is not str:
            raise _type_error(name, "text", v)
        return v
    return check


def _check_date_time(name):
    def check(v):
        if type(v) is not str:
            raise _type_error(name, "RFC 3339 date_time string", v)
        try:
            parsed = datetime.fromisoformat(v)
        except ValueError:
            raise _type_error(name, "RFC 3339 date_time string", v) from None
        if "T" not in v or parsed.tzinfo is None:
            raise _type_error(name, "RFC 3339 date_time string with offset", v)
        return v
    return check


def _check_geo_point(name):
    def check(v):
        try:
            lng_s, lat_s = v.split(",")
            lng, lat = float(lng_s), float(lat_s)
        except (AttributeError, ValueError):
            raise _type_error(name, "geo_point \"lng,lat\"", v) from None
        if not (-180 <= lng <= 180 and -90 <= lat <= 90):
            raise invalid(f"geo_point field '{name}' out of range")
        return v
    return check


def _check_image(name):
    def check(v):
        if type(v) is not str or not v.startswith(("tos://", "http://", "https://")):
            raise _type_error(name, "image URL (tos://, http(s)://)", v)
        return v
    return check


def _check_video(name):
    def check(v):
        if type(v) is not dict or type(v.get("value")) is not str:
            raise _type_error(name, "video object {\"value\": url, \"fps\": n}", v)
        fps = v.get("fps")
        if fps is not None and (type(fps) not in (int, float) or not 0.2 <= fps <= 5):
            raise invalid(f"video field '{name}' fps must be within 0.2..5")
        return v
    return check


def make_checker(f: FieldDef, limits: Limits) -> Callable[[Any], Any]:
    t, n = f.type, f.name
    if t == "int64":
        return _check_int64(n)
    if t == "float32":
        return _check_float32(n)
    if t == "string":
        return _check_string(n, limits)
    if t == "bool":
        return _check_bool(n)
    if t == "list<string>":
        return _check_list_string(n, limits)
    if t == "list<int64>":
        return _check_list_int64(n)
    if t == "vector":
        return _check_vector(n, f.dim)
    if t == "sparse_vector":
        return _check_sparse(n)
    if t == "text":
        return _check_text(n)
    if t == "date_time":
        return _check_date_time(n)
    if t == "geo_point":
        return _check_geo_point(n)
    if t == "image":
        return _check_image(n)
    if t == "video":
        return _check_video(n)
    raise invalid(f"unsupported FieldType '{t}'")


# ---------------------------------------------------------------- schema parse

# Sink-config spellings (spec 002) that are NOT wire FieldTypes: rejected with a hint, so a
# sink that forgets to translate them fails here as it would against VikingDB.
_WIRE_SPELLING = {"list_string": "list<string>", "list_int64": "list<int64>", "float": "float32",
                  "double": "float32", "map": "(none: VikingDB has no map type)"}


def _normalise_type(t: Any) -> str:
    if not isinstance(t, str):
        raise invalid("FieldType must be a string")
    if t in _WIRE_SPELLING:
        raise invalid(f"unsupported FieldType '{t}'; the API spells it {_WIRE_SPELLING[t]}")
    return t


def parse_schema(fields_in: Any, vectorize_in: Any, limits: Limits) -> Schema:
    if fields_in is None:
        fields_in = []
    if not isinstance(fields_in, list):
        raise invalid("Fields must be a list")
    if len(fields_in) > MAX_FIELDS:
        raise invalid(f"a collection holds at most {MAX_FIELDS} fields")
    fields: list[FieldDef] = []
    seen: set[str] = set()
    for raw in fields_in:
        if not isinstance(raw, dict):
            raise invalid("each Fields item must be an object")
        name = raw.get("FieldName")
        if not isinstance(name, str) or not FIELD_NAME_RE.match(name):
            raise invalid(f"invalid FieldName {name!r}")
        if name in seen:
            raise invalid(f"duplicate FieldName '{name}'")
        seen.add(name)
        ftype = _normalise_type(raw.get("FieldType"))
        if ftype not in FIELD_TYPES:
            raise invalid(f"unsupported FieldType '{ftype}' for field '{name}'")
        f = FieldDef(name, ftype, is_primary_key=bool(raw.get("IsPrimaryKey")))
        if ftype == "vector":
            dim = raw.get("Dim")
            if type(dim) is not int or not 4 <= dim <= 4096 or dim % 4:
                raise invalid(f"vector field '{name}' needs Dim in 4..4096, a multiple of 4")
            f.dim = dim
        if "DefaultValue" in raw and raw["DefaultValue"] is not None:
            if ftype in NO_DEFAULT_TYPES:
                raise invalid(f"DefaultValue is not allowed for {ftype} field '{name}'")
            f.default = make_checker(f, limits)(raw["DefaultValue"])
            f.has_default = True
        if f.is_primary_key and ftype not in ("string", "int64"):
            raise invalid(f"primary key '{name}' must be string or int64")
        fields.append(f)

    pks = [f for f in fields if f.is_primary_key]
    if len(pks) > 1:
        raise invalid("exactly one field may have IsPrimaryKey")
    auto_id = not pks
    if auto_id:
        if AUTO_ID_FIELD in seen:
            raise invalid(f"{AUTO_ID_FIELD} is reserved")
        pk = FieldDef(AUTO_ID_FIELD, "int64", is_primary_key=True)
        fields.insert(0, pk)
    else:
        pk = pks[0]
    vectors = [f for f in fields if f.type == "vector"]
    if len(vectors) > 1:
        raise invalid("a collection holds at most one vector field")
    vectorize = _parse_vectorize(vectorize_in, {f.name: f for f in fields})
    if vectorize and vectors:
        raise invalid("Vectorize and a vector field are mutually exclusive")

    schema = Schema(fields, pk.name, pk.type, auto_id, vectors[0] if vectors else None, vectorize,
                    limits=limits)
    for f in fields:
        schema.checkers[f.name] = make_checker(f, limits)
        if f.is_primary_key:
            if not auto_id:
                schema.required.append(f.name)
        elif f.type in NO_DEFAULT_TYPES:
            schema.required.append(f.name)
        else:
            schema.defaults[f.name] = f.default if f.has_default else TYPE_DEFAULTS[f.type]
    return schema


def _parse_vectorize(v: Any, by_name: dict[str, FieldDef]) -> dict | None:
    if v is None or v == {}:
        return None
    if not isinstance(v, dict):
        raise invalid("Vectorize must be an object")
    out: dict = {}
    for kind in ("Dense", "Sparse"):
        cfg = v.get(kind)
        if cfg is None:
            continue
        if not isinstance(cfg, dict) or not isinstance(cfg.get("ModelName"), str):
            raise invalid(f"Vectorize.{kind} needs ModelName")
        cfg = dict(cfg)
        sources = [cfg.get(k) for k in ("TextField", "ImageField", "VideoField") if cfg.get(k)]
        if not sources:
            raise invalid(f"Vectorize.{kind} needs TextField, ImageField or VideoField")
        for key, want in (("TextField", "text"), ("ImageField", "image"), ("VideoField", "video")):
            src = cfg.get(key)
            if src and (src not in by_name or by_name[src].type != want):
                raise invalid(f"Vectorize.{kind}.{key} '{src}' must name a {want} field")
        if kind == "Dense":
            # Docs disagree on Dim vs Dimension (§7.8): accept both.
            dim = cfg.pop("Dimension", None) or cfg.get("Dim") or 1024
            if type(dim) is not int or not 4 <= dim <= 4096 or dim % 4:
                raise invalid("Vectorize.Dense.Dim must be in 4..4096, a multiple of 4")
            cfg["Dim"] = dim
        cfg.setdefault("ModelVersion", "default")
        out[kind] = cfg
    if not out:
        raise invalid("Vectorize needs Dense or Sparse")
    return out
