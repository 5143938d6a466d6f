"""Conformance: Volcengine's official SDKs against the emulator.

- vikingdb-python-sdk (data plane) with an API key and with AK/SK signing:
  upsert, fetch, delete, search, error codes as the SDK surfaces them.
- volcengine-python-sdk's volcenginesdkvikingdb (control plane, 2025-06-09):
  create, get, list, delete collections; signature rejection.
Both are pointed at http://127.0.0.1:PORT via host + scheme="http".
"""
from __future__ import annotations

import pytest
import volcenginesdkcore
import volcenginesdkvikingdb as vdb
from volcenginesdkcore.rest import ApiException
from vikingdb import APIKey, IAM
from vikingdb.request_options import RequestOptions
from vikingdb.vector import (DeleteDataRequest, FetchDataInCollectionRequest, SearchByMultiModalRequest,
                             SearchByVectorRequest, UpsertDataRequest, VikingDB)
from vikingdb.vector.exceptions import VikingVectorException

from vdb_testenv import AK, API_KEY, BASIC_FIELDS, SK, VikingDBEmulator

ONE_TRY = RequestOptions(max_attempts=1)   # the SDK retries every failure 3x with sleeps


def control_api(emu, ak=AK, sk=SK) -> vdb.VIKINGDBApi:
    cfg = volcenginesdkcore.Configuration()
    cfg.ak, cfg.sk, cfg.region = ak, sk, "cn-beijing"
    cfg.host, cfg.scheme = emu.host, "http"
    cfg.auto_retry = False
    return vdb.VIKINGDBApi(volcenginesdkcore.ApiClient(cfg))


def data_client(emu, auth_kind: str) -> VikingDB:
    auth = APIKey(api_key=API_KEY) if auth_kind == "api_key" else IAM(ak=AK, sk=SK)
    return VikingDB(host=emu.host, region="cn-beijing", auth=auth, scheme="http")


def sdk_fields(specs):
    return [vdb.FieldForCreateVikingdbCollectionInput(
        field_name=f["FieldName"], field_type=f["FieldType"], dim=f.get("Dim"),
        is_primary_key=f.get("IsPrimaryKey"), default_value=f.get("DefaultValue")) for f in specs]


# ------------------------------------------------------------------ control plane

def test_control_plane_create_get_list_delete(emu):
    api = control_api(emu)
    specs = BASIC_FIELDS + [
        {"FieldName": "score", "FieldType": "float32", "DefaultValue": 0.5},
        {"FieldName": "ok", "FieldType": "bool"},
        {"FieldName": "tags", "FieldType": "list<string>"},
        {"FieldName": "nums", "FieldType": "list<int64>"},
        {"FieldName": "sparse", "FieldType": "sparse_vector"},
        {"FieldName": "body", "FieldType": "text"},
        {"FieldName": "at", "FieldType": "date_time"},
        {"FieldName": "where", "FieldType": "geo_point"},
    ]
    created = api.create_vikingdb_collection(vdb.CreateVikingdbCollectionRequest(
        project_name="default", collection_name="goods", description="shop goods",
        fields=sdk_fields(specs)))
    assert created.resource_id and created.message == "success"
    assert created.metadata().action == "CreateVikingdbCollection"

    got = api.get_vikingdb_collection(vdb.GetVikingdbCollectionRequest(
        project_name="default", collection_name="goods"))
    assert got.collection_name == "goods" and got.resource_id == created.resource_id
    assert got.description == "shop goods"
    types = {f.field_name: (f.field_type, f.dim, f.default_value) for f in got.fields}
    assert types["vec"] == ("vector", 4, None)
    assert types["city"] == ("string", None, "none")
    assert types["score"][0] == "float32" and types["where"][0] == "geo_point"
    assert got.collection_stats.data_count == 0

    for name in ("alpha", "beta", "goods_archive"):
        api.create_vikingdb_collection(vdb.CreateVikingdbCollectionRequest(
            collection_name=name, fields=sdk_fields(BASIC_FIELDS)))
    listed = api.list_vikingdb_collection(vdb.ListVikingdbCollectionRequest(
        project_name="default", page_number=1, page_size=2))
    assert listed.total_count == 4 and len(listed.collections) == 2
    assert [c.collection_name for c in listed.collections] == ["alpha", "beta"]
    filtered = api.list_vikingdb_collection(vdb.ListVikingdbCollectionRequest(
        filter=vdb.FilterForListVikingdbCollectionInput(collection_name_keyword="goods")))
    assert sorted(c.collection_name for c in filtered.collections) == ["goods", "goods_archive"]

    deleted = api.delete_vikingdb_collection(vdb.DeleteVikingdbCollectionRequest(
        project_name="default", collection_name="goods"))
    assert deleted.message == "success"
    with pytest.raises(ApiException) as exc:
        api.get_vikingdb_collection(vdb.GetVikingdbCollectionRequest(collection_name="goods"))
    assert exc.value.status == 404
    assert "NotFound.VikingdbCollection" in exc.value.body
    counters = emu.counters()["requests"]
    assert counters["CreateVikingdbCollection"] == 4 and counters["DeleteVikingdbCollection"] == 1


