#!/usr/bin/env python3
"""VikingDB (V2, 2025 API) emulator: one aiohttp server, both planes, one port.

Routing (by path, then query):
  GET|POST /api/vikingdb/Ping                 health check, unauthenticated
  POST     /api/vikingdb/data/<op>            data plane (Bearer API key or V4 AK/SK)
  POST     /?Action=<Action>&Version=2025-06-09  control plane (V4 AK/SK only)
  *        /_emulator/...                     test control API (see emulator_api.py)

Usage: python3 server.py [--port 0] [--host 127.0.0.1]
Prints "LISTENING <port>" as its first stdout line, serves until SIGTERM/SIGINT.
"""
from __future__ import annotations

import asyncio
import json
import os
import socket
import struct
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.join(os.path.dirname(HERE), "common"))  # emulator_server

from aiohttp import web  # noqa: E402

try:  # orjson parses float-heavy upsert bodies ~2x faster; stdlib json is the fallback.
    import orjson as _fastjson  # noqa: E402
except ImportError:  # pragma: no cover
    _fastjson = None

import emulator_server  # noqa: E402
from emu_faults import send_oversized  # noqa: E402
from emulator_state_file import Persistence, restore_in_place  # noqa: E402
import vdb_auth as auth  # noqa: E402
import vdb_control_plane as control_plane  # noqa: E402
import vdb_data_plane as data_plane  # noqa: E402
import vdb_emulator_api as emulator_api  # noqa: E402
from vdb_errors import (ApiError, control_error, control_ok, data_error, data_ok,  # noqa: E402
                    invalid, new_request_id)
from vdb_connections import ConnectionLog  # noqa: E402
from vdb_faults import Counters, FaultInjector, fault_error, throttle_error  # noqa: E402
from vdb_schema import Limits  # noqa: E402
from vdb_store import Store  # noqa: E402

DATA_PREFIX = "/api/vikingdb/data/"
PING_PATH = "/api/vikingdb/Ping"
MAX_BODY = 256 * 1024 * 1024     # 100 rows of 4096-dim vectors exceed aiohttp's 1 MiB default


class State:
    def __init__(self):
        self.store = Store(Limits())
        self.credentials = auth.Credentials()
        self.faults = FaultInjector()
        self.counters = Counters()
        self.connections = ConnectionLog()

    def reset(self, credentials: bool = False) -> None:
        self.store = Store(Limits())
        self.faults.reset()
        self.counters.reset()
        self.connections.reset()
        if credentials:
            self.credentials = auth.Credentials()
        self.credentials.clock_offset_seconds = 0.0


def _dump(obj) -> bytes:
    if _fastjson is not None:
        return _fastjson.dumps(obj)
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


def _loads(raw: bytes):
    if _fastjson is not None:
        return _fastjson.loads(raw)
    return json.loads(raw)


def _response(obj, status: int, request_id: str) -> web.Response:
    return web.Response(body=_dump(obj), status=status, content_type="application/json",
                        headers={"X-Tt-Logid": request_id})


def _reset_connection(request: web.Request) -> web.Response:
    """Abort with TCP RST (SO_LINGER 0) so clients see ECONNRESET, not a clean close."""
    transport = request.transport
    if transport is not None:
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()
    return web.Response(status=500)


def _parse_body(raw: bytes) -> dict:
    try:
        body = _loads(raw) if raw else {}
    except (ValueError, UnicodeDecodeError):  # orjson.JSONDecodeError is a ValueError
        raise invalid("the request body is not valid JSON") from None
    if not isinstance(body, dict):
        raise invalid("the request body must be a JSON object")
    return body


