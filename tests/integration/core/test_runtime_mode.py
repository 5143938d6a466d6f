"""pipeline.execution.runtime-mode BATCH: the pipeline runs until its source has read everything,
then exits 0; a source whose options make it follow changes for ever is refused by validate and
run, naming execution.runtime-mode and the source option to change (spec 000: BATCH jobs support
only the snapshot startup mode; Flink CDC's sources say the same)."""
import json

import pytest

import cdcd_process as cdcd

# Minimal sources, each valid on its own; `extra` is the startup/bounded option under test.
SOURCES = {
    "dingtalk-cdc": "  type: dingtalk-cdc\n  app-key: k\n  app-secret: s\n  operator-id: o\n"
                    "  object-type: document\n",
    "oss-cdc": "  type: oss-cdc\n  scan.incremental.mode: POLLING\n  oss-endpoint: http://127.0.0.1:1\n"
               "  oss-region: r\n  oss-bucket: b\n  access-key-id: a\n  access-key-secret: s\n",
    "kafka": "  type: kafka\n  properties.bootstrap.servers: 127.0.0.1:1\n  topic: t\n"
             "  value.format: json\n  properties.group.id: g\n  table-id.fixed.name: a.b\n",
    "values": "  type: values\n  event-set.id: GENERATED\n  generator.rows: 200\n",
}


def batch_pipeline(source: str, extra: str, sink: str = "  type: values\n") -> str:
    return (f"source:\n{SOURCES[source]}{extra}sink:\n{sink}"
            "pipeline:\n  execution.runtime-mode: BATCH\n  execution.checkpointing.interval: 1s\n")


@pytest.mark.parametrize("source, extra, option, value, bounded", [
    ("dingtalk-cdc", "", "scan.startup.mode", "initial", "snapshot"),
    ("dingtalk-cdc", "  scan.startup.mode: latest-offset\n", "scan.startup.mode", "latest-offset",
     "snapshot"),
    ("oss-cdc", "", "scan.startup.mode", "LATEST_OFFSET", "SNAPSHOT"),
    ("oss-cdc", "  scan.startup.mode: INITIAL\n", "scan.startup.mode", "INITIAL", "SNAPSHOT"),
    ("kafka", "", "scan.bounded.mode", "unbounded", "latest-offset"),
    ("values", "  generator.bounded: false\n", "generator.bounded", "false", "true"),
])
def test_batch_refuses_a_source_that_never_ends(tmp_path, source, extra, option, value, bounded):
    yaml = cdcd.write_pipeline(tmp_path, batch_pipeline(source, extra))
    for command in (["validate", yaml], ["run", yaml, "--state-dir", tmp_path / "state"]):
        result = cdcd.run(command, timeout=30)
        assert result.returncode == 1, result.stderr
        assert f"{yaml}:" in result.stderr and "execution.runtime-mode BATCH" in result.stderr
        assert f"{option} `{value}`" in result.stderr and f"set {option}: {bounded}" in result.stderr


@pytest.mark.parametrize("source, extra", [
    ("dingtalk-cdc", "  scan.startup.mode: snapshot\n"),
    ("oss-cdc", "  scan.startup.mode: SNAPSHOT\n"),
    ("kafka", "  scan.bounded.mode: latest-offset\n"),
    ("values", ""),
])
def test_batch_accepts_a_source_that_ends(tmp_path, source, extra):
    result = cdcd.run(["validate", cdcd.write_pipeline(tmp_path, batch_pipeline(source, extra))])
    assert result.returncode == 0, result.stderr


def test_a_batch_pipeline_delivers_everything_and_exits_0(tmp_path):
    out = tmp_path / "out.jsonl"
    yaml = cdcd.write_pipeline(tmp_path, batch_pipeline(
        "values", "  generator.updates-per-row: 1\n",
        sink=f"  type: file\n  path: {out}\n  format: debezium-json\n"))
    state = tmp_path / "state"
    result = cdcd.run(["run", yaml, "--state-dir", state], timeout=60)
    assert result.returncode == 0, result.stderr
    assert "BATCH mode" in result.stderr and "final checkpoint" in result.stderr
    ops = [json.loads(line)["op"] for line in out.read_text().splitlines()]
    assert ops.count("c") == 200 and ops.count("u") == 200
    # Its final checkpoint records the end of input: a second run has nothing left to read.
    again = cdcd.run(["run", yaml, "--state-dir", state], timeout=60)
    assert again.returncode == 0, again.stderr
    assert len(out.read_text().splitlines()) == 400
