"""Start the VikingDB emulator as a subprocess and drive its /_emulator/ API.

    with VikingDBEmulator() as emu:
        emu.create_collection("docs", fields=[...], indexes=[{"IndexName": "idx", "Distance": "cosine"}])
        ... point an SDK at emu.host / emu.url ...
        emu.rows("docs"); emu.counters()

Only the standard library is used so C++ test harnesses can reuse it as is.
"""
from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "server.py")
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "common"))  # emulator_client

import emulator_client  # noqa: E402

EmulatorError = emulator_client.ControlError


class VikingDBEmulator:
    def __init__(self, host: str = "127.0.0.1", port: int = 0, startup_timeout: float = 60.0,
                 state_file: str | None = None):
        """state_file: where the server keeps its data across `restart()`."""
        self.state_file = state_file
        self._host = host
        self._port = port
        self._timeout = startup_timeout
        self.proc: subprocess.Popen | None = None
        self.port: int | None = None

    # ------------------------------------------------------------ lifecycle
    def start(self) -> "VikingDBEmulator":
        extra = ("--state-file", self.state_file) if self.state_file else ()
        self.proc, ports = emulator_client.start_server(SERVER, "--host", self._host, "--port", str(self._port),
                                                        *extra, timeout=self._timeout)
        self.port = ports["LISTENING"]
        return self

    def restart(self) -> None:
        """Stops the server and starts it again on the same port with its collections, rows and
        credentials (needs state_file); faults, throttles and counters start empty."""
        assert self.state_file, "restart() needs the emulator created with a state_file"
        self.proc, _ = emulator_client.restart_server(self.proc, SERVER, self.port, self.state_file,
                                                      "--host", self._host, timeout=self._timeout)

    def stop(self) -> None:
        if self.proc is not None:
            emulator_client.stop_server(self.proc)
            self.proc = None

    def __enter__(self) -> "VikingDBEmulator":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def server_cpu_seconds(self) -> float:
        """CPU time (user+sys) the server process has used: lets benchmarks factor out machine load."""
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    @property
    def host(self) -> str:
        """host:port, the form the SDKs take as `host`."""
        return f"{self._host}:{self.port}"

    @property
    def url(self) -> str:
        return f"http://{self.host}"

    # ------------------------------------------------------------ control API
    def control(self, method: str, path: str, body: Any = None, timeout: float = 60.0) -> Any:
        return emulator_client.control_call(self.url, method, path, body, timeout)

    def reset(self, credentials: bool = False) -> None:
        self.control("POST", "reset", {"credentials": credentials})

    def set_credentials(self, api_keys: list[str] | None = None,
                        access_keys: dict[str, str] | None = None) -> dict:
        body: dict = {}
        if api_keys is not None:
            body["api_keys"] = api_keys
        if access_keys is not None:
            body["access_keys"] = access_keys
        return self.control("POST", "credentials", body)

    def configure(self, **settings) -> dict:
        return self.control("POST", "config", settings)

    def create_collection(self, name: str, fields: list[dict], project_name: str = "default",
                          vectorize: dict | None = None, indexes: list[dict] | None = None,
                          description: str = "") -> dict:
        body = {"ProjectName": project_name, "CollectionName": name, "Fields": fields,
                "Description": description}
        if vectorize:
            body["Vectorize"] = vectorize
        if indexes:
            body["Indexes"] = indexes
        return self.control("POST", "collections", body)

    def create_index(self, collection: str, index_name: str, distance: str = "ip",
                     project_name: str = "default") -> dict:
        return self.control("POST", f"collections/{collection}/indexes?project_name={project_name}",
                            {"IndexName": index_name, "Distance": distance})

    def collection(self, name: str, project_name: str = "default") -> dict:
        return self.control("GET", f"collections/{name}?project_name={project_name}")

    def collections(self) -> list[dict]:
        return self.control("GET", "collections")["collections"]

    def rows(self, name: str, project_name: str = "default", vectors: bool = False) -> dict:
        """{"count": n, "rows": [{"id", "fields", "vector"?, "expires_at"?}]}"""
        return self.control("GET", f"collections/{name}/rows?project_name={project_name}"
                                   f"&vectors={'1' if vectors else '0'}")

    def inject_faults(self, *faults: dict) -> dict:
        """Each fault: {"kind": error|reset|delay|throttle, "count": N, "status", "code",
        "delay_ms", "match": counter name, "plane": data|control}."""
        return self.control("POST", "faults", {"faults": list(faults)})

    def clear_faults(self) -> None:
        self.control("DELETE", "faults")

    def throttle(self, qps: float | None, match: str = "*", burst: float | None = None) -> dict:
        return self.control("POST", "throttle", {"match": match, "qps": qps, "burst": burst})

    def counters(self) -> dict:
        return self.control("GET", "counters")

    def connections(self) -> dict:
        """The TCP connections vendor requests arrived on since the last reset (vdb_connections)."""
        return self.control("GET", "connections")

    def reset_counters(self) -> None:
        self.control("POST", "counters/reset")

