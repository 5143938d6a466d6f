"""A source that splits (GENERATED, by id) reads on the sink writers' threads when they have
threads of their own: every change arrives once, each key's in order, and a checkpoint the
readers took resumes exactly, also when the restart reads on one thread (one CPU) and the next
on two again. With a transform, each reader transforms its own changes, as the transform stage
would have."""
import json
import os
import shutil
import signal
import subprocess

import pytest

import cdcd_process as cdcd
from generated_changes import all_changes_by_key, generated_source, stop_mid_stream

ROWS, ROUNDS, DELETE_EVERY = 20_000, 3, 7
TOTAL = ROWS + ROWS * ROUNDS + ROWS // DELETE_EVERY
READERS_LOG = "source readers: 2 on the sink writers' threads"

pytestmark = pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")


def pipeline(out, rate=0):
    return generated_source(ROWS, ROUNDS, DELETE_EVERY, 20, rate) + f"""sink:
  type: file
  path: {out}
pipeline:
  name: readers
  parallelism: 2
  execution.checkpointing.interval: 100ms
"""


def by_key(out):
    """Every key's changes, in the order of the writer's file that holds them."""
    return all_changes_by_key(out, 2)


def start(yaml, state, one_cpu):
    prefix = [shutil.which("taskset"), "-c", "0"] if one_cpu else []
    proc = subprocess.Popen(prefix + [cdcd.cdcd_bin(), "run", str(yaml), "--state-dir", str(state)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    cdcd.STARTED.append(proc)
    return proc


def test_generated_reads_on_the_writers_threads_every_change_once_in_key_order(tmp_path):
    out = tmp_path / "out.jsonl"
    done = cdcd.run(["run", cdcd.write_pipeline(tmp_path, pipeline(out)), "--state-dir", tmp_path / "s"])
    assert done.returncode == 0, done.stderr
    assert READERS_LOG in done.stderr
    changes = by_key(out)
    assert len(changes) == ROWS
    assert sum(len(lines) for lines in changes.values()) == TOTAL
    for key, lines in changes.items():
        versions = [json.loads(line)["after"]["version"] for line in lines if json.loads(line)["after"]]
        assert versions == list(range(ROUNDS + 1)), f"key {key}: {versions}"
        assert ('"op":"d"' in lines[-1]) == (key % DELETE_EVERY == 0)


def test_checkpoints_of_two_readers_resume_on_one_thread_and_back(tmp_path):
    reference = tmp_path / "reference.jsonl"
    ref = cdcd.run(["run", cdcd.write_pipeline(tmp_path, pipeline(reference), "ref.yaml"),
                    "--state-dir", tmp_path / "ref-state"])
    assert ref.returncode == 0, ref.stderr
    out = tmp_path / "out.jsonl"
    # Paced, so that every stop lands mid-stream (the rate is shared out between the readers).
    yaml = cdcd.write_pipeline(tmp_path, pipeline(out, rate=20_000))
    state = tmp_path / "state"
    stops = [(False, signal.SIGKILL, 0.5), (True, signal.SIGKILL, 0.4), (False, signal.SIGTERM, 0.5),
             (True, signal.SIGTERM, 0.4), (False, signal.SIGKILL, 0.3)]
    for one_cpu, how, after in stops:
        err = stop_mid_stream(start(yaml, state, one_cpu), how, after)
        if not one_cpu:
            assert READERS_LOG in err
    final = cdcd.run(["run", yaml, "--state-dir", state], timeout=300)
    assert final.returncode == 0, final.stderr
    assert "restored checkpoint" in final.stderr
    assert by_key(out) == by_key(reference)


# Every event the projection keeps gets two computed columns; the filter drops every fifth key.
TRANSFORM = r"""transform:
  - source-table: default_namespace.default_schema.generated
    projection: id, version, UPPER(payload) AS payload, id * 2 + version AS score
    filter: id % 5 > 0
"""
READERS_TRANSFORM_LOG = "transform: on each source reader's thread too"


def with_transform(yaml):
    return yaml.replace("sink:", TRANSFORM + "sink:", 1)


def test_with_a_transform_each_reader_transforms_its_own_changes(tmp_path):
    # The reference: parallelism 1, the source on the loop and the transform in its stage.
    reference = tmp_path / "reference.jsonl"
    ref_yaml = with_transform(pipeline(reference)).replace("parallelism: 2", "parallelism: 1")
    ref = cdcd.run(["run", cdcd.write_pipeline(tmp_path, ref_yaml, "ref.yaml"),
                    "--state-dir", tmp_path / "ref-state"])
    assert ref.returncode == 0, ref.stderr
    assert "source readers" not in ref.stderr
    out = tmp_path / "out.jsonl"
    done = cdcd.run(["run", cdcd.write_pipeline(tmp_path, with_transform(pipeline(out))),
                     "--state-dir", tmp_path / "s"])
    assert done.returncode == 0, done.stderr
    assert READERS_LOG in done.stderr and READERS_TRANSFORM_LOG in done.stderr
    changes = by_key(out)
    assert changes == all_changes_by_key(reference, 1)
    assert set(changes) == {key for key in range(1, ROWS + 1) if key % 5}
    for key, lines in changes.items():
        after = [json.loads(line)["after"] for line in lines if json.loads(line)["after"]]
        assert [row["version"] for row in after] == list(range(ROUNDS + 1)), f"key {key}"
        assert all(row["score"] == key * 2 + row["version"] for row in after)
        assert all(row["payload"] == row["payload"].upper() for row in after)


def test_with_a_transform_checkpoints_resume_on_one_thread_and_back(tmp_path):
    # On one CPU the readers do not start and the stage transforms everything; the readers'
    # operators start from the state the stage's left, and the other way round.
    reference = tmp_path / "reference.jsonl"
    ref = cdcd.run(["run", cdcd.write_pipeline(tmp_path, with_transform(pipeline(reference)),
                                               "ref.yaml"),
                    "--state-dir", tmp_path / "ref-state"])
    assert ref.returncode == 0, ref.stderr
    out = tmp_path / "out.jsonl"
    yaml = cdcd.write_pipeline(tmp_path, with_transform(pipeline(out, rate=20_000)))
    state = tmp_path / "state"
    stops = [(False, signal.SIGKILL, 0.5), (True, signal.SIGKILL, 0.4), (False, signal.SIGTERM, 0.5),
             (True, signal.SIGTERM, 0.4), (False, signal.SIGKILL, 0.3)]
    for one_cpu, how, after in stops:
        err = stop_mid_stream(start(yaml, state, one_cpu), how, after)
        assert (READERS_TRANSFORM_LOG in err) == (not one_cpu), err
    final = cdcd.run(["run", yaml, "--state-dir", state], timeout=300)
    assert final.returncode == 0, final.stderr
    assert "restored checkpoint" in final.stderr
    assert by_key(out) == by_key(reference)
