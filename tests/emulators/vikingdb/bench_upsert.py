#!/usr/bin/env python3
"""Throughput check: N rows upserted in batches of 100 through the emulator.

    python3 bench_upsert.py [--rows 1000000] [--dim 8] [--concurrency 8] [--auth apikey|aksk]

Bodies are pre-serialised so the measurement is dominated by the server.
Bounded: sends exactly rows/100 requests and exits.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import aiohttp  # noqa: E402

from vdb_testenv import VikingDBEmulator  # noqa: E402
import vdb_signing as signing  # noqa: E402


def make_bodies(rows: int, dim: int, batch: int) -> list[bytes]:
    vec = [round(0.001 * i, 3) for i in range(dim)]
    bodies = []
    for start in range(0, rows, batch):
        data = [{"id": i, "title": f"row {i}", "price": i * 0.5, "ok": True, "vec": vec}
                for i in range(start + 1, min(rows, start + batch) + 1)]
        bodies.append(json.dumps({"collection_name": "bench", "data": data}).encode())
    return bodies


async def run(url: str, bodies: list[bytes], concurrency: int, auth: str) -> float:
    queue = list(reversed(bodies))
    path = "/api/vikingdb/data/upsert"

    def headers(body: bytes) -> dict:
        h = {"Content-Type": "application/json"}
        if auth == "apikey":
            h["Authorization"] = "Bearer test-api-key"
        else:
            x_date = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
            h.update(signing.sign_headers("AKTEST", "SKTEST", "cn-beijing", "vikingdb", "POST",
                                          path, "", h, body, x_date))
        return h

    async def worker(session):
        while queue:
            body = queue.pop()
            async with session.post(url + path, data=body, headers=headers(body)) as resp:
                if resp.status != 200:
                    raise RuntimeError(f"HTTP {resp.status}: {await resp.text()}")
                await resp.read()

    t0 = time.perf_counter()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency)) as session:
        await asyncio.gather(*(worker(session) for _ in range(concurrency)))
    return time.perf_counter() - t0


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--dim", type=int, default=8)
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--auth", choices=["apikey", "aksk"], default="apikey")
    a = p.parse_args()
    bodies = make_bodies(a.rows, a.dim, 100)
    with VikingDBEmulator() as emu:
        emu.create_collection("bench", [
            {"FieldName": "id", "FieldType": "int64", "IsPrimaryKey": True},
            {"FieldName": "title", "FieldType": "string"},
            {"FieldName": "price", "FieldType": "float32"},
            {"FieldName": "ok", "FieldType": "bool"},
            {"FieldName": "vec", "FieldType": "vector", "Dim": a.dim}])
        cpu0 = emu.server_cpu_seconds()
        secs = asyncio.run(run(emu.url, bodies, a.concurrency, a.auth))
        cpu = emu.server_cpu_seconds() - cpu0
        c = emu.counters()
        stored = emu.collection("bench")["CollectionStats"]["DataCount"]
    print(json.dumps({"rows": a.rows, "dim": a.dim, "seconds": round(secs, 2),
                      "rows_per_second": round(a.rows / secs),
                      # load-independent: rows per CPU-second the server itself spent
                      "rows_per_server_cpu_second": round(a.rows / cpu) if cpu > 0 else None,
                      "stored": stored,
                      "upsert_rows_histogram": c["upsert_rows_histogram"]}))


if __name__ == "__main__":
    main()
