"""CAST through the binary: text that is no number is NULL, not a failed row (Flink CDC's
CastingFunctions), so a pipeline under bad-record.policy `fail` runs to the end; and
`transform.decimal.precision.mode` reaches the transform (UP_TO_19 caps DECIMAL(38, 18) at
DECIMAL(19, 18), which holds no value of two integer digits)."""
import json

import cdcd_process as cdcd

ROWS = 50


def pipeline(out, mode_line=""):
    return f"""
source:
  type: values
  event-set.id: GENERATED
  generator.rows: {ROWS}
  generator.updates-per-row: 0
transform:
  - source-table: \\.*.\\.*.\\.*
    projection: id, CAST(CONCAT('x', CAST(id AS STRING)) AS INT) AS bad, CAST(CAST(id AS STRING) AS DECIMAL(38, 18)) AS d
sink:
  type: file
  path: {out}
pipeline:
  name: casts
  bad-record.policy: fail{mode_line}
"""


def rows_in(path):
    return [json.loads(line)["after"] for line in path.read_text().splitlines()]


def test_a_cast_of_text_that_is_no_number_is_null_and_the_pipeline_finishes(tmp_path):
    out = tmp_path / "out.jsonl"
    yaml = cdcd.write_pipeline(tmp_path, pipeline(out))
    done = cdcd.run(["run", yaml, "--state-dir", tmp_path / "state"])
    assert done.returncode == 0, done.stderr
    rows = rows_in(out)
    assert sorted(r["id"] for r in rows) == list(range(1, ROWS + 1))
    assert all(r["bad"] is None for r in rows)


def test_the_decimal_precision_mode_reaches_the_transform(tmp_path):
    d = {}
    for mode in ("UP_TO_19", "UP_TO_38"):
        out = tmp_path / f"{mode}.jsonl"
        yaml = cdcd.write_pipeline(tmp_path, pipeline(out, f"\n  transform.decimal.precision.mode: {mode}"),
                                   name=f"{mode}.yaml")
        done = cdcd.run(["run", yaml, "--state-dir", tmp_path / f"state-{mode}"])
        assert done.returncode == 0, done.stderr
        d[mode] = {r["id"]: r["d"] for r in rows_in(out)}
    assert d["UP_TO_19"][9] == 9 and d["UP_TO_19"][10] is None  # casting.yaml, DECIMAL(38, 18)
    assert d["UP_TO_38"][10] == 10
