"""Throttling, fault injection, counters, the /_emulator/ control API, throughput."""
from __future__ import annotations

import asyncio
import json
import time

import aiohttp
import pytest
import requests

from vdb_testenv import BASIC_FIELDS, EmulatorError
from vdb_wire import control_call, data_call, upsert

ROW = {"id": "a", "vec": [0, 0, 0, 1]}


def test_rate_limit_answers_429_on_each_plane(emu):
    emu.create_collection("t", BASIC_FIELDS)
    emu.throttle(qps=0.001, match="upsert", burst=2)
    assert upsert(emu, "t", [ROW]).status_code == 200
    assert upsert(emu, "t", [ROW]).status_code == 200
    limited = upsert(emu, "t", [ROW])
    assert limited.status_code == 429 and limited.json()["code"] == "RequestLimitExceeded"
    # Other actions are not limited by an upsert-only bucket.
    assert data_call(emu, "fetch_in_collection", {"collection_name": "t", "ids": ["a"]}).status_code == 200
    emu.throttle(qps=None, match="upsert")
    assert upsert(emu, "t", [ROW]).status_code == 200

    emu.throttle(qps=0.001, match="ListVikingdbCollection", burst=1)
    assert control_call(emu, "ListVikingdbCollection", {}).status_code == 200
    resp = control_call(emu, "ListVikingdbCollection", {})
    assert resp.status_code == 429
    assert resp.json()["ResponseMetadata"]["Error"]["Code"] == "FlowLimitExceeded"
    assert emu.counters()["throttled"] == 2


def test_injected_throttle_error_and_match(emu):
    emu.create_collection("t", BASIC_FIELDS)
    emu.inject_faults({"kind": "throttle", "count": 1, "match": "upsert"},
                      {"kind": "error", "status": 500, "count": 2, "plane": "data", "match": "delete"})
    assert data_call(emu, "fetch_in_collection", {"collection_name": "t", "ids": ["a"]}).status_code == 200
    assert upsert(emu, "t", [ROW]).status_code == 429
    assert upsert(emu, "t", [ROW]).status_code == 200
    for _ in range(2):
        resp = data_call(emu, "delete", {"collection_name": "t", "ids": ["a"]})
        assert resp.status_code == 500 and resp.json()["code"] == "InternalError"
    assert data_call(emu, "delete", {"collection_name": "t", "ids": ["a"]}).status_code == 200
    assert emu.control("GET", "faults")["faults"] == []
    c = emu.counters()
    assert c["faults_injected"] == 3
    assert c["responses"]["delete"] == {"500": 2, "200": 1}

    emu.inject_faults({"kind": "error", "status": 503, "count": 1, "plane": "control"})
    resp = control_call(emu, "GetVikingdbCollection", {"CollectionName": "t"})
    assert resp.status_code == 503
    assert resp.json()["ResponseMetadata"]["Error"]["Code"] == "ServiceUnavailable"


def test_connection_reset_and_delay(emu):
    emu.create_collection("t", BASIC_FIELDS)
    emu.inject_faults({"kind": "reset", "count": 1, "match": "upsert"})
    with pytest.raises(requests.ConnectionError):
        upsert(emu, "t", [ROW])
    assert emu.rows("t")["count"] == 0
    emu.inject_faults({"kind": "delay", "delay_ms": 300, "count": 1})
    t0 = time.monotonic()
    assert upsert(emu, "t", [ROW]).status_code == 200
    assert time.monotonic() - t0 >= 0.3
    assert emu.rows("t")["count"] == 1


def test_max_in_flight_counts_overlapping_requests(emu):
    emu.create_collection("t", BASIC_FIELDS)
    upsert(emu, "t", [ROW])
    upsert(emu, "t", [ROW])
    assert emu.counters()["max_in_flight"] == {"upsert": 1}   # one after the other
    emu.reset_counters()
    emu.inject_faults({"kind": "delay", "delay_ms": 500, "count": 3, "match": "upsert"})

    async def three_at_once():
        headers = {"Authorization": "Bearer test-api-key", "Content-Type": "application/json"}
        body = json.dumps({"collection_name": "t", "data": [ROW]}).encode()
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=3)) as session:
            async def one():
                async with session.post(emu.url + "/api/vikingdb/data/upsert", data=body,
                                        headers=headers) as resp:
                    assert resp.status == 200
            await asyncio.gather(one(), one(), one())

    asyncio.run(three_at_once())
    assert emu.counters()["max_in_flight"] == {"upsert": 3}
    data_call(emu, "delete", {"collection_name": "t", "ids": ["a"]})
    assert emu.counters()["max_in_flight"] == {"upsert": 3, "delete": 1}
    emu.reset_counters()
    assert emu.counters()["max_in_flight"] == {}


