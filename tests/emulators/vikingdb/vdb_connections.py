"""Which TCP connections the vendor APIs were served on: lets tests check a client's connection
pool (how many it opens, how many it keeps open at once, how long it reuses one).

A connection is seen at each request on it (the control API's own requests are not counted).
It is open while its transport is not closing: closed by the client (the server reads EOF) or
by the server."""
from __future__ import annotations

import time


class ConnectionLog:
    def __init__(self):
        self.reset()

    def reset(self) -> None:
        self._by_transport: dict[int, dict] = {}
        self.max_open = 0

    def seen(self, transport) -> None:
        if transport is None:
            return
        now = time.monotonic()
        entry = self._by_transport.get(id(transport))
        if entry is None or entry["transport"] is not transport:
            peer = transport.get_extra_info("peername") or ("", 0)
            entry = {"transport": transport, "port": peer[1], "first": now, "last": now, "requests": 0}
            self._by_transport[id(transport)] = entry
        entry["last"] = now
        entry["requests"] += 1
        self.max_open = max(self.max_open, self.open_now())

    def open_now(self) -> int:
        return sum(1 for e in self._by_transport.values() if not e["transport"].is_closing())

    def to_json(self) -> dict:
        """{"opened": connections seen, "open": still open, "max_open": most open at once at a
        request, "connections": [{"port", "requests", "span_seconds" (first to last request),
        "open"}]}"""
        rows = [{"port": e["port"], "requests": e["requests"], "open": not e["transport"].is_closing(),
                 "span_seconds": round(e["last"] - e["first"], 3)} for e in self._by_transport.values()]
        return {"opened": len(rows), "open": self.open_now(), "max_open": self.max_open, "connections": rows}
