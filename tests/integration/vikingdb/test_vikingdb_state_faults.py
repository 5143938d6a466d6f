"""State-directory faults with the VikingDB sink (at least once: upserts and deletes by primary
key are idempotent, so what a restart writes again changes nothing): the state directory's disk
filling up while the pipeline runs (ridden out when tolerated, else a clear error and a restart),
a read-only state directory and a second instance on the same directory. Each run ends with the
collection holding exactly the source's final rows."""
import re
import signal
import subprocess

import cdcd_process as cdcd
from state_faults import read_only, small_disk
from vdb_pipelines import GENERATED, dump, expected_generated, generated_source, pipeline_block, sink_block

ROWS, ROUNDS, DELETE_EVERY, PAYLOAD = 6_000, 1, 7, 16
EXPECTED = expected_generated(ROWS, ROUNDS, DELETE_EVERY, PAYLOAD)


def yaml_of(emu, tolerable=None):
    extra = f"  execution.checkpointing.tolerable-failed-checkpoints: {tolerable}\n" if tolerable is not None else ""
    return (generated_source(rows=ROWS, updates=ROUNDS, delete_every=DELETE_EVERY, payload=PAYLOAD, rate=2_000) +
            sink_block(emu) + pipeline_block(name="vdb-state-faults", checkpoint="200ms", extra=extra))


def collection(emu):
    return {int(k): (v["version"], v["payload"]) for k, v in dump(emu, GENERATED).items()}


class Run:
    def __init__(self, tmp_path, yaml, state, tag="run"):
        self.log = tmp_path / f"{tag}.log"
        self.file = open(self.log, "w")
        self.proc = cdcd.start(["run", yaml, "--state-dir", state], stdout=subprocess.DEVNULL, stderr=self.file)

    def text(self):
        return self.log.read_text(errors="replace")

    def failed_writes(self):
        return len(re.findall(r"checkpoint \d+ failed: cannot write checkpoint", self.text()))

    def wait(self, timeout=60):
        try:
            return cdcd.wait_exit(self.proc, timeout)
        finally:
            self.file.close()


def started(run):
    assert cdcd.wait_for(lambda: "running:" in run.text() or run.proc.poll() is not None, 20), run.text()
    assert run.proc.poll() is None, run.text()[-3000:]


def checkpointed(state):
    """Some checkpoint is stored (the restart then resumes instead of starting over)."""
    listed = cdcd.run(["checkpoints", "list", "--state-dir", state])
    return listed.returncode == 0 and len(listed.stdout.splitlines()) > 1


def test_a_full_state_disk_is_ridden_out_and_the_collection_converges(emu, tmp_path):
    yaml = cdcd.write_pipeline(tmp_path, yaml_of(emu, tolerable=50))
    with small_disk(tmp_path / "disk") as disk:
        run = Run(tmp_path, yaml, disk.root / "state")
        try:
            started(run)
            disk.fill()
            assert cdcd.wait_for(lambda: run.failed_writes() >= 3, 20), run.text()[-3000:]
            assert run.proc.poll() is None, run.text()[-3000:]
            disk.free()
            code = run.wait()
        finally:
            if run.proc.poll() is None:
                run.proc.kill()
    assert code == 0, run.text()[-3000:]
    assert re.search(r"checkpoint \d+ written after \d+ failed attempt", run.text())
    assert collection(emu) == EXPECTED


def test_a_full_state_disk_fails_by_default_and_a_restart_converges(emu, tmp_path):
    yaml = cdcd.write_pipeline(tmp_path, yaml_of(emu))
    with small_disk(tmp_path / "disk") as disk:
        state = disk.root / "state"
        run = Run(tmp_path, yaml, state)
        started(run)
        assert cdcd.wait_for(lambda: checkpointed(state), 20)
        disk.fill()
        assert run.wait(30) == 1, run.text()[-3000:]
        assert re.search(rf"cannot write checkpoint \d+ to {re.escape(str(state))}: IO error: No space left on device",
                         run.text()), run.text()[-3000:]
        disk.free()
        again = cdcd.run(["run", yaml, "--state-dir", state], timeout=60)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "restored checkpoint" in again.stderr
    assert collection(emu) == EXPECTED


def test_a_read_only_state_dir_is_refused_before_the_sink_writes(emu, tmp_path):
    yaml = cdcd.write_pipeline(tmp_path, yaml_of(emu))
    state = tmp_path / "state"
    run = Run(tmp_path, yaml, state)
    started(run)
    run.proc.send_signal(signal.SIGTERM)
    assert run.wait() == 0, run.text()[-3000:]
    before = collection(emu)
    emu.reset_counters()
    with read_only(state):
        refused = cdcd.run(["run", yaml, "--state-dir", state])
    assert refused.returncode == 1
    assert re.search(rf"state directory {re.escape(str(state))}.*Read-only file system", refused.stderr), refused.stderr
    assert not any(emu.counters().values()), emu.counters()  # not one VikingDB request
    assert collection(emu) == before
    again = cdcd.run(["run", yaml, "--state-dir", state], timeout=60)
    assert again.returncode == 0, again.stderr[-3000:]
    assert collection(emu) == EXPECTED


def test_a_second_instance_is_refused_and_the_first_is_not_disturbed(emu, tmp_path):
    yaml = cdcd.write_pipeline(tmp_path, yaml_of(emu))
    state = tmp_path / "state"
    run = Run(tmp_path, yaml, state)
    started(run)
    second = cdcd.run(["run", yaml, "--state-dir", state], timeout=60)
    still_running = run.proc.poll() is None
    assert run.wait() == 0, run.text()[-3000:]
    assert still_running, "the first daemon ended before the second start: nothing was tested"
    assert second.returncode == 1
    assert f"state directory {state} is in use by another cdcd process (pid {run.proc.pid})" in second.stderr
    assert "running:" not in second.stderr
    assert collection(emu) == EXPECTED
