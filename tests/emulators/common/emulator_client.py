"""Test-side plumbing shared by the emulators' client.py: run a server.py as a subprocess on a
free loopback port and stop it; call its JSON control API under /_emulator/.

Standard library only (client.py files are loaded from tests, bench scripts and C++ test
harnesses as they are). Each emulator's client.py puts this folder on sys.path itself.
"""
from __future__ import annotations

import json
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from typing import Any


DEFAULT_ACCESS_KEY_ID = "AKTEST"  # the access key the MNS and OSS emulators accept after a reset
DEFAULT_ACCESS_KEY_SECRET = "SKTEST"


class ControlError(RuntimeError):
    """A control call answered with an HTTP error status; `body` is the answer's text."""

    def __init__(self, status: int, body: str):
        super().__init__(f"emulator control call failed: HTTP {status}: {body}")
        self.status, self.body = status, body


def control_call(url: str, method: str, path: str, body: Any = None, timeout: float = 60.0) -> Any:
    """`method` on `url`/_emulator/`path` with `body` as JSON; the JSON answer (None if empty)."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"{url}/_emulator/{path.lstrip('/')}", data=data, method=method,
                                 headers={"Content-Type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as err:
        raise ControlError(err.code, err.read().decode(errors="replace")) from None


class KeyedControl:
    """Control API of a running emulator whose vendor API is signed with an access key (MNS, OSS).
    `url` is `http://127.0.0.1:<port>`, `endpoint` what the SDK takes; `access_key_id` and
    `access_key_secret` are the key tests sign with: the emulator's default until changed.
    Fault rules and per-action counters are those of common/emu_faults.py."""

    control_timeout = 60.0

    def __init__(self, url: str):
        self.url = url
        self.access_key_id = DEFAULT_ACCESS_KEY_ID
        self.access_key_secret = DEFAULT_ACCESS_KEY_SECRET

    @property
    def endpoint(self) -> str:
        return self.url

    def control(self, method: str, path: str, body: dict | None = None) -> dict:
        return control_call(self.url, method, path, body, self.control_timeout)

    def reset(self) -> dict:
        self.access_key_id, self.access_key_secret = DEFAULT_ACCESS_KEY_ID, DEFAULT_ACCESS_KEY_SECRET
        return self.control("POST", "/reset")

    def inject_fault(self, action: str = "*", kind: str = "error", count: int = 1, **extra) -> dict:
        return self.control("POST", "/faults", {"action": action, "kind": kind, "count": count, **extra})

    def clear_faults(self) -> dict:
        return self.control("DELETE", "/faults")

    def counters(self) -> dict[str, int]:
        return self.control("GET", "/counters")["counters"]


def start_server(server, *args: str, expect: tuple[str, ...] = ("LISTENING",),
                 timeout: float = 60.0) -> tuple[subprocess.Popen, dict[str, int]]:
    """Starts `python3 server *args` and reads its announce lines (`LISTENING <port>`,
    `MNS_LISTENING <port>`...), which a server prints first, until all of `expect` were seen.
    Returns the process and the ports by announce word; stops the process and raises
    RuntimeError when they do not all come within `timeout` seconds."""
    proc = subprocess.Popen([sys.executable, str(server), *args], stdout=subprocess.PIPE, text=True)
    ports: dict[str, int] = {}

    def reader():
        for _ in range(len(expect) + 4):  # bounded: a handful of announce lines
            line = proc.stdout.readline()
            if not line:
                return
            words = line.split()
            if len(words) == 2 and words[0].endswith("LISTENING") and words[1].isdigit():
                ports[words[0]] = int(words[1])
            if all(name in ports for name in expect):
                return

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    thread.join(timeout)
    if not all(name in ports for name in expect):
        stop_server(proc)
        raise RuntimeError(f"{server} did not report {expect} within {timeout}s (got {ports})")
    return proc, ports


def restart_server(proc: subprocess.Popen, server, port: int, state_file: str, *args: str,
                   expect: tuple[str, ...] = ("LISTENING",), timeout: float = 60.0
                   ) -> tuple[subprocess.Popen, dict[str, int]]:
    """Stops a server started with `--state-file state_file` (which writes its data there as it
    stops) and starts it again on the same `port` with the same file: the restart of a real
    service, whose clients see refused connections in between and its data afterwards."""
    stop_server(proc, timeout=10)
    return start_server(server, "--port", str(port), "--state-file", state_file, *args,
                        expect=expect, timeout=timeout)


def stop_server(proc: subprocess.Popen, timeout: float = 5.0) -> None:
    """SIGTERM, then SIGKILL if it has not exited within `timeout` seconds; closes its stdout."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=timeout)
    if proc.stdout:
        proc.stdout.close()
