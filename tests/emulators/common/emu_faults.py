"""Fault injection and per-action request counters shared by the MNS and OSS emulators.

A fault rule matches an action name (or "*") and fires for the next `count` matching
requests. Kinds: "error" (status/code/message given), "throttle" (the vendor's throttling
answer), "reset" (TCP RST, no HTTP answer), "delay" (sleep `delay_ms`, then serve normally),
"oversize" (a 200 answer of `size` filler bytes, at most 1 GiB, streamed in 64 KiB writes:
chunked without a length, or with its Content-Length announced when `chunked` is false; the
stream ends early when the client hangs up). An "oversize" rule with `chunk_delay_ms` is a slow
body: it sleeps that long before each 64 KiB write, and a client that hangs up mid-body is
counted as `<action>:hung-up` (how a test sees a download cancelled). The vendor's error answers
are built by each emulator (see `play`).
"""
import asyncio
import socket
import struct
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

from aiohttp import web

from emulator_server import json_body

FAULT_KINDS = ("error", "throttle", "reset", "delay", "oversize")
OVERSIZE_CHUNK = 64 * 1024
OVERSIZE_MAX = 1 << 30


@dataclass
class FaultRule:
    action: str
    kind: str
    count: int = 1
    status: int | None = None
    code: str | None = None
    message: str | None = None
    delay_ms: int = 0
    size: int = 64 << 20
    chunked: bool = True
    chunk_delay_ms: int = 0
    fired: int = field(default=0)

    def to_json(self) -> dict:
        return {"action": self.action, "kind": self.kind, "remaining": self.count,
                "status": self.status, "code": self.code, "message": self.message,
                "delay_ms": self.delay_ms, "size": self.size, "chunked": self.chunked,
                "chunk_delay_ms": self.chunk_delay_ms, "fired": self.fired}


class FaultInjector:
    def __init__(self) -> None:
        self.rules: list[FaultRule] = []
        self.counters: Counter[str] = Counter()

    def reset(self) -> None:
        self.rules.clear()
        self.counters.clear()

    def add(self, spec: dict) -> FaultRule:
        kind = spec.get("kind", "error")
        if kind not in FAULT_KINDS:
            raise ValueError(f"kind must be one of {FAULT_KINDS}")
        count = int(spec.get("count", 1))
        if count < 1:
            raise ValueError("count must be >= 1")
        size = int(spec.get("size", 64 << 20))
        if not 0 <= size <= OVERSIZE_MAX:
            raise ValueError(f"size must be in 0..{OVERSIZE_MAX}")
        rule = FaultRule(action=spec.get("action", "*"), kind=kind, count=count,
                         status=spec.get("status"), code=spec.get("code"),
                         message=spec.get("message"), delay_ms=int(spec.get("delay_ms", 0)),
                         size=size, chunked=bool(spec.get("chunked", True)),
                         chunk_delay_ms=max(0, int(spec.get("chunk_delay_ms", 0))))
        self.rules.append(rule)
        return rule

    def count(self, action: str) -> None:
        self.counters[action] += 1

    def take(self, action: str) -> FaultRule | None:
        """Consume one shot of the first rule matching `action` (rules fire in insertion order)."""
        for rule in self.rules:
            if rule.action in ("*", action) and rule.count > 0:
                rule.count -= 1
                rule.fired += 1
                if rule.count == 0:
                    self.rules.remove(rule)
                return rule
        return None


def reset_connection(request) -> None:
    """Abort the client connection with an RST (SO_LINGER 0) so clients see ECONNRESET."""
    transport = request.transport
    if transport is None:
        return
    sock = transport.get_extra_info("socket")
    if sock is not None:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
    transport.abort()


async def apply_delay(rule: FaultRule) -> None:
    await asyncio.sleep(max(0, rule.delay_ms) / 1000.0)


async def send_oversized(rule: FaultRule, request,
                         on_hangup: Callable[[], None] | None = None) -> web.StreamResponse:
    """Streams the "oversize" answer: rule.size filler bytes in 64 KiB writes (a bounded loop),
    each after `chunk_delay_ms` when the rule has one; `on_hangup()` when the client hangs up."""
    chunk_delay = getattr(rule, "chunk_delay_ms", 0) / 1000.0
    response = web.StreamResponse(status=200, headers={"Content-Type": "application/xml"})
    if rule.chunked:
        response.enable_chunked_encoding()
    else:
        response.content_length = rule.size
    await response.prepare(request)
    filler = b"x" * OVERSIZE_CHUNK
    left = rule.size
    try:
        while left > 0:
            if chunk_delay:
                await asyncio.sleep(chunk_delay)
            n = min(left, OVERSIZE_CHUNK)
            await response.write(filler[:n])
            left -= n
        await response.write_eof()
    except ConnectionError:
        # The client stopped reading at its limit (or its time limit) and hung up: what the
        # fault is for.
        if on_hangup:
            on_hangup()
    return response


async def play(faults: FaultInjector, action: str, request,
               throttled: Callable[[FaultRule], Exception],
               failed: Callable[[FaultRule], Exception]) -> web.StreamResponse | None:
    """Counts a request for `action` and plays the next rule matching it: "reset" aborts the
    connection and raises ConnectionResetError, "delay" sleeps and returns, "throttle" and "error"
    raise the vendor error that `throttled(rule)` and `failed(rule)` build, "oversize" sends its
    answer and returns it (the handler returns it in place of its own)."""
    faults.count(action)
    rule = faults.take(action)
    if rule is None:
        return None
    if rule.kind == "oversize":
        return await send_oversized(rule, request, lambda: faults.count(action + ":hung-up"))
    if rule.kind == "reset":
        reset_connection(request)
        raise ConnectionResetError("injected reset")
    if rule.kind == "delay":
        await apply_delay(rule)
    elif rule.kind == "throttle":
        raise throttled(rule)
    else:
        raise failed(rule)


def add_control_routes(routes: web.RouteTableDef, faults: FaultInjector, prefix: str) -> None:
    """The control API of the rules and counters: POST/GET/DELETE `prefix`/faults (a rule, or
    {"faults": [rules]}), GET/DELETE `prefix`/counters."""

    @routes.post(prefix + "/faults")
    async def add_fault(request):
        body = await json_body(request)
        specs = body["faults"] if "faults" in body else [body]
        return web.json_response({"faults": [faults.add(s).to_json() for s in specs]})

    @routes.get(prefix + "/faults")
    async def list_faults(request):
        return web.json_response({"faults": [r.to_json() for r in faults.rules]})

    @routes.delete(prefix + "/faults")
    async def clear_faults(request):
        faults.rules.clear()
        return web.json_response({"ok": True})

    @routes.get(prefix + "/counters")
    async def counters(request):
        return web.json_response({"counters": dict(faults.counters)})

    @routes.delete(prefix + "/counters")
    async def clear_counters(request):
        faults.counters.clear()
        return web.json_response({"ok": True})
