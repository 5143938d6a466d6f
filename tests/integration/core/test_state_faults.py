"""State-directory faults with the values source and the file sink (the runtime's own behaviour,
which every connector shares): the state directory's disk filling up while the pipeline runs
(ridden out under execution.checkpointing.tolerable-failed-checkpoints, else a clear error and a
clean restart), the file sink's and the dead-letter file's own disk filling up, and a read-only
state directory. Every run's output is compared with a fault-free run: nothing lost, nothing
twice. (A second instance on the same directory: test_state_dir.py.)"""
import json
import re
import signal
import socket
import subprocess

import cdcd_process as cdcd
from metrics_scrape import scrape, total
from state_faults import read_only, small_disk

ROWS = 20_000


def pipeline(out, rate=4_000, tolerable=None, dead_letter=None):
    tolerate = f"\n  execution.checkpointing.tolerable-failed-checkpoints: {tolerable}" if tolerable is not None else ""
    bad = ""
    transform = ""
    if dead_letter:
        # id % 100 == 7 divides by zero: those rows go to the dead-letter file.
        transform = """
transform:
  - source-table: \\.*.\\.*.\\.*
    projection: \\*, 1000 / (id % 100 - 7) AS q"""
        bad = f"\n  bad-record.policy: dead-letter\n  bad-record.dead-letter.path: {dead_letter}"
    return f"""
source:
  type: values
  event-set.id: GENERATED
  generator.rows: {ROWS}
  generator.payload-bytes: 20
  generator.updates-per-row: 0
  generator.rate: {rate}{transform}
sink:
  type: file
  path: {out}
  format: debezium-json
pipeline:
  name: state-faults
  execution.checkpointing.interval: 100ms{tolerate}{bad}
"""


def reference(tmp_path, **kwargs):
    out = tmp_path / "reference.jsonl"
    yaml = cdcd.write_pipeline(tmp_path, pipeline(out, rate=0, **kwargs), "reference.yaml")
    done = cdcd.run(["run", yaml, "--state-dir", tmp_path / "ref-state"])
    assert done.returncode == 0, done.stderr
    return out.read_bytes()


class Run:
    """One `cdcd run` in the background, its log in a file."""

    def __init__(self, tmp_path, yaml, state, name="run", extra=()):
        self.log = tmp_path / f"{name}.log"
        self.stderr = open(self.log, "w")
        self.proc = cdcd.start(["run", yaml, "--state-dir", state, *extra], stdout=subprocess.DEVNULL,
                               stderr=self.stderr)

    def text(self):
        return self.log.read_text(errors="replace")

    def wait_log(self, pattern, timeout=20):
        found = cdcd.wait_for(lambda: re.search(pattern, self.text()) or self.proc.poll() is not None, timeout)
        assert re.search(pattern, self.text()), f"no /{pattern}/ in the log:\n{self.text()[-3000:]}"
        return found

    def wait(self, timeout=60):
        return cdcd.wait_exit(self.proc, timeout)

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.stderr.close()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def failures(text):
    return re.findall(r"checkpoint (\d+) failed: cannot write checkpoint \d+ to ([^ :]+)", text)


def test_a_full_state_disk_is_ridden_out_when_tolerated(tmp_path):
    expected = reference(tmp_path)
    out = tmp_path / "out.jsonl"
    yaml = cdcd.write_pipeline(tmp_path, pipeline(out, tolerable=50))
    port = free_port()
    with small_disk(tmp_path / "disk") as disk:
        state = disk.root / "state"
        run = Run(tmp_path, yaml, state, extra=["--admin-address", f"127.0.0.1:{port}"])
        try:
            run.wait_log(r"running:")
            assert cdcd.wait_for(lambda: out.exists() and out.stat().st_size > 0, 20)
            disk.fill()
            # Two failed writes in a row, both of the same checkpoint: no newer one is taken.
            run.wait_log(r"No space left on device.*\(2 of 50 tolerated")
            assert run.proc.poll() is None, run.text()[-3000:]
            samples, _ = scrape(port)
            assert total(samples, "cdcd_checkpoints_failed_total") >= 2
            failed = failures(run.text())
            assert len({cid for cid, _ in failed}) == 1 and {d for _, d in failed} == {str(state)}
            disk.free()
            code = run.wait()
        finally:
            run.close()
    log = run.text()
    assert code == 0, log[-3000:]
    assert re.search(rf"checkpoint {failed[0][0]} written after \d+ failed attempt", log), log[-3000:]
    assert out.read_bytes() == expected