class App:
    def __init__(self):
        self.state = State()
        self.in_flight: dict[str, int] = defaultdict(int)  # data-plane requests being served now

    async def dispatch(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        if path.startswith("/_emulator/"):
            return await emulator_api.handle(self.state, request)
        self.state.connections.seen(request.transport)
        if path == PING_PATH:
            self.state.counters.requests["Ping"] += 1
            return _response(data_ok(new_request_id()), 200, new_request_id())
        if path.startswith(DATA_PREFIX):
            return await self.data_request(request, path[len(DATA_PREFIX):])
        if path == "/" and "Action" in request.query:
            return await self.control_request(request)
        rid = new_request_id()
        return _response(data_error(rid, ApiError(404, "NotFound", f"no API at {request.method} {path}")), 404, rid)

    async def _pre(self, request, name: str, plane: str):
        """Counting, throttling and injected faults, before authentication."""
        st = self.state
        st.counters.requests[name] += 1
        if st.faults.throttled(name):
            st.counters.throttled += 1
            raise throttle_error(plane)
        fault = st.faults.take(name, plane)
        if fault is None:
            return None
        st.counters.faults_injected += 1
        if fault.kind == "delay":
            await asyncio.sleep(fault.delay_ms / 1000.0)
            return None
        if fault.kind in ("reset", "oversize"):
            return fault
        raise fault_error(fault, plane)

    async def data_request(self, request: web.Request, op: str) -> web.StreamResponse:
        st = self.state
        rid = request.headers.get("X-Tt-Logid") or new_request_id()
        handler = data_plane.ROUTES.get(op)
        name = op if handler else "unknown"
        self.in_flight[name] += 1
        peak = st.counters.max_in_flight
        peak[name] = max(peak[name], self.in_flight[name])
        try:
            return await self._data_request(request, op, name, handler, rid)
        finally:
            self.in_flight[name] -= 1

    async def _data_request(self, request: web.Request, op: str, name: str, handler, rid: str
                            ) -> web.StreamResponse:
        st = self.state
        status = 200
        try:
            if handler is None:
                raise ApiError(404, "NotFound", f"no data-plane API /api/vikingdb/data/{op}")
            if request.method != "POST":
                raise ApiError(405, "InvalidParameter", "data-plane APIs accept POST only")
            fault = await self._pre(request, name, "data")
            if fault is not None and fault.kind == "reset":
                return _reset_connection(request)
            if fault is not None:
                return await send_oversized(fault, request)
            raw = await request.read()
            who = auth.authenticate_data(st.credentials, request.method, request.raw_path.split("?", 1)[0],
                                         request.query_string, request.headers, raw)
            st.counters.auth[who.method] += 1
            ctx: dict = {}
            result = handler(st.store, _parse_body(raw), ctx)
            self._count_rows(op, ctx)
            out = data_ok(rid, result)
        except ApiError as e:
            status = e.status
            out = data_error(rid, e)
        st.counters.responses[name][status] += 1
        return _response(out, status, rid)

    def _count_rows(self, op: str, ctx: dict) -> None:
        c = self.state.counters
        if op == "upsert":
            c.upsert_rows_histogram[ctx["rows"]] += 1
            c.rows_upserted += ctx["rows"]
            c.async_upserts += 1 if ctx.get("async") else 0
        elif op == "delete":
            c.delete_ids_histogram[ctx["rows"]] += 1
            c.rows_deleted += ctx["rows"]

    async def control_request(self, request: web.Request) -> web.StreamResponse:
        st = self.state
        rid = new_request_id()
        action = request.query.get("Action", "")
        region = "cn-beijing"
        handler = control_plane.ACTIONS.get(action)
        name = action if handler else "unknown"
        status = 200
        try:
            fault = await self._pre(request, name, "control")
            if fault is not None and fault.kind == "reset":
                return _reset_connection(request)
            if fault is not None:
                return await send_oversized(fault, request)
            raw = await request.read()
            who = auth.authenticate_control(st.credentials, request.method, request.raw_path.split("?", 1)[0],
                                            request.query_string, request.headers, raw)
            region = who.region
            st.counters.auth[who.method] += 1
            if handler is None or request.query.get("Version") != control_plane.VERSION:
                raise ApiError(404, "InvalidActionOrVersion",
                               f"Could not find operation {action} for version {request.query.get('Version')}.")
            if request.method != "POST":
                raise ApiError(405, "InvalidParameter", "control-plane actions accept POST only")
            out = control_ok(rid, action, region, handler(st.store, _parse_body(raw)))
        except ApiError as e:
            status = e.status
            out = control_error(rid, action, region, e)
        st.counters.responses[name][status] += 1
        return _response(out, status, rid)


def build_app() -> web.Application:
    emu = App()
    app = web.Application(client_max_size=MAX_BODY)
    app["emulator"] = emu
    app.router.add_route("*", "/{tail:.*}", emu.dispatch)
    return app


def _export(app: web.Application):
    st = app["emulator"].state
    return {"store": st.store, "credentials": st.credentials}


def _restore(app: web.Application, data) -> None:
    st = app["emulator"].state
    restore_in_place(st.store, data["store"])
    restore_in_place(st.credentials, data["credentials"])


# Collections, their rows and indexes, and the credentials survive a restart; faults, throttles
# and counters do not.
PERSISTENCE = Persistence(export=_export, restore=_restore)


def main() -> None:
    emulator_server.main(build_app, __doc__.splitlines()[0], backlog=1024, persistence=PERSISTENCE)


if __name__ == "__main__":
    main()
