"""The VikingDB sink's cells of the fault matrix (docs/reliability.md) that no other test shows:
the GENERATED source's final state must be what the collection holds (nothing lost; upserts and
deletes are idempotent, so a replay after a restart converges: at-least-once on the wire, exact
in the result). kill -9: test_crash.py; 5xx and throttling: test_outages.py; resets: test_faults.py."""
import signal
import subprocess
import time

import cdcd_process as cdcd
from client import VikingDBEmulator
from vdb_pipelines import GENERATED, dump, expected_generated, generated_source, pipeline_block, sink_block

FAST = {"retry.initial-backoff": "100ms", "retry.max-backoff": "500ms"}


def as_state(rows):
    return {int(k): (v["version"], v["payload"]) for k, v in rows.items()}


def written(emu):
    try:
        return as_state(dump(emu, GENERATED))
    except Exception:  # 404 before the sink has created the collection
        return None


def start(tmp_path, yaml_text, name="pipeline.yaml"):
    path = cdcd.write_pipeline(tmp_path, yaml_text, name)
    return cdcd.start(["run", path, "--state-dir", tmp_path / "state"], stdout=subprocess.DEVNULL,
                      stderr=subprocess.PIPE, text=True)


def test_an_answer_that_never_comes_is_timed_out_and_retried(emu, tmp_path):
    # Two upserts are held 3 s, longer than socket.timeout: cdcd gives up on them and sends again.
    emu.inject_faults({"kind": "delay", "delay_ms": 3000, "count": 2, "match": "upsert"})
    y = (generated_source(rows=300, updates=1, delete_every=5, payload=8) +
         sink_block(emu, **{"socket.timeout": "1s", "max-retries": 5}, **FAST) + pipeline_block())
    r = cdcd.run(["run", cdcd.write_pipeline(tmp_path, y), "--state-dir", tmp_path / "state"], timeout=120)
    assert r.returncode == 0, r.stderr
    assert as_state(dump(emu, GENERATED)) == expected_generated(300, 1, 5, 8)
    assert emu.counters()["faults_injected"] == 2


def test_sigterm_mid_run_then_restart_converges(emu, tmp_path):
    y = (generated_source(rows=20_000, updates=1, delete_every=7, payload=8, rate=20_000) +
         sink_block(emu) + pipeline_block(checkpoint="200ms"))
    proc = start(tmp_path, y)
    assert cdcd.wait_for(lambda: (written(emu) or {}) != {}, 30)
    proc.send_signal(signal.SIGTERM)
    assert cdcd.wait_exit(proc, 30) == 0  # a final checkpoint, a clean exit
    assert len(written(emu)) < 20_000
    r = cdcd.run(["run", cdcd.write_pipeline(tmp_path, y), "--state-dir", tmp_path / "state"], timeout=120)
    assert r.returncode == 0, r.stderr
    assert "restored checkpoint" in r.stderr
    assert written(emu) == expected_generated(20_000, 1, 7, 8)


def test_emulator_restart_is_ridden_out(tmp_path):
    with VikingDBEmulator(state_file=str(tmp_path / "vikingdb.state")) as emu:
        y = (generated_source(rows=3000, payload=8, rate=1500) +
             sink_block(emu, **{"max-retries": 10}, **FAST) + pipeline_block(checkpoint="200ms"))
        proc = start(tmp_path, y)
        assert cdcd.wait_for(lambda: len(written(emu) or {}) > 0, 30)
        emu.restart()  # connections refused, then the same collection on the same port
        stderr = proc.communicate(timeout=60)[1]
        assert proc.returncode == 0, stderr
        assert written(emu) == expected_generated(3000, 0, 0, 8)


def test_a_rotated_api_key_fails_clearly_and_a_restart_with_the_new_key_converges(emu, tmp_path):
    # The API key is revoked mid-run (rotation): VikingDB answers 401, which no retry mends. The
    # pipeline stops naming the error, without the key; with the new key a restart converges.
    emu.set_credentials(api_keys=["key-old-1"])
    base = generated_source(rows=6000, updates=1, delete_every=5, payload=8, rate=3000)
    proc = start(tmp_path, base + sink_block(emu, **{"api-key": "key-old-1"}) + pipeline_block(checkpoint="200ms"))
    assert cdcd.wait_for(lambda: len(written(emu) or {}) > 0, 30)
    emu.set_credentials(api_keys=["key-new-2"])
    stderr = proc.communicate(timeout=60)[1]
    assert proc.returncode != 0
    assert "HTTP 401" in stderr and "key-old-1" not in stderr
    r = cdcd.run(["run", cdcd.write_pipeline(tmp_path, base + sink_block(emu, **{"api-key": "key-new-2"}) +
                                             pipeline_block(checkpoint="200ms"), "new.yaml"),
                  "--state-dir", tmp_path / "state"], timeout=120)
    assert r.returncode == 0, r.stderr
    assert written(emu) == expected_generated(6000, 1, 5, 8)
