"""Shared helpers of the oss-cdc integration tests: emulators, pipelines, reading the values
sink's printed events."""
import importlib.util
import pathlib
import re
import subprocess
import time

import cdcd_process as cdcd

REPO = pathlib.Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location("oss_emulator_client", REPO / "tests/emulators/oss/client.py")
oss_client = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(oss_client)
OssEmulator = oss_client.OssEmulator


def source_yaml(emu, **options) -> str:
    opts = {"access-key-id": emu.access_key_id, "access-key-secret": emu.access_key_secret}
    opts.update(options)
    lines = [f"  {k}: {v!r}" if isinstance(v, str) and (v == "" or ":" in v or v.startswith("'") or "*" in v)
             else f"  {k}: {v}" for k, v in opts.items()]
    return "source:\n  type: oss-cdc\n" + "\n".join(lines) + "\n"


def pipeline(emu, name="oss-test", interval="300ms", transform="", **options) -> str:
    return (source_yaml(emu, **options) + transform +
            f"sink:\n  type: values\npipeline:\n  name: {name}\n  execution.checkpointing.interval: {interval}\n")


EVENT_RE = re.compile(r"^DataChangeEvent\{tableId=(?P<table>[^,]+), before=(?P<before>\[.*?\]|null), "
                      r"after=(?P<after>\[.*?\]|null), op=(?P<op>\w+)")


def data_events(text: str):
    """(table, op, before, after, line) for every printed DataChangeEvent."""
    out = []
    for line in text.splitlines():
        m = EVENT_RE.match(line)
        if m:
            out.append((m["table"], m["op"], m["before"], m["after"], line))
    return out


def fields(row: str):
    """Splits a printed row "[a, b, c]" into its fields."""
    return [f.strip() for f in row.strip()[1:-1].split(", ")] if row and row != "null" else []


class Daemon:
    """A running cdcd whose stdout is collected into a file."""

    def __init__(self, tmp: pathlib.Path, yaml_text: str, state: str = "state", tag: str = "run"):
        self.yaml = cdcd.write_pipeline(tmp, yaml_text, f"{tag}.yaml")
        self.out_path = tmp / f"{tag}.out"
        self.err_path = tmp / f"{tag}.err"
        self.state = tmp / state
        self.proc = None

    def start(self):
        self.out = open(self.out_path, "ab")
        self.err = open(self.err_path, "ab")
        self.proc = cdcd.start(["run", self.yaml, "--state-dir", self.state], stdout=self.out, stderr=self.err)
        return self

    def output(self) -> str:
        return self.out_path.read_text(errors="replace")

    def stderr(self) -> str:
        return self.err_path.read_text(errors="replace")

    def events(self):
        return data_events(self.output())

    def wait_events(self, predicate, timeout=30.0) -> bool:
        return cdcd.wait_for(lambda: predicate(self.events()), timeout, 0.1)

    def kill9(self):
        self.proc.kill()
        self.proc.wait()
        self.out.close()
        self.err.close()

    def stop(self, timeout=40.0) -> int:
        if self.proc.poll() is None:
            self.proc.terminate()
        rc = cdcd.wait_exit(self.proc, timeout)
        self.out.close()
        self.err.close()
        return rc

    def wait(self, timeout=120.0) -> int:
        rc = cdcd.wait_exit(self.proc, timeout)
        self.out.close()
        self.err.close()
        return rc


def run_to_end(tmp, yaml_text, tag="run", timeout=120.0):
    d = Daemon(tmp, yaml_text, tag=tag).start()
    rc = d.wait(timeout)
    return rc, d
