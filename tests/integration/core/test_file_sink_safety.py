"""The file sink never truncates, overwrites or zero-fills a file it cannot prove is its own: a
fresh start onto a non-empty file, and a restart whose checkpoint names another file (deleted,
rotated, another path, another working directory), fail naming the file and leave it untouched;
`if-exists` says when to append or overwrite instead."""
import os
import signal
import subprocess

import cdcd_process as cdcd

PRECIOUS = b"someone's data, not cdcd's\n" * 100


def pipeline(out, rows=1000, rate=0, interval="200ms", extra=""):
    return f"""
source:
  type: values
  event-set.id: GENERATED
  generator.rows: {rows}
  generator.updates-per-row: 1
  generator.payload-bytes: 40
  generator.rate: {rate}
sink:
  type: file
  path: {out}
  format: debezium-json{extra}
pipeline:
  name: file-safety
  execution.checkpointing.interval: {interval}
"""


def reference_output(tmp_path, rows=1000):
    """What a run writes into a new file."""
    out = tmp_path / "reference.jsonl"
    yaml = cdcd.write_pipeline(tmp_path, pipeline(out, rows), "reference.yaml")
    done = cdcd.run(["run", yaml, "--state-dir", tmp_path / "reference-state"])
    assert done.returncode == 0, done.stderr
    return out.read_bytes()


def run_to_completion(tmp_path, out, state, name="pipeline.yaml"):
    yaml = cdcd.write_pipeline(tmp_path, pipeline(out), name)
    done = cdcd.run(["run", yaml, "--state-dir", state])
    assert done.returncode == 0, done.stderr
    return yaml


# ---- (a) a fresh start onto an existing file --------------------------------------------------

def test_a_fresh_start_onto_a_non_empty_file_fails_and_leaves_it_intact(tmp_path):
    out = tmp_path / "precious.txt"
    out.write_bytes(PRECIOUS)
    yaml = cdcd.write_pipeline(tmp_path, pipeline(out))
    result = cdcd.run(["run", yaml, "--state-dir", tmp_path / "s"])
    assert result.returncode != 0
    assert str(out) in result.stderr
    assert "if-exists" in result.stderr
    assert out.read_bytes() == PRECIOUS


def test_if_exists_append_keeps_the_content_and_writes_after_it(tmp_path):
    expected = reference_output(tmp_path)
    out = tmp_path / "out.jsonl"
    out.write_bytes(PRECIOUS)
    yaml = cdcd.write_pipeline(tmp_path, pipeline(out, extra="\n  if-exists: append"))
    result = cdcd.run(["run", yaml, "--state-dir", tmp_path / "s"])
    assert result.returncode == 0, result.stderr
    assert out.read_bytes() == PRECIOUS + expected


def test_if_exists_overwrite_replaces_the_content(tmp_path):
    expected = reference_output(tmp_path)
    out = tmp_path / "out.jsonl"
    out.write_bytes(PRECIOUS)
    yaml = cdcd.write_pipeline(tmp_path, pipeline(out, extra="\n  if-exists: overwrite"))
    result = cdcd.run(["run", yaml, "--state-dir", tmp_path / "s"])
    assert result.returncode == 0, result.stderr
    assert out.read_bytes() == expected


def test_each_parallel_writer_checks_its_own_file(tmp_path):
    out = tmp_path / "out.jsonl"
    (tmp_path / "out.jsonl.1").write_bytes(PRECIOUS)
    yaml = cdcd.write_pipeline(tmp_path, pipeline(out) + "  parallelism: 2\n")
    result = cdcd.run(["run", yaml, "--state-dir", tmp_path / "s"])
    assert result.returncode != 0
    assert str(out) + ".1" in result.stderr
    assert (tmp_path / "out.jsonl.1").read_bytes() == PRECIOUS


# ---- (b) a restart after the output file was deleted or rotated ------------------------------

def test_a_restart_after_the_file_was_deleted_fails_and_creates_nothing(tmp_path):
    out = tmp_path / "out.jsonl"
    yaml = run_to_completion(tmp_path, out, tmp_path / "s")
    out.unlink()
    result = cdcd.run(["run", yaml, "--state-dir", tmp_path / "s"])
    assert result.returncode != 0
    assert str(out) in result.stderr and "does not exist" in result.stderr
    assert not out.exists(), "no file of zeros in its place"


def test_a_restart_after_rotation_fails_and_leaves_both_files_intact(tmp_path):
    out = tmp_path / "out.jsonl"
    yaml = run_to_completion(tmp_path, out, tmp_path / "s")
    written = out.read_bytes()
    out.rename(tmp_path / "out.jsonl.1")
    out.write_bytes(b"")  # what a log rotator leaves behind
    result = cdcd.run(["run", yaml, "--state-dir", tmp_path / "s"])
    assert result.returncode != 0
    assert str(out) in result.stderr and "is not the file" in result.stderr
    assert out.read_bytes() == b"", "the new file is not extended with zeros"
    assert (tmp_path / "out.jsonl.1").read_bytes() == written
    # --reset-state is the way forward: a fresh start into the (empty) new file.
    again = cdcd.run(["run", yaml, "--state-dir", tmp_path / "s", "--reset-state"])
    assert again.returncode == 0, again.stderr
    assert out.read_bytes() == written


