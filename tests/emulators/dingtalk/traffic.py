"""Request accounting and the test's levers on traffic: counters, a per-endpoint rate log,
QPS limits, one-shot faults and "change the data between two requests" hooks.

Endpoint names are the SDK action names: GetAccessToken, ListWorkspaces, GetWorkspace,
ListNodes, GetNode, DocBlocksQuery.
"""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

ENDPOINTS = ("GetAccessToken", "ListWorkspaces", "GetWorkspace", "ListNodes", "GetNode",
             "DocBlocksQuery")
FAULT_KINDS = ("status", "reset", "delay", "throttle")
RATE_LOG_CAP = 200_000  # per endpoint; bounded memory even on long benchmarks


@dataclass
class Limit:
    qps: float
    scope: str  # "app" -> QpsLimitForAppkeyAndApi, "api" -> QpsLimitForApi (global)
    status: int  # 403 (DingTalk's usual) or 429 (systemBusy)
    retry_after: float | None
    window_s: float = 1.0  # 60 -> a per-minute (QPM) budget of `qps` requests
    accepted: dict = field(default_factory=dict)  # bucket key -> deque of accept times

    def code(self) -> str:
        if self.status == 429:
            return "systemBusy"
        if self.window_s >= 60:
            return "Forbidden.AccessDenied.QpmLimitForAppkeyAndApi"
        return ("Forbidden.AccessDenied.QpsLimitForAppkeyAndApi" if self.scope == "app"
                else "Forbidden.AccessDenied.QpsLimitForApi")

    def admit(self, app_key: str, now: float) -> bool:
        """Sliding window over accepted requests (DingTalk's QPS windows are 1 s)."""
        bucket = self.accepted.setdefault(app_key if self.scope == "app" else "*", deque())
        while bucket and bucket[0] <= now - self.window_s:
            bucket.popleft()
        if len(bucket) >= self.qps:
            return False
        bucket.append(now)
        return True


@dataclass
class Fault:
    endpoint: str
    kind: str
    remaining: int
    skip: int = 0  # let this many matching requests pass first
    key: str | None = None  # nodeId / docKey / parentNodeId filter
    status: int = 500
    code: str = "systemError"
    message: str = "系统错误"
    delay_ms: int = 0
    retry_after: float | None = None


@dataclass
class Hook:
    endpoint: str
    key: str | None
    after: int  # fire after this many matching successful requests
    action: dict
    fired: bool = False
    error: str | None = None  # why the action could not be applied, if it failed


class Traffic:
    def __init__(self):
        self.counters: dict[str, dict] = {}
        self.rate_log: dict[str, deque] = {}
        self.limits: dict[str, Limit] = {}
        self.faults: list[Fault] = []
        self.hooks: list[Hook] = []

    # ---- accounting ----------------------------------------------------------------
    def record(self, endpoint: str, status: int, key: str | None, started: float) -> None:
        counter = self.counters.setdefault(endpoint, {"total": 0, "byStatus": {}})
        counter["total"] += 1
        counter["byStatus"][str(status)] = counter["byStatus"].get(str(status), 0) + 1
        log = self.rate_log.setdefault(endpoint, deque(maxlen=RATE_LOG_CAP))
        log.append((started, status, key))

    def log_json(self, endpoint: str | None) -> dict:
        names = [endpoint] if endpoint else list(self.rate_log)
        return {name: [{"t": round(t, 6), "status": s, "key": k}
                       for t, s, k in self.rate_log.get(name, ())] for name in names}

    def clear_log(self) -> None:
        self.counters.clear()
        self.rate_log.clear()

    # ---- configuration -------------------------------------------------------------
    def set_limit(self, endpoint: str, qps: float | None, scope: str = "app", status: int = 403,
                  retry_after: float | None = None, per_minute: bool = False) -> None:
        check_endpoint(endpoint)
        if qps is None:
            self.limits.pop(endpoint, None)
            return
        if scope not in ("app", "api") or status not in (403, 429) or qps <= 0:
            raise ValueError("scope must be app|api, status 403|429, qps > 0")
        self.limits[endpoint] = Limit(float(qps), scope, status, retry_after,
                                      60.0 if per_minute else 1.0)

    def add_fault(self, spec: dict) -> Fault:
        endpoint = spec.get("endpoint", "")
        check_endpoint(endpoint)
        kind = spec.get("kind", "status")
        if kind not in FAULT_KINDS:
            raise ValueError(f"kind must be one of {FAULT_KINDS}")
        fault = Fault(endpoint, kind, int(spec.get("count", 1)), int(spec.get("skip", 0)),
                      spec.get("key"), int(spec.get("status", 500)),
                      spec.get("code", "systemError"), spec.get("message", "系统错误"),
                      int(spec.get("delayMs", 0)), spec.get("retryAfter"))
        if kind == "throttle":
            fault.status = int(spec.get("status", 403))
            fault.code = spec.get("code") or ("systemBusy" if fault.status == 429 else
                                              "Forbidden.AccessDenied.QpsLimitForAppkeyAndApi")
        self.faults.append(fault)
        return fault

    def add_hook(self, spec: dict) -> Hook:
        endpoint = spec.get("endpoint", "")
        check_endpoint(endpoint)
        action = spec.get("action")
        if not isinstance(action, dict) or not action:
            raise ValueError("action must be an object such as {\"edit\": {...}}")
        hook = Hook(endpoint, spec.get("key"), int(spec.get("after", 1)), action)
        self.hooks.append(hook)
        return hook

    # ---- per-request decisions -----------------------------------------------------
    def take_fault(self, endpoint: str, key: str | None) -> Fault | None:
        for fault in self.faults:
            if fault.endpoint != endpoint or fault.remaining <= 0:
                continue
            if fault.key is not None and fault.key != key:
                continue
            if fault.skip > 0:
                fault.skip -= 1
                continue
            fault.remaining -= 1
            return fault
        return None

    def due_hooks(self, endpoint: str, key: str | None) -> list[Hook]:
        due = []
        for hook in self.hooks:
            if hook.fired or hook.endpoint != endpoint:
                continue
            if hook.key is not None and hook.key != key:
                continue
            hook.after -= 1
            if hook.after <= 0:
                hook.fired = True
                due.append(hook)
        return due

    def state_json(self) -> dict:
        return {
            "limits": {k: {"qps": v.qps, "scope": v.scope, "status": v.status,
                           "windowSeconds": v.window_s}
                       for k, v in self.limits.items()},
            "faults": [{"endpoint": f.endpoint, "kind": f.kind, "remaining": f.remaining,
                        "key": f.key} for f in self.faults if f.remaining > 0],
            "hooks": [{"endpoint": h.endpoint, "key": h.key, "fired": h.fired, "error": h.error}
                      for h in self.hooks],
        }


def check_endpoint(endpoint: str) -> None:
    if endpoint not in ENDPOINTS:
        raise ValueError(f"endpoint must be one of {ENDPOINTS}")

