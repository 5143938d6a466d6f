"""The bad-record policy (pipeline `bad-record.policy`) through the binary: a transform row that
cannot be evaluated stops the pipeline (fail), is logged and counted (skip), or lands in the
dead-letter file exactly once across kill -9 (dead-letter), also at parallelism 2, where the
transform runs in two lanes and in each source reader, each with its own dead letters."""
import json
import os
import random

import pytest

import cdcd_process as cdcd

ROWS = 2000
IDS = set(range(1, ROWS + 1))  # GENERATED inserts ids 1..rows
# id % 100 == 7 divides by zero: 20 bad rows out of ROWS.
BAD_IDS = {i for i in IDS if i % 100 == 7}


def pipeline(out, policy, dead_letter=None, rate=0, rows=ROWS, parallelism=1):
    extra = f"\n  bad-record.dead-letter.path: {dead_letter}" if dead_letter else ""
    return f"""
source:
  type: values
  event-set.id: GENERATED
  generator.rows: {rows}
  generator.updates-per-row: 0
  generator.rate: {rate}
transform:
  - source-table: \\.*.\\.*.\\.*
    projection: \\*, 1000 / (id % 100 - 7) AS q
sink:
  type: file
  path: {out}
pipeline:
  name: bad-records
  parallelism: {parallelism}
  transform.lanes: {parallelism}
  execution.checkpointing.interval: 100ms
  bad-record.policy: {policy}{extra}
"""


def ids_in(path, parallelism=1):
    paths = [path] if parallelism == 1 else [path.with_name(f"{path.name}.{i}") for i in range(parallelism)]
    return [json.loads(line)["after"]["id"] for p in paths for line in p.read_text().splitlines()]


def test_fail_stops_at_the_row_and_names_it(tmp_path):
    out = tmp_path / "out.jsonl"
    yaml = cdcd.write_pipeline(tmp_path, pipeline(out, "fail"))
    done = cdcd.run(["run", yaml, "--state-dir", tmp_path / "state"])
    assert done.returncode == 1
    assert "failed to evaluate" in done.stderr and "/ by zero" in done.stderr
    assert "{id=7}" in done.stderr
    # Nothing at or past the bad row was committed; a restart fails on the same row again.
    assert all(i < 7 for i in (ids_in(out) if out.exists() else []))
    again = cdcd.run(["run", yaml, "--state-dir", tmp_path / "state"])
    assert again.returncode == 1 and "{id=7}" in again.stderr


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")
def test_fail_stops_at_a_row_a_source_reader_transforms(tmp_path):
    # At parallelism 2 each source reader transforms its own rows; id 1500 comes well after the
    # first batches (which the loop routes), so a reader's own operator fails on it.
    out = tmp_path / "out.jsonl"
    yaml = pipeline(out, "fail", rate=2000, parallelism=2).replace(
        "1000 / (id % 100 - 7)", "1000 / (id - 1500)").replace("  transform.lanes: 2\n", "")
    path = cdcd.write_pipeline(tmp_path, yaml)
    done = cdcd.run(["run", path, "--state-dir", tmp_path / "state"])
    assert done.returncode == 1
    assert "transform: on each source reader's thread too" in done.stderr
    assert "failed to evaluate" in done.stderr and "/ by zero" in done.stderr
    assert "{id=1500}" in done.stderr
    assert 1500 not in ids_in(out, 2)
    again = cdcd.run(["run", path, "--state-dir", tmp_path / "state"])
    assert again.returncode == 1 and "{id=1500}" in again.stderr


@pytest.mark.parametrize("parallelism", [1, 2])
def test_skip_drops_only_the_bad_rows_and_logs_at_a_bounded_rate(tmp_path, parallelism):
    out = tmp_path / "out.jsonl"
    yaml = cdcd.write_pipeline(tmp_path, pipeline(out, "skip", parallelism=parallelism))
    done = cdcd.run(["run", yaml, "--state-dir", tmp_path / "state"])
    assert done.returncode == 0, done.stderr
    got = ids_in(out, parallelism)
    assert sorted(got) == sorted(IDS - BAD_IDS)
    logged = [line for line in done.stderr.splitlines() if "bad record" in line and "skipped" in line]
    # At most 10 lines per window from the transform, whatever its threads (lanes, the loop's own
    # operator, source readers), as from the sink's writers together.
    assert 1 <= len(logged) <= 10, done.stderr


@pytest.mark.parametrize("parallelism", [1, 2])
def test_dead_letter_holds_each_bad_row_exactly_once_across_kill_9(tmp_path, parallelism):
    dead = tmp_path / "dead.jsonl"
    out = tmp_path / "out.jsonl"
    # 4 s of input at 1000 rows/s: six kills at most 0.4 s into each run all land mid-stream.
    rows = 4000
    ids = set(range(1, rows + 1))
    bad_ids = {i for i in ids if i % 100 == 7}
    yaml = cdcd.write_pipeline(
        tmp_path, pipeline(out, "dead-letter", dead, rate=1000, rows=rows, parallelism=parallelism),
        "dl.yaml")
    state = tmp_path / "state"
    rng = random.Random(13)
    kills = 0
    for _ in range(6):
        killed, _ = cdcd.kill_9_after(["run", yaml, "--state-dir", state], rng.uniform(0.1, 0.4))
        kills += killed
    assert kills == 6
    final = cdcd.run(["run", yaml, "--state-dir", state], timeout=120)
    assert final.returncode == 0, final.stderr
    assert ("transform: 2 lanes" in final.stderr) == (parallelism == 2)
    # At parallelism 2 on two CPUs, the source readers transform their own rows too, each with
    # its own dead letters.
    if len(os.sched_getaffinity(0)) >= 2:
        assert ("transform: on each source reader's thread too" in final.stderr) == (parallelism == 2)

    assert sorted(ids_in(out, parallelism)) == sorted(ids - bad_ids)
    records = [json.loads(line) for line in dead.read_text().splitlines()]
    dead_ids = [json.loads(r["record"])["row"]["id"] for r in records]
    assert sorted(dead_ids) == sorted(bad_ids)
    first = records[0]
    assert first["stage"] == "transform" and first["reason"] == "eval-error"
    assert first["pipeline"] == "bad-records" and "/ by zero" in first["error"]
    assert f"{{id={dead_ids[0]}}}" in first["position"]
