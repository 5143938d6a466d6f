"""The transform in two lanes (`transform.lanes: 2`), each a thread with its own operator: runs
of data changes go to the first lane with room, schema changes to both. What comes out is what one
lane makes, in the same order per key, and checkpoints taken with two lanes resume exactly with
one and back. Left to choose, cdcd runs one lane per writer but leaves a CPU to the event loop."""
import json
import os
import shutil
import signal
import subprocess

import pytest

import cdcd_process as cdcd
from generated_changes import all_changes_by_key, generated_source, stop_mid_stream

ROWS, ROUNDS, DELETE_EVERY = 20_000, 3, 7
LANES_LOG = "transform: 2 lanes"

pytestmark = pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")


def generated(out, parallelism, rate=0, lanes=0):
    return generated_source(ROWS, ROUNDS, DELETE_EVERY, 20, rate) + f"""transform:
  - source-table: default_namespace.default_schema.generated
    projection: \\*, UPPER(SUBSTR(payload, 1, 6)) AS tag, id * 2 + version AS score
    filter: id % 10 > 0
sink:
  type: file
  path: {out}
pipeline:
  name: lanes
  parallelism: {parallelism}
  transform.lanes: {lanes}
  execution.checkpointing.interval: 100ms
"""


by_key = all_changes_by_key


def test_two_lanes_write_what_one_writes_each_key_in_order(tmp_path):
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    ref = cdcd.run(["run", cdcd.write_pipeline(tmp_path, generated(one, 1), "one.yaml"),
                    "--state-dir", tmp_path / "s1"])
    assert ref.returncode == 0, ref.stderr
    assert "transform: 1 lane" not in ref.stderr  # the lanes are named at parallelism 2 and more
    done = cdcd.run(["run", cdcd.write_pipeline(tmp_path, generated(two, 2, lanes=2), "two.yaml"),
                     "--state-dir", tmp_path / "s2"])
    assert done.returncode == 0, done.stderr
    assert LANES_LOG in done.stderr
    per_lane = done.stderr.split("runs of data changes per lane: ")[1].splitlines()[0].split(", ")
    assert len(per_lane) == 2 and sum(int(n) for n in per_lane) > 0
    expected = by_key(one, 1)
    assert len(expected) == ROWS - ROWS // 10
    assert by_key(two, 2) == expected
    some = json.loads(expected[17][-1])
    assert some["after"]["tag"] == "17-3-X" and some["after"]["score"] == 37


def test_schema_changes_reach_every_lane(tmp_path):
    # Flink CDC's testTransform event set (tables created, columns added, renamed and dropped
    # between the rows) through the same transform at parallelism 1 and 2: the same rows come out,
    # projected with the schema of their time, and the same schema changes in the same order
    # (each writer prints them, so parallelism 2 prints each twice).
    case = cdcd.REPO / "tests" / "integration" / "flink_compat" / "cases" / "evolve_transform"
    outputs = {}
    for parallelism in (1, 2):
        yaml = (case / "pipeline.yaml").read_text().replace(
            "parallelism: 1", f"parallelism: {parallelism}\n  transform.lanes: {parallelism}")
        done = cdcd.run(["run", cdcd.write_pipeline(tmp_path, yaml, f"p{parallelism}.yaml"),
                         "--state-dir", tmp_path / f"s{parallelism}"])
        assert done.returncode == 0, done.stderr
        assert (LANES_LOG in done.stderr) == (parallelism == 2)
        lines = [line.split("> ", 1)[-1] for line in done.stdout.splitlines() if line.strip()]
        rows = sorted(line for line in lines if line.startswith("DataChangeEvent"))
        changes = list(dict.fromkeys(line for line in lines if not line.startswith("DataChangeEvent")))
        outputs[parallelism] = (rows, changes)
    assert len(outputs[1][0]) == 4 and len(outputs[1][1]) == 4, outputs[1]
    assert outputs[2] == outputs[1]


def test_checkpoints_of_two_lanes_resume_on_one_and_back(tmp_path):
    reference = tmp_path / "reference.jsonl"
    ref = cdcd.run(["run", cdcd.write_pipeline(tmp_path, generated(reference, 2), "ref.yaml"),
                    "--state-dir", tmp_path / "ref-state"])
    assert ref.returncode == 0, ref.stderr
    out = tmp_path / "out.jsonl"
    state = tmp_path / "state"
    # (lanes, signal, seconds before it); paced, so that every stop lands mid-stream.
    stops = [(2, signal.SIGKILL, 0.5), (1, signal.SIGKILL, 0.4), (2, signal.SIGTERM, 0.5),
             (1, signal.SIGTERM, 0.4), (2, signal.SIGKILL, 0.3)]
    for lanes, how, after in stops:
        yaml = cdcd.write_pipeline(tmp_path, generated(out, 2, rate=20_000, lanes=lanes))
        proc = subprocess.Popen([cdcd.cdcd_bin(), "run", str(yaml), "--state-dir", str(state)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        cdcd.STARTED.append(proc)
        err = stop_mid_stream(proc, how, after)
        assert (LANES_LOG in err) == (lanes == 2)
    yaml = cdcd.write_pipeline(tmp_path, generated(out, 2, lanes=2))
    final = cdcd.run(["run", yaml, "--state-dir", state], timeout=300)
    assert final.returncode == 0, final.stderr
    assert "restored checkpoint" in final.stderr
    assert by_key(out, 2) == by_key(reference, 2)


def test_left_to_choose_the_lanes_leave_a_cpu_to_the_event_loop(tmp_path):
    # One lane per writer, at most one fewer than the CPUs: on two CPUs a second lane only
    # competed with the loop (GENERATED -> 5 computed columns -> values 6-28 % slower).
    cpus = len(os.sched_getaffinity(0))
    done = cdcd.run(["run", cdcd.write_pipeline(tmp_path, generated(tmp_path / "o.jsonl", 2)),
                     "--state-dir", tmp_path / "s"])
    assert done.returncode == 0, done.stderr
    assert (LANES_LOG in done.stderr) == (cpus >= 3)
    if cpus == 2:  # and the log says why, and what to set
        assert "transform: 1 lane (2 CPUs, one left to the event loop; pipeline.transform.lanes" \
            in done.stderr
    pinned = subprocess.run([shutil.which("taskset"), "-c", "0", cdcd.cdcd_bin(), "run",
                             str(cdcd.write_pipeline(tmp_path, generated(tmp_path / "p.jsonl", 2, lanes=2),
                                                     "pinned.yaml")),
                             "--state-dir", str(tmp_path / "p")], capture_output=True, text=True, timeout=120)
    # Asked for, two lanes run even on one CPU.
    assert pinned.returncode == 0, pinned.stderr
    assert LANES_LOG in pinned.stderr
