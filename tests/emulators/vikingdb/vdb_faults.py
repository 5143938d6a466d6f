"""Fault injection, throttling and request counters.

Faults are queued through /_emulator/faults and consumed FIFO, one per matching
vendor request: `error` answers with an HTTP status + envelope, `reset` aborts
the TCP connection with RST, `delay` sleeps then serves normally, `throttle`
answers 429 like VikingDB's rate limiter, `oversize` answers 200 with `size` filler bytes
(at most 1 GiB; common/emu_faults.py streams them). A token bucket per action gives
sustained throttling (`/_emulator/throttle`).
"""
from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass

from vdb_errors import ApiError, invalid

FAULT_KINDS = {"error", "reset", "delay", "throttle", "oversize"}
OVERSIZE_MAX = 1 << 30
# Throttle codes: the V2 data-plane code set has RequestLimitExceeded; the control
# plane sits behind the Volcengine OpenAPI gateway whose code is FlowLimitExceeded.
THROTTLE_CODES = {"data": "RequestLimitExceeded", "control": "FlowLimitExceeded"}
STATUS_CODES = {500: "InternalError", 502: "BadGateway", 503: "ServiceUnavailable",
                504: "Timeout", 429: "RequestLimitExceeded"}


@dataclass
class Fault:
    kind: str
    remaining: int
    status: int = 503
    code: str | None = None
    message: str | None = None
    delay_ms: int = 0
    match: str | None = None      # counter name (e.g. "upsert", "GetVikingdbCollection"); None = any
    plane: str | None = None      # "data" | "control" | None = both
    size: int = 64 << 20          # oversize: the answer's bytes
    chunked: bool = True          # oversize: no Content-Length

    def matches(self, name: str, plane: str) -> bool:
        return (self.match is None or self.match == name) and (self.plane is None or self.plane == plane)

    def to_json(self) -> dict:
        return dict(self.__dict__)


def parse_fault(raw: dict) -> Fault:
    if not isinstance(raw, dict):
        raise invalid("fault must be an object")
    kind = raw.get("kind", "error")
    if kind not in FAULT_KINDS:
        raise invalid(f"fault kind must be one of {sorted(FAULT_KINDS)}")
    count = raw.get("count", 1)
    if type(count) is not int or not 1 <= count <= 1_000_000:
        raise invalid("fault count must be 1..1000000")
    status = raw.get("status", 429 if kind == "throttle" else 503)
    if type(status) is not int or not 400 <= status <= 599:
        raise invalid("fault status must be an HTTP error status")
    delay = raw.get("delay_ms", 0)
    if type(delay) is not int or not 0 <= delay <= 600_000:
        raise invalid("delay_ms must be 0..600000")
    plane = raw.get("plane")
    if plane not in (None, "data", "control"):
        raise invalid("plane must be data, control or absent")
    size = raw.get("size", 64 << 20)
    if type(size) is not int or not 0 <= size <= OVERSIZE_MAX:
        raise invalid(f"size must be 0..{OVERSIZE_MAX}")
    return Fault(kind, count, status, raw.get("code"), raw.get("message"), delay,
                 raw.get("match"), plane, size, bool(raw.get("chunked", True)))


class TokenBucket:
    def __init__(self, qps: float, burst: float):
        self.qps, self.burst = qps, burst
        self.tokens, self.stamp = burst, time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.qps)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class FaultInjector:
    def __init__(self):
        self.queue: list[Fault] = []
        self.buckets: dict[str, TokenBucket] = {}   # counter name or "*" -> bucket

    def reset(self) -> None:
        self.queue.clear()
        self.buckets.clear()

    def take(self, name: str, plane: str) -> Fault | None:
        if not self.queue:
            return None
        for i, f in enumerate(self.queue):
            if f.matches(name, plane):
                f.remaining -= 1
                if f.remaining <= 0:
                    del self.queue[i]
                return f
        return None

    def throttled(self, name: str) -> bool:
        if not self.buckets:
            return False
        for key in (name, "*"):
            b = self.buckets.get(key)
            if b is not None and not b.take():
                return True
        return False

    def set_throttle(self, match: str, qps: float | None, burst: float | None) -> None:
        if qps is None:
            self.buckets.pop(match, None)
            return
        if not isinstance(qps, (int, float)) or qps <= 0:
            raise invalid("qps must be a positive number")
        self.buckets[match] = TokenBucket(float(qps), float(burst or max(1.0, qps)))


def throttle_error(plane: str, code: str | None = None, message: str | None = None) -> ApiError:
    return ApiError(429, code or THROTTLE_CODES[plane],
                    message or "The request was throttled: the request rate exceeds the quota.")


def fault_error(f: Fault, plane: str) -> ApiError:
    if f.kind == "throttle":
        return throttle_error(plane, f.code, f.message)
    return ApiError(f.status, f.code or STATUS_CODES.get(f.status, "InternalError"),
                    f.message or "Injected fault from the emulator.")


class Counters:
    def __init__(self):
        self.reset()

    def reset(self) -> None:
        self.requests: dict[str, int] = defaultdict(int)
        self.responses: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
        self.upsert_rows_histogram: dict[int, int] = defaultdict(int)
        self.delete_ids_histogram: dict[int, int] = defaultdict(int)
        self.auth: dict[str, int] = defaultdict(int)
        self.rows_upserted = 0
        self.rows_deleted = 0
        self.async_upserts = 0
        self.faults_injected = 0
        self.throttled = 0
        # Most data-plane requests of one name being served at once (delays included) since the
        # reset: shows whether a client overlaps its requests.
        self.max_in_flight: dict[str, int] = defaultdict(int)

    def to_json(self) -> dict:
        return {
            "requests": dict(self.requests),
            "responses": {k: {str(s): n for s, n in v.items()} for k, v in self.responses.items()},
            "upsert_rows_histogram": {str(k): v for k, v in sorted(self.upsert_rows_histogram.items())},
            "delete_ids_histogram": {str(k): v for k, v in sorted(self.delete_ids_histogram.items())},
            "auth": dict(self.auth),
            "rows_upserted": self.rows_upserted,
            "rows_deleted": self.rows_deleted,
            "async_upserts": self.async_upserts,
            "faults_injected": self.faults_injected,
            "throttled": self.throttled,
            "max_in_flight": dict(self.max_in_flight),
        }