def test_control_plane_duplicate_and_invalid_schema(emu):
    api = control_api(emu)
    req = vdb.CreateVikingdbCollectionRequest(collection_name="dup", fields=sdk_fields(BASIC_FIELDS))
    api.create_vikingdb_collection(req)
    with pytest.raises(ApiException) as exc:
        api.create_vikingdb_collection(req)
    assert exc.value.status == 409 and "AlreadyExists.VikingdbCollection" in exc.value.body
    bad = vdb.CreateVikingdbCollectionRequest(collection_name="bad", fields=sdk_fields(
        [{"FieldName": "id", "FieldType": "string", "IsPrimaryKey": True},
         {"FieldName": "vec", "FieldType": "vector", "Dim": 6}]))
    with pytest.raises(ApiException) as exc:
        api.create_vikingdb_collection(bad)
    assert exc.value.status == 400 and "InvalidParameter" in exc.value.body


def test_control_plane_rejects_wrong_secret_key(emu):
    api = control_api(emu, sk="not-the-secret")
    with pytest.raises(ApiException) as exc:
        api.list_vikingdb_collection(vdb.ListVikingdbCollectionRequest())
    assert exc.value.status == 401 and "SignatureDoesNotMatch" in exc.value.body
    api = control_api(emu, ak="AKUNKNOWN")
    with pytest.raises(ApiException) as exc:
        api.list_vikingdb_collection(vdb.ListVikingdbCollectionRequest())
    assert exc.value.status == 401 and "InvalidAccessKey" in exc.value.body


def test_a_skewed_clock_is_refused_as_vikingdb_refuses_it(emu):
    emu.create_collection("goods", BASIC_FIELDS)
    row = {"id": "x", "vec": [0.1, 0.2, 0.3, 0.4], "price": 1}
    emu.configure(clock_offset_seconds=16 * 60)  # past the 15 minutes a signature is valid
    with pytest.raises(ApiException) as exc:
        control_api(emu).list_vikingdb_collection(vdb.ListVikingdbCollectionRequest())
    assert exc.value.status == 400 and "InvalidTimestamp" in exc.value.body
    with pytest.raises(VikingVectorException) as exc:
        data_client(emu, "ak_sk").collection(collection_name="goods").upsert(
            UpsertDataRequest(data=[row]), request_options=ONE_TRY)
    assert "InvalidTimestamp" in str(exc.value)
    # An API key signs nothing: its requests go through whatever the clock.
    data_client(emu, "api_key").collection(collection_name="goods").upsert(UpsertDataRequest(data=[row]))
    emu.configure(clock_offset_seconds=-14 * 60)  # within them, behind
    assert control_api(emu).list_vikingdb_collection(vdb.ListVikingdbCollectionRequest()).total_count == 1
    data_client(emu, "ak_sk").collection(collection_name="goods").upsert(UpsertDataRequest(data=[row]))
    assert emu.rows("goods")["count"] == 1


# ------------------------------------------------------------------ data plane

