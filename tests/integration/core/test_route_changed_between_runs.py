"""The pipeline's routes change between two runs: after the restore, the data goes to the sink
table the new route names, created from the schema the checkpoint holds (the source does not send
its CreateTableEvents again), and every change is written once."""
import json
import signal
import subprocess

import cdcd_process as cdcd
from generated_changes import generated_source, stop_mid_stream

ROWS, ROUNDS = 20_000, 1
ROUTE = """route:
  - source-table: default_namespace.default_schema.generated
    sink-table: ods.generated_v2
"""


def pipeline(out, route=""):
    return generated_source(ROWS, ROUNDS, 0, 20, rate=20_000) + route + f"""sink:
  type: file
  path: {out}
  format: debezium-json
pipeline:
  name: route-change
  execution.checkpointing.interval: 200ms
"""


def test_a_route_added_between_runs_takes_the_rest_to_its_new_sink_table(tmp_path):
    out = tmp_path / "out.jsonl"
    state = tmp_path / "state"
    first = cdcd.start(["run", cdcd.write_pipeline(tmp_path, pipeline(out), "first.yaml"),
                        "--state-dir", state], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    stop_mid_stream(first, signal.SIGTERM, 0.6)
    before = len(out.read_bytes().splitlines())
    assert 0 < before < ROWS * (1 + ROUNDS)

    second = cdcd.run(["run", cdcd.write_pipeline(tmp_path, pipeline(out, ROUTE), "second.yaml"),
                       "--state-dir", state], timeout=120)
    assert second.returncode == 0, second.stderr
    assert "The routes changed since the restored checkpoint" in second.stderr
    assert "tableId=ods.generated_v2" in second.stderr

    changes = [json.loads(line) for line in out.read_bytes().splitlines()]
    assert len(changes) == ROWS * (1 + ROUNDS)  # each once: none lost, none repeated
    tables = [(c["source"]["db"], c["source"]["table"]) for c in changes]
    assert set(tables[:before]) == {("default_schema", "generated")}
    assert set(tables[before:]) == {("ods", "generated_v2")}
    keys = {((c["after"] or c["before"])["id"], (c["after"] or c["before"])["version"])
            for c in changes}
    assert len(keys) == len(changes)
