"""Shared helpers of the dingtalk-cdc integration tests: the emulator, a pipeline writing
debezium-json lines to a file, and readers of that file."""
from __future__ import annotations

import json
import pathlib
import sys

import cdcd_process as cdcd

EMULATOR_DIR = cdcd.REPO / "tests" / "emulators" / "dingtalk"
sys.path.insert(0, str(EMULATOR_DIR))
from client import DingTalkEmulator  # noqa: E402

APP_KEY, APP_SECRET, OPERATOR = "dingintegrationkey", "integration-secret-9f3a", "opUnion001"


def start_emulator() -> DingTalkEmulator:
    emu = DingTalkEmulator()
    emu.start()
    emu.create_app(APP_KEY, APP_SECRET)
    emu.create_operators(OPERATOR)
    return emu


def pipeline_yaml(emu: DingTalkEmulator, out: pathlib.Path, workspaces: list[str] | None,
                  options: dict | None = None) -> str:
    opts = {
        "object-type": "document",
        "app-key": APP_KEY,
        "app-secret": APP_SECRET,
        "operator-id": OPERATOR,
        "endpoint": emu.url,
        "scan.poll-interval": "300ms",
        "scan.discovery.interval": "1s",
        "scan.discovery.rate-limit.requests-per-second": "200",
        "scan.metadata.rate-limit.requests-per-second": "200",
        "scan.content.rate-limit.requests-per-second": "200",
        "scan.fetch.rate-limit.requests-per-second": "200",
    }
    if workspaces:
        opts["workspace-id"] = ",".join(workspaces)
    opts.update(options or {})
    source = "\n".join(f"  {k}: {json.dumps(str(v))}" for k, v in opts.items())
    return f"""
source:
  type: dingtalk-cdc
{source}
sink:
  type: file
  path: {out}
  format: debezium-json
pipeline:
  name: dingtalk-it
  execution.checkpointing.interval: 200ms
"""


def events(path: pathlib.Path) -> list[dict]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        if line.strip():
            out.append(json.loads(line))
    return out


def rows(path: pathlib.Path, op: str | None = None) -> list[dict]:
    """The after (or before, for deletes) rows, with `_op` and `_ws` added, in file order."""
    out = []
    for e in events(path):
        row = dict(e["after"] if e["after"] is not None else e["before"])
        row["_op"], row["_ws"] = e["op"], e["source"]["db"]
        if op is None or row["_op"] == op:
            out.append(row)
    return out


def latest(path: pathlib.Path) -> dict[str, dict]:
    state: dict[str, dict] = {}
    for row in rows(path):
        if row["_op"] == "d":
            state.pop(row["doc_id"], None)
        else:
            state[row["doc_id"]] = row
    return state


def wait_for(predicate, timeout: float = 30.0, interval: float = 0.1):
    """cdcd_process.wait_for that fails the test at the deadline; returns the predicate's answer."""
    value = cdcd.wait_for(predicate, timeout, interval)
    assert value, "condition not reached in time"
    return value


def paragraph(text: str) -> dict:
    return {"blockType": "paragraph", "paragraph": {"text": text}, "children": [{"text": text}]}
