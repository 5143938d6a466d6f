"""kill -9 at random moments, then a restart converges to the source's final state (at-least-once
with idempotent upserts/deletes)."""
import random
import signal
import subprocess
import time

import cdcd_process as cdcd
from vdb_pipelines import GENERATED, dump, expected_generated, generated_source, pipeline_block, sink_block

ROWS, ROUNDS, DELETE_EVERY = 30_000, 2, 7


def test_kill_9_and_restart_converges(emu, tmp_path):
    y = (generated_source(rows=ROWS, updates=ROUNDS, delete_every=DELETE_EVERY, payload=16, rate=40_000) +
         sink_block(emu) + pipeline_block(name="vdb-crash", checkpoint="200ms"))
    path = cdcd.write_pipeline(tmp_path, y)
    state = tmp_path / "state"
    rng = random.Random(20261130)
    kills = 0
    for _ in range(6):
        proc = cdcd.start(["run", path, "--state-dir", state], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.3, 0.9))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait()
    assert kills >= 4
    mid = emu.rows(GENERATED)["count"]
    assert 0 < mid
    final = cdcd.run(["run", path, "--state-dir", state], timeout=300)
    assert final.returncode == 0, final.stderr
    assert "restored checkpoint" in final.stderr
    got = {int(k): (v["version"], v["payload"]) for k, v in dump(emu, GENERATED).items()}
    assert got == expected_generated(ROWS, ROUNDS, DELETE_EVERY, 16)
