"""kill -9 at random moments never loses or duplicates a change: the file sink's output after
crashes and restarts is byte-identical to an uninterrupted run's (at parallelism 2, where the
source's two readers interleave their shares in each writer's file, the same changes with each
key's in the same order)."""
import random

import pytest

import cdcd_process as cdcd
from generated_changes import changes_by_key, generated_source, output_files

ROWS, ROUNDS, DELETE_EVERY = 100_000, 3, 7
TOTAL = ROWS + ROWS * ROUNDS + ROWS // DELETE_EVERY


# Computed strings written over the input rows (a leading `*`), and a filter that drops events
# (and turns none of the updates into inserts or deletes: an id keeps its verdict).
TRANSFORM = r"""transform:
  - source-table: default_namespace.default_schema.generated
    projection: \*, UPPER(SUBSTR(payload, 1, 4)) AS tag, id * 2 + version AS score, CONCAT(CAST(id AS STRING), '-', CAST(version AS STRING)) AS row_key
    filter: id % 10 > 0
"""


def pipeline(out, rate=0, parallelism=1, lanes=0):
    transform = TRANSFORM if lanes else ""
    lanes_option = f"  transform.lanes: {lanes}\n" if lanes else ""
    return generated_source(ROWS, ROUNDS, DELETE_EVERY, 40, rate) + transform + f"""sink:
  type: file
  path: {out}
  format: debezium-json
pipeline:
  name: crash-test
  parallelism: {parallelism}
  execution.checkpointing.interval: 200ms
""" + lanes_option


def outputs(path, parallelism):
    """The file sink's output: one file, or one per writer (`path.<index>`)."""
    return [f.read_bytes() for f in output_files(path, parallelism)]


def assert_same_changes(got, expected, parallelism):
    if parallelism == 1:
        assert got == expected
        return
    assert len(got) == len(expected)
    for got_part, expected_part in zip(got, expected):
        assert sorted(got_part.splitlines()) == sorted(expected_part.splitlines())
        assert changes_by_key(got_part) == changes_by_key(expected_part)


# At parallelism 2 the file sink's two writers run on threads of their own, each with its file,
# and the source's two readers run on the same threads. With a transform at parallelism 1, the
# source reads on the loop and the transform's lane writes the projected rows over the input rows,
# drops the filtered events and hands both back in order; at parallelism 2 each reader transforms
# its own rows (the two lanes get only the batches that go through the loop).
@pytest.mark.parametrize("parallelism,lanes", [(1, 0), (2, 0), (1, 1), (2, 2)],
                         ids=["p1", "p2", "p1-transform", "p2-transform-2-lanes"])
def test_kill_9_twenty_times_then_finish_is_byte_identical(tmp_path, parallelism, lanes):
    reference = tmp_path / "reference.jsonl"
    ref_yaml = cdcd.write_pipeline(
        tmp_path, pipeline(reference, parallelism=parallelism, lanes=lanes), "reference.yaml")
    done = cdcd.run(["run", ref_yaml, "--state-dir", tmp_path / "ref-state"])
    assert done.returncode == 0, done.stderr
    expected = outputs(reference, parallelism)
    if lanes:
        assert sum(part.count(b"\n") for part in expected) < TOTAL, "the filter drops events"
        assert b'"row_key":"1-0"' in b"".join(expected)
    else:
        assert sum(part.count(b"\n") for part in expected) == TOTAL
    assert all(part for part in expected), "every writer has a share of the keys"

    crashed = tmp_path / "crashed.jsonl"
    # Slow enough that every kill lands mid-stream; the output does not depend on the rate.
    crash_yaml = cdcd.write_pipeline(
        tmp_path, pipeline(crashed, rate=50_000, parallelism=parallelism, lanes=lanes),
        "crash.yaml")
    state = tmp_path / "crash-state"
    rng = random.Random(20261130)
    kills = 0
    for _ in range(20):
        killed, _ = cdcd.kill_9_after(["run", crash_yaml, "--state-dir", state],
                                      rng.uniform(0.05, 0.6))
        kills += killed
    assert kills >= 15, "the pipeline finished too early for the kills to test anything"
    final = cdcd.run(["run", crash_yaml, "--state-dir", state], timeout=300)
    assert final.returncode == 0, final.stderr
    assert "restored checkpoint" in final.stderr
    if parallelism == 2 and not lanes:
        assert "source readers: 2 on the sink writers' threads" in final.stderr
    assert_same_changes(outputs(crashed, parallelism), expected, parallelism)


# Each restart at another parallelism than the run before: a writer goes on in a file of the
# checkpoint's by its name (`out`, `out.0`, ...), the files no writer goes on in are cut back to
# their checkpointed length and kept. Across all of them every change is there once, and in each
# file a key's changes are in their order.
def test_kill_9_with_the_parallelism_changing_loses_and_repeats_nothing(tmp_path):
    reference = tmp_path / "reference.jsonl"
    ref_yaml = cdcd.write_pipeline(tmp_path, pipeline(reference), "reference.yaml")
    done = cdcd.run(["run", ref_yaml, "--state-dir", tmp_path / "ref-state"])
    assert done.returncode == 0, done.stderr
    expected = reference.read_bytes().splitlines()
    order = {line: i for i, line in enumerate(expected)}

    crashed = tmp_path / "crashed.jsonl"
    state = tmp_path / "crash-state"
    rng = random.Random(20261207)
    kills = 0
    log = ""
    for attempt in range(16):
        parallelism = (1, 2, 3)[attempt % 3]
        yaml = cdcd.write_pipeline(
            tmp_path, pipeline(crashed, rate=50_000, parallelism=parallelism), "crash.yaml")
        killed, err = cdcd.kill_9_after(["run", yaml, "--state-dir", state], rng.uniform(0.1, 0.6))
        kills += killed
        log += err
    assert kills >= 12, "the pipeline finished too early for the kills to test anything"
    final = cdcd.run(["run", cdcd.write_pipeline(tmp_path, pipeline(crashed, parallelism=2),
                                                 "crash.yaml"), "--state-dir", state], timeout=300)
    assert final.returncode == 0, final.stderr
    log += final.stderr
    assert "resumed it with 3, the sink's state redistributed" in log
    assert "resumed it with 1, the sink's state redistributed" in log
    assert "ends at its checkpointed" in log  # a file no writer goes on in was cut back

    files = [crashed] + [crashed.with_name(f"{crashed.name}.{i}") for i in range(3)]
    got = []
    for f in files:
        lines = f.read_bytes().splitlines()
        assert lines, f"{f.name} holds changes"
        for changes in changes_by_key(b"\n".join(lines)).values():
            positions = [order[line] for line in changes]
            assert positions == sorted(positions), f"a key's changes out of order in {f.name}"
        got += lines
    assert len(got) == len(expected), f"{len(got) - len(expected):+d} changes"
    assert sorted(got) == sorted(expected)


def test_a_finished_pipeline_restarted_emits_nothing(tmp_path):
    out = tmp_path / "out.jsonl"
    yaml = cdcd.write_pipeline(tmp_path, pipeline(out))
    first = cdcd.run(["run", yaml, "--state-dir", tmp_path / "s"])
    assert first.returncode == 0, first.stderr
    content = out.read_bytes()
    second = cdcd.run(["run", yaml, "--state-dir", tmp_path / "s"])
    assert second.returncode == 0, second.stderr
    assert out.read_bytes() == content
    assert "0 events out" in second.stderr or "1 events out" in second.stderr
