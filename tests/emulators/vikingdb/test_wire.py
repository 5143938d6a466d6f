"""Plain-HTTP conformance: signatures, envelopes, limits, TTL, search math."""
from __future__ import annotations

import hashlib
import json
import time

import pytest
import requests

import vdb_signing as signing
from vdb_testenv import BASIC_FIELDS
from vdb_wire import control_call, data_call, upsert

REF_BODY = b'{"collection_name":"test_coll","data":[{"f_id":"000135","f_vector":[0.1,0.33,-0.88,0.66]}]}'
REF_AUTH = ("HMAC-SHA256 Credential=AKTEST/20250801/cn-beijing/vikingdb/request, "
            "SignedHeaders=content-type;x-content-sha256;x-date, "
            "Signature=078dbe8dbe0eafcd4d74f23f57f7f7f114653dea022dd70ea51d56bbb5a4d22e")


def assert_data_error(resp, status: int, code: str):
    assert resp.status_code == status, resp.text
    body = resp.json()
    assert body["code"] == code and body["message"] and body["request_id"] and body["result"] is None
    assert resp.headers["X-Tt-Logid"] == body["request_id"]
    return body


# ------------------------------------------------------------------ signatures

def test_reference_signature_vectors_reproduce():
    # vendor-apis.md §5.1 computed vectors (AKTEST/SKTEST, 20250801T120000Z).
    h = hashlib.sha256(REF_BODY).hexdigest()
    canon = signing.canonical_request("POST", "/api/vikingdb/data/upsert", "",
                                      {"content-type": "application/json", "x-content-sha256": h,
                                       "x-date": "20250801T120000Z"},
                                      ["content-type", "x-content-sha256", "x-date"], h)
    assert signing.signature("SKTEST", "20250801T120000Z", "cn-beijing", "vikingdb", canon) == \
        "078dbe8dbe0eafcd4d74f23f57f7f7f114653dea022dd70ea51d56bbb5a4d22e"
    body = b'{"ProjectName":"default","CollectionName":"test_coll"}'
    h = hashlib.sha256(body).hexdigest()
    canon = signing.canonical_request(
        "POST", "/", "Version=2025-06-09&Action=GetVikingdbCollection",
        {"content-type": "application/json", "host": "vikingdb.cn-beijing.volcengineapi.com",
         "x-content-sha256": h, "x-date": "20250801T120000Z"},
        ["content-type", "host", "x-content-sha256", "x-date"], h)
    assert signing.signature("SKTEST", "20250801T120000Z", "cn-beijing", "vikingdb", canon) == \
        "02c4b35b5aa9ad287161f03ce2b6046e6c838badddd548b007670c86a8fdd028"


def _replay_reference(emu, signature_header: str, body: bytes = REF_BODY):
    headers = {"Content-Type": "application/json", "X-Date": "20250801T120000Z",
               "X-Content-Sha256": hashlib.sha256(REF_BODY).hexdigest(),
               "Authorization": signature_header}
    # "?" with empty query is what Request.build() sends (§5.1).
    return requests.post(emu.url + "/api/vikingdb/data/upsert?", data=body, headers=headers, timeout=10)


def test_server_verifies_reference_vector_and_rejects_tampering(emu):
    emu.create_collection("test_coll", [{"FieldName": "f_id", "FieldType": "string", "IsPrimaryKey": True},
                                        {"FieldName": "f_vector", "FieldType": "vector", "Dim": 4}])
    # The vector's X-Date is in 2025: outside the default 15-minute skew window.
    assert_data_error(_replay_reference(emu, REF_AUTH), 400, "InvalidTimestamp")
    emu.configure(max_clock_skew_seconds=None)
    resp = _replay_reference(emu, REF_AUTH)
    assert resp.status_code == 200, resp.text
    assert emu.rows("test_coll", vectors=True)["rows"][0]["vector"] == [0.1, 0.33, -0.88, 0.66]
    assert_data_error(_replay_reference(emu, REF_AUTH[:-1] + "f"), 401, "SignatureDoesNotMatch")
    assert_data_error(_replay_reference(emu, REF_AUTH, REF_BODY.replace(b"000135", b"000136")),
                      401, "SignatureDoesNotMatch")
    assert_data_error(_replay_reference(emu, REF_AUTH.replace("AKTEST", "AKOTHER")), 401, "InvalidAccessKey")
    assert_data_error(_replay_reference(emu, "HMAC-SHA256 garbage"), 401, "InvalidAuthorization")