def test_a_full_state_disk_fails_the_pipeline_by_default_and_a_restart_resumes(tmp_path):
    expected = reference(tmp_path)
    out = tmp_path / "out.jsonl"
    yaml = cdcd.write_pipeline(tmp_path, pipeline(out))
    with small_disk(tmp_path / "disk") as disk:
        state = disk.root / "state"
        run = Run(tmp_path, yaml, state)
        try:
            run.wait_log(r"running:")
            assert cdcd.wait_for(lambda: out.exists() and out.stat().st_size > 0, 20)
            disk.fill()
            code = run.wait()
        finally:
            run.close()
        log = run.text()
        assert code == 1, log[-3000:]
        # The error names the directory, the cause and the option that would have tolerated it.
        assert re.search(
            rf"checkpoint \d+ failed: cannot write checkpoint \d+ to {re.escape(str(state))}: IO error: "
            r"No space left on device.*tolerable-failed-checkpoints is 0\): stopping\. The state directory "
            rf"{re.escape(str(state))} keeps checkpoint \d+", log), log[-3000:]
        assert out.read_bytes() != expected  # stopped midway: the restart has work left
        disk.free()
        again = cdcd.run(["run", yaml, "--state-dir", state])
    assert again.returncode == 0, again.stderr[-3000:]
    assert out.read_bytes() == expected


def fails_when_the_disk_fills(tmp_path, yaml, state, disk, written):
    """Runs the pipeline until `written` (on `disk`) has bytes, fills the disk, and checks that
    the pipeline fails with an error naming the file and the cause; then frees the disk."""
    run = Run(tmp_path, yaml, state)
    try:
        run.wait_log(r"running:")
        assert cdcd.wait_for(lambda: written.exists() and written.stat().st_size > 0, 20)
        disk.fill()
        code = run.wait()
    finally:
        run.close()
    log = run.text()
    assert code == 1, log[-3000:]
    assert f"output file {written}: cannot write: No space left on device" in log, log[-3000:]
    disk.free()


def test_a_full_output_disk_fails_the_file_sink_and_a_restart_resumes_exactly_once(tmp_path):
    expected = reference(tmp_path)
    with small_disk(tmp_path / "disk", size="8m") as disk:
        out = disk.root / "out.jsonl"
        yaml = cdcd.write_pipeline(tmp_path, pipeline(out))
        state = tmp_path / "state"
        fails_when_the_disk_fills(tmp_path, yaml, state, disk, out)
        again = cdcd.run(["run", yaml, "--state-dir", state])
        assert again.returncode == 0, again.stderr[-3000:]
        assert out.read_bytes() == expected


def test_a_full_dead_letter_disk_fails_clearly_and_a_restart_keeps_each_bad_row_once(tmp_path):
    expected_dead = tmp_path / "reference-dead.jsonl"
    expected = reference(tmp_path, dead_letter=expected_dead)
    out = tmp_path / "out.jsonl"
    with small_disk(tmp_path / "disk") as disk:
        dead = disk.root / "dead.jsonl"
        yaml = cdcd.write_pipeline(tmp_path, pipeline(out, dead_letter=dead))
        state = tmp_path / "state"
        fails_when_the_disk_fills(tmp_path, yaml, state, disk, dead)
        again = cdcd.run(["run", yaml, "--state-dir", state])
        assert again.returncode == 0, again.stderr[-3000:]
        assert out.read_bytes() == expected

        def bad_ids(path):
            return [json.loads(json.loads(line)["record"])["row"]["id"] for line in path.read_text().splitlines()]

        assert sorted(bad_ids(dead)) == sorted(bad_ids(expected_dead))
        assert len(bad_ids(dead)) == ROWS // 100


def test_a_read_only_state_dir_is_refused_at_start_and_a_restart_resumes(tmp_path):
    expected = reference(tmp_path)
    out = tmp_path / "out.jsonl"
    yaml = cdcd.write_pipeline(tmp_path, pipeline(out))
    state = tmp_path / "state"
    run = Run(tmp_path, yaml, state, "first")
    try:
        run.wait_log(r"running:")
        assert cdcd.wait_for(lambda: out.exists() and out.stat().st_size > 0, 20)
        run.proc.send_signal(signal.SIGTERM)
        assert run.wait() == 0, run.text()[-3000:]
    finally:
        run.close()
    before = out.read_bytes()
    assert before != expected
    with read_only(state):
        refused = cdcd.run(["run", yaml, "--state-dir", state])
    assert refused.returncode == 1
    assert re.search(rf"{re.escape(str(state))}.*Read-only file system", refused.stderr), refused.stderr
    assert "running:" not in refused.stderr
    assert out.read_bytes() == before  # the sink's output untouched
    again = cdcd.run(["run", yaml, "--state-dir", state])
    assert again.returncode == 0, again.stderr[-3000:]
    assert out.read_bytes() == expected


def test_a_file_where_the_state_dir_should_be_is_refused_with_a_clear_error(tmp_path):
    out = tmp_path / "out.jsonl"
    yaml = cdcd.write_pipeline(tmp_path, pipeline(out, rate=0))
    state = tmp_path / "state"
    state.write_text("not a directory")
    refused = cdcd.run(["run", yaml, "--state-dir", state])
    assert refused.returncode == 1
    assert f"state directory {state} is not a directory" in refused.stderr, refused.stderr
    assert not out.exists()
    assert state.read_text() == "not a directory"
