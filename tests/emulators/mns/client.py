"""Test helper: start the MNS emulator as a subprocess and drive its control API.

    with MnsEmulator() as emu:
        emu.create_queue("q1", visibility_timeout=5)
        account = mns.account.Account(emu.endpoint, emu.access_key_id, emu.access_key_secret)

`MnsControl(url)` drives an already running emulator (e.g. the one the OSS server embeds).
"""
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
SERVER = HERE / "server.py"
sys.path.insert(0, str(HERE.parent / "common"))  # emulator_client

import emulator_client  # noqa: E402

ControlError = emulator_client.ControlError


class MnsControl(emulator_client.KeyedControl):
    """Control-API helpers; `url` is `http://127.0.0.1:<port>`."""

    def set_credentials(self, access_key_id: str, access_key_secret: str,
                        security_token: str = "", keep_existing: bool = False,
                        verify_signatures: bool = True) -> dict:
        self.access_key_id, self.access_key_secret = access_key_id, access_key_secret
        return self.control("PUT", "/credentials", {
            "access_key_id": access_key_id, "access_key_secret": access_key_secret,
            "security_token": security_token, "keep_existing": keep_existing,
            "verify_signatures": verify_signatures})

    def set_clock_offset(self, offset_s: float) -> dict:
        """Puts the server's clock offset_s seconds ahead of this host's (negative: behind)."""
        return self.control("PUT", "/clock", {"offset_s": offset_s})

    def create_queue(self, name: str, **attrs) -> dict:
        return self.control("POST", "/queues", {"name": name, **attrs})

    def set_queue_attributes(self, name: str, **attrs) -> dict:
        return self.control("PATCH", f"/queues/{name}", attrs)

    def queue(self, name: str) -> dict:
        return self.control("GET", f"/queues/{name}")

    def delete_queue(self, name: str) -> dict:
        return self.control("DELETE", f"/queues/{name}")

    def send(self, queue: str, body: str, priority: int = 8, delay_seconds: int | None = None) -> dict:
        item = {"body": body, "priority": priority}
        if delay_seconds is not None:
            item["delay_seconds"] = delay_seconds
        return self.control("POST", f"/queues/{queue}/messages", item)["messages"][0]

    def messages(self, queue: str) -> list[dict]:
        return self.control("GET", f"/queues/{queue}/messages")["messages"]

    def purge(self, queue: str) -> dict:
        return self.control("DELETE", f"/queues/{queue}/messages")


class MnsEmulator(MnsControl):
    """Context manager running `server.py` on a free loopback port."""

    def __init__(self, extra_args: list[str] | None = None, state_file: str | None = None):
        """state_file: where the server keeps its queues and messages across `restart()`."""
        super().__init__("")
        self.extra_args = extra_args or []
        self.state_file = state_file
        if state_file:
            self.extra_args += ["--state-file", state_file]
        self.proc: subprocess.Popen | None = None
        self.port = 0

    def __enter__(self) -> "MnsEmulator":
        self.proc, ports = emulator_client.start_server(SERVER, "--port", "0", *self.extra_args, timeout=60.0)
        self.port = ports["LISTENING"]
        self.url = f"http://127.0.0.1:{self.port}"
        return self

    def restart(self) -> None:
        """Stops the server and starts it again on the same port with its queues, messages and
        access keys (needs state_file); fault rules and counters start empty."""
        assert self.state_file, "restart() needs the emulator created with a state_file"
        extra = [a for a in self.extra_args if a not in ("--state-file", self.state_file)]
        self.proc, _ = emulator_client.restart_server(self.proc, SERVER, self.port, self.state_file, *extra)

    def __exit__(self, *exc) -> None:
        if self.proc is not None:
            emulator_client.stop_server(self.proc, timeout=10)
