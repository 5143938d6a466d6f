"""The state directory through the binary: one daemon per directory (a second `cdcd run` is refused
before it touches anything), `--from-checkpoint` resumes from an older stored checkpoint, and a
directory whose RocksDB files are damaged is refused by `run` and moved aside by `--reset-state`."""
import pathlib
import re
import subprocess

import cdcd_process as cdcd

ROWS = 20_000


def pipeline(out, rate=0, interval="100ms", retained=5):
    return f"""
source:
  type: values
  event-set.id: GENERATED
  generator.rows: {ROWS}
  generator.payload-bytes: 20
  generator.rate: {rate}
sink:
  type: file
  path: {out}
  format: debezium-json
pipeline:
  name: state-dir-test
  execution.checkpointing.interval: {interval}
  state.checkpoints.num-retained: {retained}
"""


def reference(tmp_path):
    out = tmp_path / "reference.jsonl"
    yaml = cdcd.write_pipeline(tmp_path, pipeline(out), "reference.yaml")
    done = cdcd.run(["run", yaml, "--state-dir", tmp_path / "ref-state"])
    assert done.returncode == 0, done.stderr
    return out.read_bytes()


def stored_ids(state):
    listed = cdcd.run(["checkpoints", "list", "--state-dir", state])
    assert listed.returncode == 0, listed.stderr
    return [int(line.split()[1]) for line in listed.stdout.splitlines()[1:]]


def test_a_second_run_on_a_running_pipelines_state_dir_is_refused(tmp_path):
    expected = reference(tmp_path)
    out = tmp_path / "out.jsonl"
    yaml = cdcd.write_pipeline(tmp_path, pipeline(out, rate=5_000))
    state = tmp_path / "state"
    log = tmp_path / "first.log"
    with open(log, "w") as stderr:
        first = cdcd.start(["run", yaml, "--state-dir", state], stdout=subprocess.DEVNULL, stderr=stderr)
        try:
            assert cdcd.wait_for(lambda: "running:" in log.read_text() or first.poll() is not None, 30)
            assert first.poll() is None, log.read_text()
            second = cdcd.run(["run", yaml, "--state-dir", state])
            # The read-only checkpoint tool still works next to the daemon.
            listed = cdcd.run(["checkpoints", "list", "--state-dir", state])
            still_running = first.poll() is None
            code = cdcd.wait_exit(first, 60)
        finally:
            if first.poll() is None:
                first.kill()
    assert still_running, "the first daemon ended before the second start: nothing was tested"
    assert second.returncode == 1
    assert f"state directory {state} is in use by another cdcd process (pid {first.pid})" in second.stderr
    assert "running:" not in second.stderr
    assert listed.returncode == 0, listed.stderr
    assert code == 0, log.read_text()[-3000:]
    assert out.read_bytes() == expected


def test_from_checkpoint_resumes_from_an_older_checkpoint_and_discards_the_newer(tmp_path):
    expected = reference(tmp_path)
    out = tmp_path / "out.jsonl"
    yaml = cdcd.write_pipeline(tmp_path, pipeline(out, rate=20_000, interval="50ms"))
    state = tmp_path / "state"
    done = cdcd.run(["run", yaml, "--state-dir", state])
    assert done.returncode == 0, done.stderr
    ids = stored_ids(state)
    assert len(ids) == 5, ids
    oldest = ids[0]

    missing = cdcd.run(["run", yaml, "--state-dir", state, "--from-checkpoint", "999999"])
    assert missing.returncode == 1
    stored = ", ".join(map(str, ids))
    assert f"no checkpoint 999999 of pipeline 'state-dir-test' is stored in {state}; the stored ones are {stored}" \
        in missing.stderr
    assert stored_ids(state) == ids

    # The resumed run keeps every checkpoint it takes, so that `oldest` stays stored however slowly
    # the replay runs: with 5 kept, a slow machine pruned it before the run ended.
    resumed = cdcd.write_pipeline(
        tmp_path, pipeline(out, rate=20_000, interval="50ms", retained=1000), "resumed.yaml")
    again = cdcd.run(["run", resumed, "--state-dir", state, "--from-checkpoint", str(oldest)])
    assert again.returncode == 0, again.stderr
    assert f"restored checkpoint {oldest} " in again.stderr
    # The file sink cut its file back to checkpoint `oldest` and the source replayed from there.
    assert out.read_bytes() == expected
    after = stored_ids(state)
    assert oldest in after
    assert not set(ids[1:]) & set(after), "the newer checkpoints were not discarded"
    assert after[-1] > ids[-1], "a discarded checkpoint's id was used again"


def test_a_damaged_state_dir_is_refused_by_run_and_moved_aside_by_reset_state(tmp_path):
    expected = reference(tmp_path)
    out = tmp_path / "out.jsonl"
    yaml = cdcd.write_pipeline(tmp_path, pipeline(out))
    state = tmp_path / "state"
    done = cdcd.run(["run", yaml, "--state-dir", state])
    assert done.returncode == 0, done.stderr
    (state / "CURRENT").write_text("garbage")  # RocksDB's pointer to its MANIFEST

    refused = cdcd.run(["run", yaml, "--state-dir", state])
    assert refused.returncode == 1
    assert f"cannot open state directory {state}" in refused.stderr
    assert "--reset-state" in refused.stderr
    assert (state / "CURRENT").read_text() == "garbage"  # nothing was changed

    # Starting over writes the output anew: the file sink will not write onto the old output.
    out.rename(tmp_path / "old-out.jsonl")
    reset = cdcd.run(["run", yaml, "--state-dir", state, "--reset-state"])
    assert reset.returncode == 0, reset.stderr
    moved = re.search(r"moved it aside to (\S+)", reset.stderr)
    assert moved, reset.stderr
    aside = moved.group(1)
    assert aside.startswith(f"{state}.corrupt-")
    assert pathlib.Path(aside, "CURRENT").read_text() == "garbage"  # kept, not deleted
    assert out.read_bytes() == expected
    assert stored_ids(state)  # a fresh, working state directory


def test_a_state_dir_moved_away_while_running_fails_the_checkpoint_and_put_back_resumes_exactly_once(tmp_path):
    """The state directory moved (or deleted) under a running pipeline: its checkpoints would go
    where no restart finds them, and its final one was reported written. The next checkpoint
    fails instead, naming the directory; moved back, it resumes exactly once."""
    expected = reference(tmp_path)
    out = tmp_path / "out.jsonl"
    state = tmp_path / "state"
    moved = tmp_path / "state.moved"
    yaml = cdcd.write_pipeline(tmp_path, pipeline(out, rate=5000))
    proc = cdcd.start(["run", yaml, "--state-dir", state], stdout=subprocess.DEVNULL,
                      stderr=subprocess.PIPE, text=True)
    code, stderr = cdcd.moved_under_it(proc, out, 50_000, state, moved)
    assert code == 1, stderr
    assert f"state directory {state} was moved away" in stderr
    moved.rename(state)
    done = cdcd.run(["run", cdcd.write_pipeline(tmp_path, pipeline(out), "b.yaml"), "--state-dir", state])
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == expected