def test_control_plane_envelope_and_auth_errors(emu):
    resp = control_call(emu, "ListVikingdbCollection", {})
    assert resp.status_code == 200
    meta = resp.json()["ResponseMetadata"]
    assert meta["Action"] == "ListVikingdbCollection" and meta["Version"] == "2025-06-09"
    assert meta["Service"] == "vikingdb" and meta["Region"] == "cn-beijing" and meta["RequestId"]
    assert "Error" not in meta and resp.json()["Result"]["TotalCount"] == 0

    bad = control_call(emu, "ListVikingdbCollection", {}, sk="wrong")
    assert bad.status_code == 401
    assert bad.json()["ResponseMetadata"]["Error"]["Code"] == "SignatureDoesNotMatch"
    assert "Result" not in bad.json()

    bearer = requests.post(f"{emu.url}/?Action=ListVikingdbCollection&Version=2025-06-09", data=b"{}",
                           headers={"Authorization": "Bearer test-api-key"}, timeout=10)
    assert bearer.status_code == 401
    assert bearer.json()["ResponseMetadata"]["Error"]["Code"] == "MissingAuthenticationToken"

    for action, version in (("CreateVikingdbThing", "2025-06-09"), ("ListVikingdbCollection", "2024-01-01")):
        resp = control_call(emu, action, {}, version=version)
        assert resp.status_code == 404
        assert resp.json()["ResponseMetadata"]["Error"]["Code"] == "InvalidActionOrVersion"

    stale = control_call(emu, "ListVikingdbCollection", {}, x_date="20200101T000000Z")
    assert stale.status_code == 400
    assert stale.json()["ResponseMetadata"]["Error"]["Code"] == "InvalidTimestamp"


def test_control_plane_get_by_resource_id_and_delete_needs_indexes_gone(emu):
    created = control_call(emu, "CreateVikingdbCollection",
                           {"CollectionName": "c1", "Fields": BASIC_FIELDS}).json()["Result"]
    got = control_call(emu, "GetVikingdbCollection", {"ResourceId": created["ResourceId"]}).json()["Result"]
    assert got["CollectionName"] == "c1" and got["PrimaryKey"] == "id"
    assert control_call(emu, "CreateVikingdbIndex", {"CollectionName": "c1", "IndexName": "i1",
                                                     "VectorIndex": {"Distance": "l2"}}).status_code == 200
    refused = control_call(emu, "DeleteVikingdbCollection", {"CollectionName": "c1"})
    assert refused.status_code == 400
    assert control_call(emu, "DeleteVikingdbIndex", {"CollectionName": "c1", "IndexName": "i1"}).status_code == 200
    assert control_call(emu, "DeleteVikingdbCollection", {"CollectionName": "c1"}).status_code == 200
    gone = control_call(emu, "GetVikingdbCollection", {"CollectionName": "c1"})
    assert gone.status_code == 404
    assert gone.json()["ResponseMetadata"]["Error"]["Code"] == "NotFound.VikingdbCollection"


@pytest.mark.parametrize("fields,vectorize,fragment", [
    ([{"FieldName": "id", "FieldType": "float32", "IsPrimaryKey": True}], None, "primary key"),
    ([{"FieldName": "a", "FieldType": "string", "IsPrimaryKey": True},
      {"FieldName": "b", "FieldType": "int64", "IsPrimaryKey": True}], None, "exactly one"),
    ([{"FieldName": "v", "FieldType": "vector", "Dim": 4098}], None, "Dim"),
    ([{"FieldName": "v", "FieldType": "vector", "Dim": 8, "DefaultValue": [0] * 8}], None, "DefaultValue"),
    ([{"FieldName": "v", "FieldType": "vector", "Dim": 8}, {"FieldName": "w", "FieldType": "vector", "Dim": 8}],
     None, "one vector"),
    ([{"FieldName": "x", "FieldType": "decimal"}], None, "unsupported FieldType"),
    ([{"FieldName": "x", "FieldType": "list_string"}], None, "list<string>"),
    ([{"FieldName": "x", "FieldType": "float"}], None, "float32"),
    ([{"FieldName": "t", "FieldType": "text"}, {"FieldName": "v", "FieldType": "vector", "Dim": 8}],
     {"Dense": {"ModelName": "m", "TextField": "t"}}, "mutually exclusive"),
    ([{"FieldName": "t", "FieldType": "string"}], {"Dense": {"ModelName": "m", "TextField": "t"}}, "text field"),
])
def test_create_collection_schema_rules(emu, fields, vectorize, fragment):
    body = {"CollectionName": "c", "Fields": fields}
    if vectorize:
        body["Vectorize"] = vectorize
    resp = control_call(emu, "CreateVikingdbCollection", body)
    assert resp.status_code == 400, resp.text
    err = resp.json()["ResponseMetadata"]["Error"]
    assert err["Code"] == "InvalidParameter" and fragment in err["Message"]