@pytest.mark.parametrize("auth_kind", ["api_key", "ak_sk"])
def test_data_plane_upsert_fetch_search_delete(emu, auth_kind):
    emu.create_collection("goods", BASIC_FIELDS, indexes=[{"IndexName": "idx", "Distance": "cosine"}])
    client = data_client(emu, auth_kind)
    coll = client.collection(collection_name="goods", project_name="default")
    rows = [{"id": f"g{i}", "vec": [1.0, float(i), 0.0, 0.5], "price": i * 10} for i in range(1, 11)]
    rows[0]["city"] = "北京"
    resp = coll.upsert(UpsertDataRequest(data=rows, ttl=0))
    assert resp.code == "Success" and resp.request_id

    fetched = coll.fetch(FetchDataInCollectionRequest(ids=["g1", "g2", "missing"]))
    items = {item.id: item.fields for item in fetched.result.items}
    assert items["g1"]["city"] == "北京" and items["g1"]["price"] == 10
    assert items["g2"]["city"] == "none"          # DefaultValue filled in
    assert fetched.result.ids_not_exist == ["missing"]

    index = client.index(collection_name="goods", index_name="idx")
    found = index.search_by_vector(SearchByVectorRequest(dense_vector=[1.0, 3.0, 0.0, 0.5], limit=3,
                                                         output_fields=["price"]))
    assert [d.id for d in found.result.data][0] == "g3"
    assert found.result.data[0].score == pytest.approx(1.0)
    assert found.result.data[0].fields == {"price": 30}
    scores = [d.score for d in found.result.data]
    assert scores == sorted(scores, reverse=True) and len(scores) == 3

    filtered = index.search_by_vector(SearchByVectorRequest(
        dense_vector=[1.0, 3.0, 0.0, 0.5], limit=10,
        filter={"op": "range", "field": "price", "gte": 50}))
    assert {d.id for d in filtered.result.data} == {f"g{i}" for i in range(5, 11)}

    coll.delete(DeleteDataRequest(ids=["g1", "g2"]))
    after = coll.fetch(FetchDataInCollectionRequest(ids=["g1", "g3"]))
    assert [i.id for i in after.result.items] == ["g3"] and after.result.ids_not_exist == ["g1"]
    assert emu.rows("goods")["count"] == 8

    coll.delete(DeleteDataRequest(delete_all=True))
    assert emu.rows("goods")["count"] == 0
    assert emu.counters()["auth"][auth_kind] >= 6


def test_data_plane_addresses_collection_by_resource_id(emu):
    created = emu.create_collection("goods", BASIC_FIELDS)
    coll = data_client(emu, "ak_sk").collection(resource_id=created["ResourceId"])
    coll.upsert(UpsertDataRequest(data=[{"id": "x", "vec": [0.1, 0.2, 0.3, 0.4], "price": 1}]))
    assert emu.rows("goods")["rows"][0]["id"] == "x"


def test_connection_log_sees_the_sdks_pooled_connection(emu):
    emu.create_collection("goods", BASIC_FIELDS)
    coll = data_client(emu, "api_key").collection(collection_name="goods")
    for i in range(3):
        coll.upsert(UpsertDataRequest(data=[{"id": f"g{i}", "vec": [0.1, 0.2, 0.3, 0.4]}]))
    log = emu.connections()
    assert sum(c["requests"] for c in log["connections"]) == sum(emu.counters()["requests"].values())
    assert log["opened"] == 1 and log["max_open"] == 1      # the SDK keeps its connection alive
    assert log["connections"][0]["span_seconds"] >= 0


def test_data_plane_errors_surface_in_sdk(emu):
    emu.create_collection("goods", BASIC_FIELDS)
    client = data_client(emu, "api_key")
    with pytest.raises(VikingVectorException) as exc:
        client.collection(collection_name="nope").upsert(
            UpsertDataRequest(data=[{"id": "a", "vec": [0, 0, 0, 1]}]), request_options=ONE_TRY)
    assert exc.value.code == "NotFound.VikingdbCollection" and exc.value.status_code == 404

    coll = client.collection(collection_name="goods")
    too_many = [{"id": f"r{i}", "vec": [0, 0, 0, 1]} for i in range(101)]
    with pytest.raises(VikingVectorException) as exc:
        coll.upsert(UpsertDataRequest(data=too_many), request_options=ONE_TRY)
    assert exc.value.code == "InvalidParameter" and exc.value.status_code == 400
    with pytest.raises(VikingVectorException) as exc:
        coll.upsert(UpsertDataRequest(data=[{"id": "a", "vec": [0, 0, 1]}]), request_options=ONE_TRY)
    assert exc.value.code == "InvalidParameter" and "dimension" in exc.value.message

    emu.set_credentials(api_keys=["rotated-key"])
    with pytest.raises(VikingVectorException) as exc:
        coll.upsert(UpsertDataRequest(data=[{"id": "a", "vec": [0, 0, 0, 1]}]), request_options=ONE_TRY)
    assert exc.value.code == "Unauthorized" and exc.value.status_code == 401


