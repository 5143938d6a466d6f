"""pipeline.parallelism runs N sink writers; changes are hash-partitioned by primary key, so every
change of one key reaches the same writer, in order, and schema changes reach every writer."""
import re
from collections import defaultdict

import cdcd_process as cdcd


def test_each_key_stays_on_one_writer_in_order(tmp_path):
    yaml = cdcd.write_pipeline(tmp_path, """
source:
  type: values
  event-set.id: GENERATED
  generator.rows: 2000
  generator.updates-per-row: 3
  generator.delete-every: 5
  generator.payload-bytes: 0
sink:
  type: values
pipeline:
  name: parallel
  parallelism: 3
""")
    result = cdcd.run(["run", yaml, "--state-dir", tmp_path / "s"])
    assert result.returncode == 0, result.stderr
    writer_of = {}
    history = defaultdict(list)
    creates = set()
    for line in result.stdout.splitlines():
        m = re.match(r"(\d)> (\w+)\{", line)
        assert m, line
        writer, kind = m.groups()
        if kind == "CreateTableEvent":
            creates.add(writer)
            continue
        row = re.search(r"after=\[(\d+), (\d+),", line) or re.search(r"before=\[(\d+), (\d+),", line)
        key, version = int(row.group(1)), int(row.group(2))
        assert writer_of.setdefault(key, writer) == writer, f"key {key} went to two writers"
        op = re.search(r"op=(\w+)", line).group(1)
        history[key].append((op, version))
    assert creates == {"1", "2", "3"}, "the CreateTableEvent is broadcast to every writer"
    assert len(set(writer_of.values())) == 3, "keys are spread over the writers"
    assert len(history) == 2000
    for key, ops in history.items():
        expected = [("INSERT", 0), ("UPDATE", 1), ("UPDATE", 2), ("UPDATE", 3)]
        if key % 5 == 0:
            expected.append(("DELETE", 3))
        assert ops == expected, f"key {key}: {ops}"