def test_create_collection_name_and_auto_id(emu):
    bad = control_call(emu, "CreateVikingdbCollection", {"CollectionName": "1abc", "Fields": []})
    assert bad.status_code == 400
    missing = control_call(emu, "CreateVikingdbCollection", {"Fields": []})
    assert missing.json()["ResponseMetadata"]["Error"]["Code"] == "MissingParameter"
    ok = control_call(emu, "CreateVikingdbCollection",
                      {"CollectionName": "auto", "Fields": [{"FieldName": "v", "FieldType": "vector", "Dim": 4}]})
    assert ok.status_code == 200
    assert emu.collection("auto")["PrimaryKey"] == "__AUTO_ID__"
    assert upsert(emu, "auto", [{"v": [1, 2, 3, 4]}, {"v": [4, 3, 2, 1]}]).status_code == 200
    assert sorted(r["id"] for r in emu.rows("auto")["rows"]) == [1, 2]


# ------------------------------------------------------------------ data plane limits

ALL_TYPES = [
    {"FieldName": "id", "FieldType": "int64", "IsPrimaryKey": True},
    {"FieldName": "vec", "FieldType": "vector", "Dim": 4},
    {"FieldName": "f", "FieldType": "float32"},
    {"FieldName": "s", "FieldType": "string"},
    {"FieldName": "b", "FieldType": "bool"},
    {"FieldName": "ls", "FieldType": "list<string>"},
    {"FieldName": "li", "FieldType": "list<int64>"},
    {"FieldName": "sp", "FieldType": "sparse_vector"},
    {"FieldName": "dt", "FieldType": "date_time"},
    {"FieldName": "geo", "FieldType": "geo_point"},
]
GOOD_ROW = {"id": 7, "vec": [0.1, 0.2, 0.3, 0.4], "f": 1.5, "s": "x", "b": True, "ls": ["a"], "li": [1],
            "sp": {"hello": 0.4}, "dt": "2025-08-12T12:34:56+08:00", "geo": "116.4,39.9"}


def test_upsert_accepts_every_type_and_base64_vectors(emu):
    import base64
    import struct
    emu.create_collection("t", ALL_TYPES)
    assert upsert(emu, "t", [GOOD_ROW]).status_code == 200
    packed = base64.b64encode(struct.pack("<4f", 1.0, 2.0, 3.0, 4.0)).decode()
    assert upsert(emu, "t", [{**GOOD_ROW, "id": 8, "vec": packed}]).status_code == 200
    rows = {r["id"]: r for r in emu.rows("t", vectors=True)["rows"]}
    assert rows[8]["vector"] == [1.0, 2.0, 3.0, 4.0]
    assert rows[7]["fields"]["dt"] == GOOD_ROW["dt"]


@pytest.mark.parametrize("patch,fragment", [
    ({"id": "7"}, "int64"),
    ({"id": 0}, "must not be 0"),
    ({"vec": [0.1, 0.2, 0.3]}, "dimension 3"),
    ({"vec": [0.1, 0.2, 0.3, "x"]}, "only numbers"),
    ({"vec": [0.1, 0.2, 0.3, 1e39]}, "finite float32"),
    ({"f": "1.5"}, "float32"),
    ({"f": 1e39}, "finite float32"),
    ({"s": 5}, "string"),
    ({"b": 1}, "bool"),
    ({"ls": ["a", 2]}, "string"),
    ({"li": [1.5]}, "int64"),
    ({"sp": {"a": "x"}}, "finite"),
    ({"dt": "2025-08-12 12:34"}, "RFC 3339"),
    ({"geo": "200,10"}, "out of range"),
    ({"unknown_col": 1}, "unknown field"),
])
def test_upsert_rejects_bad_values(emu, patch, fragment):
    emu.create_collection("t", ALL_TYPES)
    resp = upsert(emu, "t", [{**GOOD_ROW, **patch}])
    body = assert_data_error(resp, 400, "InvalidParameter")
    assert fragment in body["message"]
    assert emu.rows("t")["count"] == 0


