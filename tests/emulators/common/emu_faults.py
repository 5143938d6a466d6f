"""Fault injection and per-action request counters shared by the MNS and OSS emulators.

A fault rule matches an action name (or "*") and fires for the next `count` matching
requests. Kinds: "error" (status/code/message given), "throttle" (the vendor's throttling
answer), "reset" (TCP RST, no HTTP answer), "delay" (sleep `delay_ms`, then serve normally).
The vendor's error answers are built by each emulator (see `play`).
"""
import asyncio
import socket
import struct
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

from aiohttp import web

from emulator_server import json_body

FAULT_KINDS = ("error", "throttle", "reset", "delay")


@dataclass
class FaultRule:
    action: str
    kind: str
    count: int = 1
    status: int | None = None
    code: str | None = None
    message: str | None = None
    delay_ms: int = 0
    fired: int = field(default=0)

    def to_json(self) -> dict:
        return {"action": self.action, "kind": self.kind, "remaining": self.count,
                "status": self.status, "code": self.code, "message": self.message,
                "delay_ms": self.delay_ms, "fired": self.fired}


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
        rule = FaultRule(action=spec.get("action", "*"), kind=kind, count=count,
                         status=spec.get("status"), code=spec.get("code"),
                         message=spec.get("message"), delay_ms=int(spec.get("delay_ms", 0)))
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


async def play(faults: FaultInjector, action: str, request,
               throttled: Callable[[FaultRule], Exception], failed: Callable[[FaultRule], Exception]) -> None:
    """Counts a request for `action` and plays the next rule matching it: "reset" aborts the
    connection and raises ConnectionResetError, "delay" sleeps and returns, "throttle" and "error"
    raise the vendor error that `throttled(rule)` and `failed(rule)` build."""
    faults.count(action)
    rule = faults.take(action)
    if rule is None:
        return
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