def test_a_file_rotated_while_written_fails_the_checkpoint_and_a_restart_resumes_exactly_once(tmp_path):
    """Moved away while cdcd writes it (a log rotator's rename): the next checkpoint fails instead
    of recording rows that are no longer at `path`; with the file moved back, a restart resumes
    from the last checkpoint and the file ends as one uninterrupted run writes it."""
    expected = reference_output(tmp_path)
    out = tmp_path / "out.jsonl"
    rotated = tmp_path / "out.jsonl.1"
    yaml = cdcd.write_pipeline(tmp_path, pipeline(out, rate=500))
    proc = cdcd.start(["run", yaml, "--state-dir", tmp_path / "s"], stdout=subprocess.DEVNULL,
                      stderr=subprocess.PIPE, text=True)
    code, stderr = cdcd.moved_under_it(proc, out, 10_000, out, rotated)
    assert code == 1, stderr
    assert f"output file {out}" in stderr and "was moved away while cdcd wrote it" in stderr
    assert "this checkpoint is not taken" in stderr
    rotated.rename(out)
    done = cdcd.run(["run", cdcd.write_pipeline(tmp_path, pipeline(out), "b.yaml"), "--state-dir", tmp_path / "s"])
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == expected


def test_a_second_pipeline_writing_the_same_file_is_refused_while_the_first_runs(tmp_path):
    """Two pipelines (state dirs of their own) given one path, the second told to append: each
    would write at its own offsets, over the other's rows (2,400 lines of 4,000 survived). The
    second is refused while the first has the file; the first ends as it would alone."""
    expected = reference_output(tmp_path)
    out = tmp_path / "out.jsonl"
    first = cdcd.start(["run", cdcd.write_pipeline(tmp_path, pipeline(out, rate=500), "first.yaml"),
                        "--state-dir", tmp_path / "first"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    assert cdcd.wait_for(lambda: out.exists() and out.stat().st_size > 0, 30)
    second = cdcd.run(["run", cdcd.write_pipeline(tmp_path, pipeline(out, extra="\n  if-exists: append"),
                                                  "second.yaml"), "--state-dir", tmp_path / "second"])
    assert second.returncode == 1, second.stderr
    assert f"output file {out} is being written by another process" in second.stderr
    assert cdcd.wait_exit(first, timeout=60) == 0, first.stderr.read()
    assert out.read_bytes() == expected


# ---- (c) a restart whose checkpoint was written for another file -----------------------------

def test_a_restart_with_another_path_fails_and_leaves_that_file_intact(tmp_path):
    run_to_completion(tmp_path, tmp_path / "first.jsonl", tmp_path / "s")
    other = tmp_path / "other.txt"
    other.write_bytes(PRECIOUS)
    yaml = cdcd.write_pipeline(tmp_path, pipeline(other), "changed.yaml")
    result = cdcd.run(["run", yaml, "--state-dir", tmp_path / "s"])
    assert result.returncode != 0
    assert str(other) in result.stderr and str(tmp_path / "first.jsonl") in result.stderr
    assert other.read_bytes() == PRECIOUS


def test_a_relative_path_run_from_another_directory_fails_and_creates_nothing(tmp_path):
    first_dir, second_dir = tmp_path / "first", tmp_path / "second"
    first_dir.mkdir()
    second_dir.mkdir()
    yaml = cdcd.write_pipeline(tmp_path, pipeline("out.jsonl"))
    state = tmp_path / "s"
    done = cdcd.run(["run", yaml, "--state-dir", state], cwd=first_dir)
    assert done.returncode == 0, done.stderr
    result = cdcd.run(["run", yaml, "--state-dir", state], cwd=second_dir)
    assert result.returncode != 0
    assert "out.jsonl" in result.stderr and "does not exist" in result.stderr
    assert not (second_dir / "out.jsonl").exists()


def test_the_default_state_dir_shared_by_two_pipelines_does_not_touch_the_second_file(tmp_path):
    # Both pipelines run from the same directory without --state-dir: they find the same
    # ./cdcd-state, and the second one's checkpoint is the first one's.
    run = tmp_path / "run"
    run.mkdir()
    first = cdcd.write_pipeline(tmp_path, pipeline(tmp_path / "first.jsonl"), "first.yaml")
    assert cdcd.run(["run", first], cwd=run).returncode == 0
    other = tmp_path / "second.jsonl"
    other.write_bytes(PRECIOUS[:10])  # shorter than what the checkpoint committed
    second = cdcd.write_pipeline(tmp_path, pipeline(other), "second.yaml")
    result = cdcd.run(["run", second], cwd=run)
    assert result.returncode != 0
    assert str(other) in result.stderr
    assert other.read_bytes() == PRECIOUS[:10]


# ---- a crash before the first checkpoint ------------------------------------------------------

def test_kill_9_before_the_first_checkpoint_resumes_into_the_same_file(tmp_path):
    """The fresh start claims its file in a checkpoint before writing: the restart after a crash
    that left a half-written file (and no regular checkpoint) continues it, byte-identical."""
    rows = 20_000
    expected = reference_output(tmp_path, rows)
    out = tmp_path / "out.jsonl"
    slow = cdcd.write_pipeline(tmp_path, pipeline(out, rows, rate=5_000, interval="1h"), "slow.yaml")
    proc = cdcd.start(["run", slow, "--state-dir", tmp_path / "s"], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL)
    try:
        wrote = cdcd.wait_for(lambda: out.exists() and out.stat().st_size > 0, timeout=60)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert wrote, "the pipeline wrote nothing before the kill"
    assert 0 < len(out.read_bytes()) < len(expected)
    fast = cdcd.write_pipeline(tmp_path, pipeline(out, rows), "fast.yaml")
    result = cdcd.run(["run", fast, "--state-dir", tmp_path / "s"])
    assert result.returncode == 0, result.stderr
    assert out.read_bytes() == expected
    assert os.path.getsize(out) == len(expected)