def test_upsert_rejects_non_finite_json_literals(emu):
    emu.create_collection("t", ALL_TYPES)
    raw = json.dumps({"collection_name": "t", "data": [GOOD_ROW]}).replace("0.4]", "NaN]").encode()
    assert_data_error(data_call(emu, "upsert", raw), 400, "InvalidParameter")
    assert_data_error(data_call(emu, "upsert", b"{not json"), 400, "InvalidParameter")


def test_upsert_batch_limits_and_atomicity(emu):
    emu.create_collection("t", BASIC_FIELDS)
    rows = [{"id": f"r{i}", "vec": [0, 0, 0, 1]} for i in range(101)]
    body = assert_data_error(upsert(emu, "t", rows), 400, "InvalidParameter")
    assert "at most 100" in body["message"]
    assert upsert(emu, "t", rows[:100]).status_code == 200
    # One bad row fails the whole batch: nothing of it is applied.
    bad_batch = [{"id": "new1", "vec": [0, 0, 0, 1]}, {"id": "new2", "vec": [0, 0, 1]}]
    assert_data_error(upsert(emu, "t", bad_batch), 400, "InvalidParameter")
    assert emu.rows("t")["count"] == 100
    assert_data_error(upsert(emu, "t", [{"vec": [0, 0, 0, 1]}]), 400, "InvalidParameter")   # no pk
    assert_data_error(upsert(emu, "t", [{"id": "x"}]), 400, "InvalidParameter")             # no vector
    assert_data_error(upsert(emu, "t", []), 400, "InvalidParameter")
    assert_data_error(data_call(emu, "upsert", {"collection_name": "t"}), 400, "MissingParameter")
    assert_data_error(upsert(emu, "nope", rows[:1]), 404, "NotFound.VikingdbCollection")
    assert_data_error(data_call(emu, "upsert", {"data": rows[:1]}), 400, "MissingParameter")


def test_string_size_limit_and_unknown_fields_option(emu):
    emu.create_collection("t", BASIC_FIELDS)
    big = "汉" * 21846       # 65538 UTF-8 bytes > 65535
    body = assert_data_error(upsert(emu, "t", [{"id": "a", "vec": [0, 0, 0, 1], "city": big}]),
                             400, "InvalidParameter")
    assert "65535 bytes" in body["message"]
    assert upsert(emu, "t", [{"id": "a", "vec": [0, 0, 0, 1], "city": big[:21845]}]).status_code == 200
    emu.configure(string_max_bytes=256)
    assert_data_error(upsert(emu, "t", [{"id": "a", "vec": [0, 0, 0, 1], "city": "x" * 257}]),
                      400, "InvalidParameter")
    resp = upsert(emu, "t", [{"id": "b", "vec": [0, 0, 0, 1], "extra": 1, "price": None}],
                  ignore_unknown_fields=True)
    assert resp.status_code == 200
    row = {r["id"]: r for r in emu.rows("t")["rows"]}["b"]
    assert "extra" not in row["fields"] and row["fields"]["price"] == 0   # null -> type default


def test_delete_and_fetch_limits(emu):
    emu.create_collection("t", BASIC_FIELDS)
    ids = [f"r{i}" for i in range(101)]
    assert_data_error(data_call(emu, "delete", {"collection_name": "t", "ids": ids}), 400, "InvalidParameter")
    assert_data_error(data_call(emu, "fetch_in_collection", {"collection_name": "t", "ids": ids}),
                      400, "InvalidParameter")
    assert_data_error(data_call(emu, "delete", {"collection_name": "t"}), 400, "MissingParameter")
    assert_data_error(data_call(emu, "delete", {"collection_name": "t", "ids": [5]}), 400, "InvalidParameter")
    ok = data_call(emu, "delete", {"collection_name": "t", "ids": ["never-written"]}, auth="ak_sk")
    assert ok.status_code == 200 and ok.json()["code"] == "Success"


def test_ttl_expires_rows_and_async_is_counted(emu):
    emu.create_collection("t", BASIC_FIELDS)
    assert upsert(emu, "t", [{"id": "short", "vec": [0, 0, 0, 1]}], ttl=1).status_code == 200
    assert upsert(emu, "t", [{"id": "long", "vec": [0, 0, 0, 1]}], ttl=0, **{"async": True}).status_code == 200
    fetch = lambda: data_call(emu, "fetch_in_collection",  # noqa: E731
                              {"collection_name": "t", "ids": ["short", "long"]}).json()["result"]
    assert len(fetch()["fetch"]) == 2
    assert emu.rows("t")["rows"][0]["expires_at"] > time.time()
    time.sleep(1.1)
    assert fetch()["ids_not_exist"] == ["short"]
    assert emu.counters()["async_upserts"] == 1
    assert_data_error(upsert(emu, "t", [{"id": "x", "vec": [0, 0, 0, 1]}], ttl=-1), 400, "InvalidParameter")