def test_counters_histogram_and_reset(emu):
    emu.create_collection("t", BASIC_FIELDS)
    batch = lambda n, off=0: [{"id": f"r{off + i}", "vec": [0, 0, 1, 0]} for i in range(n)]  # noqa: E731
    upsert(emu, "t", batch(100))
    upsert(emu, "t", batch(100, 100))
    upsert(emu, "t", batch(5, 200))
    data_call(emu, "delete", {"collection_name": "t", "ids": ["r0", "r1", "nope"]})
    data_call(emu, "upsert", {"collection_name": "t", "data": batch(101)})   # rejected: not in histogram
    c = emu.counters()
    assert c["upsert_rows_histogram"] == {"5": 1, "100": 2}
    assert c["rows_upserted"] == 205 and c["rows_deleted"] == 2
    assert c["delete_ids_histogram"] == {"2": 1}
    assert c["requests"]["upsert"] == 4 and c["responses"]["upsert"] == {"200": 3, "400": 1}
    emu.reset_counters()
    assert emu.counters()["requests"] == {}
    assert emu.rows("t")["count"] == 203          # counters reset keeps data


def test_control_api_state_and_credentials(emu):
    created = emu.create_collection("t", BASIC_FIELDS, project_name="proj")
    assert created["ProjectName"] == "proj"
    with pytest.raises(EmulatorError) as exc:
        emu.create_collection("t", BASIC_FIELDS, project_name="proj")
    assert exc.value.status == 409
    ok = data_call(emu, "upsert", {"collection_name": "t", "project_name": "proj", "data": [ROW]})
    assert ok.status_code == 200
    assert data_call(emu, "upsert", {"collection_name": "t", "data": [ROW]}).status_code == 404
    assert [c["CollectionName"] for c in emu.collections()] == ["t"]
    assert emu.rows("t", project_name="proj")["rows"][0]["fields"]["city"] == "none"

    emu.set_credentials(api_keys=["k2"], access_keys={"AK2": "SK2"})
    assert data_call(emu, "upsert", {"collection_name": "t", "project_name": "proj", "data": [ROW]},
                     api_key="k2").status_code == 200
    assert data_call(emu, "upsert", {"collection_name": "t", "project_name": "proj", "data": [ROW]}
                     ).status_code == 401
    assert control_call(emu, "ListVikingdbCollection", {}).status_code == 401
    assert control_call(emu, "ListVikingdbCollection", {"ProjectName": "proj"}, ak="AK2", sk="SK2"
                        ).json()["Result"]["TotalCount"] == 1

    emu.reset()
    assert emu.collections() == []
    assert emu.control("GET", "credentials")["api_keys"] == ["k2"]     # reset keeps credentials
    emu.reset(credentials=True)
    assert emu.control("GET", "credentials")["api_keys"] == ["test-api-key"]
    with pytest.raises(EmulatorError):
        emu.configure(no_such_setting=1)
    assert requests.get(emu.url + "/_emulator/nothing", timeout=5).status_code == 404


def test_vendor_paths_do_not_reach_control_api(emu):
    resp = requests.post(emu.url + "/api/vikingdb/data/_emulator/reset", data=b"{}",
                         headers={"Authorization": "Bearer test-api-key"}, timeout=5)
    assert resp.status_code == 404 and resp.json()["code"] == "NotFound"
    assert requests.get(emu.url + "/api/vikingdb/Ping", timeout=5).status_code == 200


def test_concurrent_batches_of_100_are_stored_and_counted_as_batches(emu):
    """20k rows in 200 upserts of 100 over 4 connections at once: every row is stored and the
    histogram counts 200 requests of 100 rows. How fast the emulator absorbs them is a figure of
    bench/vikingdb (its CPU seconds beside cdcd's), not a timed assertion here."""
    emu.create_collection("bench", [{"FieldName": "id", "FieldType": "int64", "IsPrimaryKey": True},
                                    {"FieldName": "title", "FieldType": "string"},
                                    {"FieldName": "vec", "FieldType": "vector", "Dim": 8}])
    vec = [0.125] * 8
    bodies = [json.dumps({"collection_name": "bench", "data": [
        {"id": i, "title": f"row {i}", "vec": vec} for i in range(b * 100 + 1, b * 100 + 101)]}).encode()
        for b in range(200)]

    async def send_all():
        headers = {"Authorization": "Bearer test-api-key", "Content-Type": "application/json"}
        queue = list(bodies)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=4)) as session:
            async def worker():
                while queue:
                    async with session.post(emu.url + "/api/vikingdb/data/upsert", data=queue.pop(),
                                            headers=headers) as resp:
                        assert resp.status == 200
                        await resp.read()
            await asyncio.gather(*(worker() for _ in range(4)))

    asyncio.run(send_all())
    assert emu.collection("bench")["CollectionStats"]["DataCount"] == 20000
    assert emu.counters()["upsert_rows_histogram"] == {"100": 200}