def test_sdk_retries_through_injected_5xx(emu):
    emu.create_collection("goods", BASIC_FIELDS)
    coll = data_client(emu, "api_key").collection(collection_name="goods")
    emu.inject_faults({"kind": "error", "status": 503, "count": 1, "match": "upsert"})
    coll.upsert(UpsertDataRequest(data=[{"id": "a", "vec": [0, 0, 0, 1]}]))   # 2nd attempt succeeds
    assert emu.counters()["responses"]["upsert"] == {"503": 1, "200": 1}
    assert emu.rows("goods")["count"] == 1


def test_vectorize_collection_end_to_end_with_both_sdks(emu):
    api = control_api(emu)
    api.create_vikingdb_collection(vdb.CreateVikingdbCollectionRequest(
        collection_name="docs",
        fields=sdk_fields([{"FieldName": "id", "FieldType": "int64", "IsPrimaryKey": True},
                           {"FieldName": "body", "FieldType": "text"}]),
        vectorize=vdb.VectorizeForCreateVikingdbCollectionInput(dense=vdb.DenseForCreateVikingdbCollectionInput(
            model_name="doubao-embedding", model_version="240715", text_field="body", dim=64))))
    got = api.get_vikingdb_collection(vdb.GetVikingdbCollectionRequest(collection_name="docs"))
    assert got.vectorize.dense.text_field == "body" and got.vectorize.dense.dim == 64
    api.create_vikingdb_index(vdb.CreateVikingdbIndexRequest(
        collection_name="docs", index_name="idx",
        vector_index=vdb.VectorIndexForCreateVikingdbIndexInput(index_type="hnsw", distance="cosine")))

    client = data_client(emu, "api_key")
    coll = client.collection(collection_name="docs")
    texts = {1: "red apples and green pears", 2: "vector databases store embeddings",
             3: "change data capture streams rows"}
    for pk, text in texts.items():
        resp = coll.upsert(UpsertDataRequest(data=[{"id": pk, "body": text}]))
        assert resp.result.token_usage["doubao-embedding__240715"]["prompt_tokens"] == len(text.split())
    with pytest.raises(VikingVectorException) as exc:
        coll.upsert(UpsertDataRequest(data=[{"id": 8, "body": "a"}, {"id": 9, "body": "b"}]),
                    request_options=ONE_TRY)
    assert exc.value.code == "InvalidParameter"

    hits = client.index(collection_name="docs", index_name="idx").search_by_multi_modal(
        SearchByMultiModalRequest(text="which databases store embeddings", limit=3))
    assert hits.result.data[0].id == 2
    assert emu.rows("docs")["count"] == 3


def test_a_restart_with_a_state_file_keeps_collections_rows_and_keys(tmp_path):
    # The server is stopped and started again on the same port: the collection, its rows and the
    # credentials are there after it, for both SDKs.
    with VikingDBEmulator(state_file=str(tmp_path / "vikingdb.state")) as emu:
        emu.create_collection("goods", BASIC_FIELDS)
        coll = data_client(emu, "api_key").collection(collection_name="goods", project_name="default")
        coll.upsert(UpsertDataRequest(data=[{"id": "g1", "vec": [1.0, 0.0, 0.0, 0.5], "price": 10}]))
        emu.restart()
        got = control_api(emu).get_vikingdb_collection(
            vdb.GetVikingdbCollectionRequest(project_name="default", collection_name="goods"))
        assert got.collection_name == "goods"
        coll = data_client(emu, "ak_sk").collection(collection_name="goods", project_name="default")
        fetched = coll.fetch(FetchDataInCollectionRequest(ids=["g1"]))
        assert [(i.id, i.fields["price"]) for i in fetched.result.items] == [("g1", 10)]