# ------------------------------------------------------------------ search

def test_search_distances_follow_the_index(emu):
    emu.create_collection("t", BASIC_FIELDS, indexes=[{"IndexName": "ip", "Distance": "ip"},
                                                      {"IndexName": "l2", "Distance": "l2"},
                                                      {"IndexName": "cos", "Distance": "cosine"}])
    upsert(emu, "t", [{"id": "a", "vec": [1, 0, 0, 0]}, {"id": "b", "vec": [10, 10, 0, 0]},
                      {"id": "c", "vec": [0.9, 0.1, 0, 0]}])

    def search(index, vec, **extra):
        resp = data_call(emu, "search/vector", {"collection_name": "t", "index_name": index,
                                                "dense_vector": vec, "limit": 3, **extra})
        assert resp.status_code == 200, resp.text
        return [(d["id"], d["score"]) for d in resp.json()["result"]["data"]]

    assert search("ip", [1, 0, 0, 0]) == [("b", 10.0), ("a", 1.0), ("c", 0.9)]
    l2 = search("l2", [1, 0, 0, 0])
    assert [i for i, _ in l2] == ["a", "c", "b"] and l2[0][1] == 0.0
    assert l2[1][1] == pytest.approx(0.02)
    cos = search("cos", [1, 0, 0, 0])
    assert cos[0] == ("a", pytest.approx(1.0)) and cos[2][0] == "b"
    assert search("cos", [1, 0, 0, 0], filter={"op": "must", "field": "id", "conds": ["b", "c"]})[0][0] == "c"
    by_id = data_call(emu, "search/id", {"collection_name": "t", "index_name": "l2", "id": "c", "limit": 1})
    assert by_id.json()["result"]["data"][0]["id"] == "c"
    assert_data_error(data_call(emu, "search/vector", {"collection_name": "t", "index_name": "zz",
                                                       "dense_vector": [1, 0, 0, 0]}), 404, "NotFound.VikingdbIndex")
    assert_data_error(data_call(emu, "search/vector", {"collection_name": "t", "index_name": "ip",
                                                       "dense_vector": [1, 0]}), 400, "InvalidParameter")


# ------------------------------------------------------------------ vectorize

def test_vectorize_embedding_is_deterministic_and_single_row(emu):
    import vdb_vectorize as vectorize
    emu.create_collection("docs", [{"FieldName": "id", "FieldType": "string", "IsPrimaryKey": True},
                                   {"FieldName": "body", "FieldType": "text"}],
                          vectorize={"Dense": {"ModelName": "m", "ModelVersion": "1", "TextField": "body",
                                               "Dimension": 32},
                                     "Sparse": {"ModelName": "bge-m3", "TextField": "body"}},
                          indexes=[{"IndexName": "idx", "Distance": "ip"}])
    assert emu.collection("docs")["Vectorize"]["Dense"]["Dim"] == 32
    resp = upsert(emu, "docs", [{"id": "a", "body": "数据 同步 sync"}])
    assert resp.status_code == 200
    usage = resp.json()["result"]["token_usage"]
    assert usage["m__1"]["total_tokens"] == 5 and usage["bge-m3__default"]["prompt_tokens"] == 5
    row = emu.rows("docs", vectors=True)["rows"][0]
    assert row["vector"] == pytest.approx(vectorize.dense_embedding("数据 同步 sync", 32))
    assert sum(x * x for x in row["vector"]) == pytest.approx(1.0)
    assert row["sparse_vector"]["sync"] == pytest.approx(0.2)
    fetched = data_call(emu, "fetch_in_index", {"collection_name": "docs", "index_name": "idx", "ids": ["a"]})
    assert fetched.json()["result"]["fetch"][0]["dense_dim"] == 32

    two = [{"id": "b", "body": "x"}, {"id": "c", "body": "y"}]
    assert "Vectorize" in assert_data_error(upsert(emu, "docs", two), 400, "InvalidParameter")["message"]
    assert_data_error(upsert(emu, "docs", [{"id": "b", "body": "x"}], **{"async": True}), 400, "InvalidParameter")
    assert_data_error(upsert(emu, "docs", [{"id": "b"}]), 400, "InvalidParameter")   # text field missing
