"""Test helper: start the OSS emulator (optionally with the MNS emulator in the same process)
and drive its control API.

    with OssEmulator(with_mns=True) as emu:
        emu.create_bucket("b1")
        emu.mns.create_queue("events")
        emu.add_notification("b1", "events", events=["ObjectCreated:*"])
        bucket = oss2.Bucket(oss2.Auth(emu.access_key_id, emu.access_key_secret), emu.endpoint, "b1")

Addressing: oss2 uses path style (`/bucket/key`) for an IP endpoint; the server also accepts
virtual-host style (`Host: bucket.127.0.0.1:port`).
"""
import importlib.util
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
SERVER = HERE / "server.py"
sys.path.insert(0, str(HERE.parent / "common"))  # emulator_client

import emulator_client  # noqa: E402

_spec = importlib.util.spec_from_file_location("mns_emulator_client_for_oss", HERE.parent / "mns" / "client.py")
mns_client = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mns_client)

DEFAULT_REGION = "cn-hangzhou"
ControlError = emulator_client.ControlError


class OssControl(emulator_client.KeyedControl):
    control_timeout = 120.0

    def __init__(self, url: str):
        super().__init__(url)
        self.region = DEFAULT_REGION

    def reset(self) -> dict:
        self.region = DEFAULT_REGION
        return super().reset()

    def set_credentials(self, access_key_id: str, access_key_secret: str, security_token: str = "",
                        keep_existing: bool = False, verify_signatures: bool = True,
                        region: str | None = None) -> dict:
        self.access_key_id, self.access_key_secret = access_key_id, access_key_secret
        body = {"access_key_id": access_key_id, "access_key_secret": access_key_secret,
                "security_token": security_token, "keep_existing": keep_existing,
                "verify_signatures": verify_signatures}
        if region:
            body["region"] = region
            self.region = region
        return self.control("PUT", "/credentials", body)

    def set_clock_offset(self, offset_s: float) -> dict:
        """Puts the server's clock offset_s seconds ahead of this host's (negative: behind)."""
        return self.control("PUT", "/clock", {"offset_s": offset_s})

    def create_bucket(self, name: str) -> dict:
        return self.control("POST", "/buckets", {"name": name})

    def seed(self, bucket: str, count: int, **spec) -> dict:
        return self.control("POST", f"/buckets/{bucket}/seed", {"count": count, **spec})

    def put_objects(self, bucket: str, objects: list[dict], notify: bool = False) -> dict:
        return self.control("PUT", f"/buckets/{bucket}/objects", {"objects": objects, "notify": notify})

    def objects(self, bucket: str, prefix: str = "", limit: int = 1000) -> dict:
        return self.control("GET", f"/buckets/{bucket}/objects?prefix={prefix}&limit={limit}")

    def delete_objects(self, bucket: str, keys: list[str], notify: bool = False) -> dict:
        return self.control("DELETE", f"/buckets/{bucket}/objects", {"keys": keys, "notify": notify})

    def add_notification(self, bucket: str, queue: str, events: list[str] | None = None,
                         prefix: str = "", suffix: str = "", format: str = "simplified",
                         mns_url: str | None = None, rule_id: str | None = None) -> dict:
        body = {"bucket": bucket, "queue": queue, "prefix": prefix, "suffix": suffix, "format": format}
        if events is not None:
            body["events"] = events
        if mns_url:
            body["mns_url"] = mns_url
        if rule_id:
            body["id"] = rule_id
        return self.control("POST", "/notifications", body)

    def notifications(self) -> dict:
        return self.control("GET", "/notifications")

    def emit_event(self, bucket: str, key: str, event: str) -> dict:
        return self.control("POST", "/events", {"bucket": bucket, "key": key, "event": event})


class OssEmulator(OssControl):
    """Context manager running `server.py` on a free loopback port (and, with with_mns=True,
    the MNS emulator in the same process on another free port, as `.mns`)."""

    def __init__(self, with_mns: bool = False, mns_url: str | None = None, state_file: str | None = None):
        """state_file: where the server keeps its data (and the MNS emulator's) across `restart()`."""
        super().__init__("")
        self.with_mns, self.mns_url, self.state_file = with_mns, mns_url, state_file
        self.proc: subprocess.Popen | None = None
        self.mns: mns_client.MnsControl | None = None

    def __enter__(self) -> "OssEmulator":
        self.proc, ports = emulator_client.start_server(SERVER, "--port", "0", *self._args(mns_port=0),
                                                        expect=self._expect(), timeout=60.0)
        self.url = f"http://127.0.0.1:{ports['LISTENING']}"
        if self.with_mns:
            self.mns = mns_client.MnsControl(f"http://127.0.0.1:{ports['MNS_LISTENING']}")
        return self

    def _args(self, mns_port: int) -> list[str]:
        args = ["--state-file", self.state_file] if self.state_file else []
        if self.with_mns:
            args += ["--mns-port", str(mns_port)]
        elif self.mns_url:
            args += ["--mns-url", self.mns_url]
        return args

    def _expect(self) -> tuple[str, ...]:
        return ("LISTENING", "MNS_LISTENING") if self.with_mns else ("LISTENING",)

    def restart(self) -> None:
        """Stops the server and starts it again on the same ports with its buckets, objects,
        notification rules, queues and messages (needs state_file); faults and counters start empty."""
        assert self.state_file, "restart() needs the emulator created with a state_file"
        port = int(self.url.rsplit(":", 1)[1])
        mns_port = int(self.mns.url.rsplit(":", 1)[1]) if self.mns else 0
        emulator_client.stop_server(self.proc, timeout=10)
        self.proc, _ = emulator_client.start_server(SERVER, "--port", str(port), *self._args(mns_port),
                                                    expect=self._expect(), timeout=60.0)

    def __exit__(self, *exc) -> None:
        if self.proc is not None:
            emulator_client.stop_server(self.proc, timeout=10)
