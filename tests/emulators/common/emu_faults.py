"""Fault injection and per-action request counters shared by the MNS and OSS emulators.

A fault rule matches an action name (or "*") and fires for the next `count` matching
requests. Kinds: "error" (status/code/message given), "throttle" (the vendor's throttling
answer), "reset" (TCP RST, no HTTP answer), "delay" (sleep `delay_ms`, then serve normally).
"""
import asyncio
import socket
import struct
from collections import Counter
from dataclasses import dataclass, field

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
