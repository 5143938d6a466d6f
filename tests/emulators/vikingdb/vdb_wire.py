"""Plain-HTTP helpers for the wire tests: signed or API-key requests to either plane."""
from __future__ import annotations

import json
import time

import requests

import vdb_signing as signing
from vdb_testenv import AK, API_KEY, SK

DATA = "/api/vikingdb/data/"


def body_bytes(body) -> bytes:
    return body if isinstance(body, bytes) else json.dumps(body).encode()


def data_call(emu, op: str, body, auth: str = "api_key", api_key: str = API_KEY,
              timeout: float = 10.0) -> requests.Response:
    raw = body_bytes(body)
    headers = {"Content-Type": "application/json"}
    path = DATA + op
    if auth == "api_key":
        headers["Authorization"] = f"Bearer {api_key}"
    elif auth == "ak_sk":
        x_date = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        headers.update(signing.sign_headers(AK, SK, "cn-beijing", "vikingdb", "POST", path, "",
                                            headers, raw, x_date))
    return requests.post(emu.url + path, data=raw, headers=headers, timeout=timeout)


def control_call(emu, action: str, body, ak: str = AK, sk: str = SK, version: str = "2025-06-09",
                 x_date: str | None = None) -> requests.Response:
    raw = body_bytes(body)
    query = f"Action={action}&Version={version}"
    headers = {"Content-Type": "application/json", "Host": emu.host}
    x_date = x_date or time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    headers.update(signing.sign_headers(ak, sk, "cn-beijing", "vikingdb", "POST", "/", query,
                                        headers, raw, x_date))
    return requests.post(f"{emu.url}/?{query}", data=raw, headers=headers, timeout=10)


def upsert(emu, collection: str, rows, **extra) -> requests.Response:
    return data_call(emu, "upsert", {"collection_name": collection, "data": rows, **extra})
