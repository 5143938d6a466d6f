"""Start the DingTalk emulator as a subprocess and drive its control API.

    with DingTalkEmulator() as emu:
        emu.create_app("key", "secret")
        ...
        emu.url  # http://127.0.0.1:<port>, the SDK endpoint is emu.endpoint
"""
from __future__ import annotations

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "server.py")
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "common"))  # emulator_client

import emulator_client  # noqa: E402

ControlError = emulator_client.ControlError


class DingTalkEmulator:
    def __init__(self, start_timeout_s: float = 60.0, state_file: str | None = None):
        """state_file: where the server keeps its data across `restart()`."""
        self.start_timeout_s = start_timeout_s
        self.state_file = state_file
        self.proc: subprocess.Popen | None = None
        self.port: int | None = None

    # ---- lifecycle -----------------------------------------------------------------
    def __enter__(self) -> "DingTalkEmulator":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        extra = ("--state-file", self.state_file) if self.state_file else ()
        self.proc, ports = emulator_client.start_server(SERVER, "--port", "0", *extra,
                                                        timeout=self.start_timeout_s)
        self.port = ports["LISTENING"]

    def restart(self) -> None:
        """Stops the server and starts it again on the same port with its data (needs state_file);
        limits, faults, hooks and the request log start empty."""
        assert self.state_file, "restart() needs the emulator created with a state_file"
        self.proc, _ = emulator_client.restart_server(self.proc, SERVER, self.port, self.state_file,
                                                      timeout=self.start_timeout_s)

    def stop(self) -> None:
        if self.proc is not None:
            emulator_client.stop_server(self.proc)
            self.proc = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def endpoint(self) -> str:
        """What the official SDK's Config.endpoint wants (host:port, protocol set separately)."""
        return f"127.0.0.1:{self.port}"

    # ---- raw control call ----------------------------------------------------------
    def control(self, method: str, path: str, body: dict | None = None):
        return emulator_client.control_call(self.url, method, path, body, timeout=30)

    # ---- helpers, one per control endpoint -----------------------------------------
    def reset(self, seed: int = 1):
        return self.control("POST", "reset", {"seed": seed})

    def state(self):
        return self.control("GET", "state")

    def create_app(self, app_key: str, app_secret: str, corp_id: str | None = None,
                   scopes: list[str] | None = None, org_auth_level_ok: bool = True):
        body = {"appKey": app_key, "appSecret": app_secret, "orgAuthLevelOk": org_auth_level_ok}
        if corp_id:
            body["corpId"] = corp_id
        if scopes is not None:
            body["scopes"] = scopes
        return self.control("POST", "apps", body)

    def create_operators(self, *union_ids: str, corp_id: str | None = None) -> list[str]:
        specs = [{"unionId": u, **({"corpId": corp_id} if corp_id else {})} for u in union_ids]
        return [o["unionId"] for o in self.control("POST", "operators", {"operators": specs})["operators"]]

    def create_workspace(self, name: str, owner_id: str | None = None,
                         members: dict | None = None, **extra):
        body = {"name": name, "ownerId": owner_id, "members": members or {}, **extra}
        return self.control("POST", "workspaces", body)

    def create_folder(self, parent_node_id: str, name: str, **extra):
        return self.control("POST", "nodes", {"parentNodeId": parent_node_id, "kind": "folder",
                                              "name": name, **extra})

    def create_document(self, parent_node_id: str, name: str, blocks="sample", **extra):
        """blocks: a list of block objects, or "sample" for the all-block-types fixture."""
        return self.control("POST", "nodes", {"parentNodeId": parent_node_id, "kind": "document",
                                              "name": name, "blocks": blocks, **extra})

    def create_file(self, parent_node_id: str, name: str, category: str = "DOCUMENT", **extra):
        return self.control("POST", "nodes", {"parentNodeId": parent_node_id, "kind": "file",
                                              "name": name, "category": category, **extra})

    def get_node(self, node_id: str):
        return self.control("GET", f"nodes/{node_id}")

    def edit(self, node_id: str, name: str | None = None, blocks=None, **extra):
        body = {k: v for k, v in {"name": name, "blocks": blocks, **extra}.items() if v is not None}
        return self.control("POST", f"nodes/{node_id}/edit", body)

    def move(self, node_id: str, parent_node_id: str):
        return self.control("POST", f"nodes/{node_id}/move", {"parentNodeId": parent_node_id})

    def delete(self, node_id: str):
        return self.control("POST", f"nodes/{node_id}/delete", {})

    def set_node_error(self, node_id: str, endpoint: str, status: int, code: str,
                       message: str | None = None):
        return self.control("POST", f"nodes/{node_id}/error",
                            {"endpoint": endpoint, "status": status, "code": code,
                             "message": message or code})

    def set_permission(self, target_id: str, union_id: str, role: str | None):
        return self.control("POST", "permissions",
                            {"targetId": target_id, "unionId": union_id, "role": role})

    def set_token_lifetime(self, seconds: float):
        return self.control("POST", "tokens", {"lifetimeSeconds": seconds})

    def expire_tokens(self, app_key: str | None = None):
        return self.control("POST", "tokens/expire", {"appKey": app_key} if app_key else {})

    def set_limit(self, endpoint: str, qps: float | None, scope: str = "app", status: int = 403,
                  retry_after: float | None = None, per_minute: bool = False):
        """qps requests per 1 s sliding window (per_minute: per 60 s, QPM code)."""
        return self.control("POST", "limits", {"endpoint": endpoint, "qps": qps, "scope": scope,
                                               "status": status, "retryAfter": retry_after,
                                               "perMinute": per_minute})

    def inject_fault(self, endpoint: str, kind: str = "status", count: int = 1, **extra):
        """kind: status | reset | delay | throttle; extra: skip, key, status, code, message,
        delayMs, retryAfter."""
        return self.control("POST", "faults", {"endpoint": endpoint, "kind": kind,
                                               "count": count, **extra})

    def clear_faults(self):
        return self.control("DELETE", "faults")

    def add_hook(self, endpoint: str, action: dict, key: str | None = None, after: int = 1):
        return self.control("POST", "hooks", {"endpoint": endpoint, "key": key, "after": after,
                                              "action": action})

    def counters(self):
        return self.control("GET", "counters")

    def requests(self, endpoint: str | None = None):
        return self.control("GET", "requests" + (f"?endpoint={endpoint}" if endpoint else ""))

    def clear_requests(self):
        return self.control("POST", "requests/clear", {})

    def seed(self, documents: int, fanout: int = 50, **extra):
        return self.control("POST", "seed", {"documents": documents, "fanout": fanout, **extra})
