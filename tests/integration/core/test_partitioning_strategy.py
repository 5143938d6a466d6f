"""pipeline.sink.partitioning.strategy spreads data changes over the `parallelism` sink writers:
PRIMARY_KEY (and SINK_DEFINED, the default: no cdcd sink defines its own) by primary key,
TABLE_ID every change of a table to one writer. The file sink's writer i writes <path>.<i>."""
import json

import pytest

import cdcd_process as cdcd


def run_partitioned(tmp_path, strategy_line: str):
    out = tmp_path / "out.jsonl"
    yaml = cdcd.write_pipeline(tmp_path, f"""source:
  type: values
  event-set.id: GENERATED
  generator.rows: 200
  generator.updates-per-row: 1
sink:
  type: file
  path: {out}
pipeline:
  parallelism: 3
{strategy_line}""")
    result = cdcd.run(["run", yaml, "--state-dir", tmp_path / "state"], timeout=60)
    assert result.returncode == 0, result.stderr
    ids = []
    for i in range(3):
        lines = (tmp_path / f"out.jsonl.{i}").read_text().splitlines()
        ids.append([json.loads(line)["after"]["id"] for line in lines])
    return ids


@pytest.mark.parametrize("strategy_line", ["", "  sink.partitioning.strategy: SINK_DEFINED\n",
                                           "  sink.partitioning.strategy: PRIMARY_KEY\n"])
def test_primary_key_spreads_a_table_over_the_writers_keeping_each_key_on_one(tmp_path,
                                                                              strategy_line):
    ids = run_partitioned(tmp_path, strategy_line)
    assert all(len(per_writer) > 0 for per_writer in ids)
    assert sorted(i for per_writer in ids for i in per_writer) == sorted(list(range(1, 201)) * 2)
    for per_writer in ids:  # insert then update of a key, in order, on one writer
        assert all(per_writer.count(i) == 2 for i in per_writer)


def test_table_id_sends_every_change_of_a_table_to_one_writer(tmp_path):
    ids = run_partitioned(tmp_path, "  sink.partitioning.strategy: TABLE_ID\n")
    assert sorted(len(per_writer) for per_writer in ids) == [0, 0, 400]
