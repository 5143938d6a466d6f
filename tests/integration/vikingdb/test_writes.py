"""Inserts, updates and deletes from the GENERATED source converge to the source's final state;
batching, the flush interval, ignore-delete, ttl/async and both data-plane auth modes."""
import os
import signal
import subprocess
import time

import cdcd_process as cdcd
from vdb_pipelines import (GENERATED, dump, expected_generated, generated_source, pipeline_block,
                           run_pipeline, sink_block)


def as_state(rows):
    return {int(k): (v["version"], v["payload"]) for k, v in rows.items()}


def test_inserts_updates_deletes_converge(emu, tmp_path):
    y = generated_source(rows=3000, updates=2, delete_every=7, payload=20) + sink_block(emu) + pipeline_block()
    r = run_pipeline(tmp_path, y)
    assert r.returncode == 0, r.stderr
    assert as_state(dump(emu, GENERATED)) == expected_generated(3000, 2, 7, 20)
    c = emu.counters()
    assert max(int(k) for k in c["upsert_rows_histogram"]) == 100
    assert c["rows_deleted"] == 3000 // 7
    assert c["auth"]["ak_sk"] == 2  # Get + Create on the control plane; the data plane uses the API key
    assert "test-api-key" not in r.stderr and "SKTEST" not in r.stderr


def test_batch_size_bounds_rows_per_request(emu, tmp_path):
    y = (generated_source(rows=500, payload=8) + sink_block(emu, **{"sink.bulk-flush.batch-size": 10}) +
         pipeline_block())
    r = run_pipeline(tmp_path, y)
    assert r.returncode == 0, r.stderr
    c = emu.counters()
    assert c["upsert_rows_histogram"] == {"10": 50}
    assert c["requests"]["upsert"] == 50


def test_parallel_writers_converge(emu, tmp_path):
    y = (generated_source(rows=4000, updates=1, delete_every=3, payload=8) + sink_block(emu) +
         pipeline_block(parallelism=3))
    r = run_pipeline(tmp_path, y)
    assert r.returncode == 0, r.stderr
    assert as_state(dump(emu, GENERATED)) == expected_generated(4000, 1, 3, 8)


def test_flush_interval_sends_partial_batches_between_checkpoints(emu, tmp_path):
    y = (generated_source(rows=7, payload=8, bounded=False) +
         sink_block(emu, **{"sink.bulk-flush.interval": "200ms"}) + pipeline_block(checkpoint="1h"))
    path = cdcd.write_pipeline(tmp_path, y)
    proc = cdcd.start(["run", path, "--state-dir", tmp_path / "state"], stderr=subprocess.PIPE, text=True)
    try:
        assert cdcd.wait_for(lambda: emu.collections() and emu.rows(GENERATED)["count"] == 7, timeout=10)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


def test_interval_zero_waits_for_the_checkpoint(emu, tmp_path):
    y = (generated_source(rows=7, payload=8, bounded=False) +
         sink_block(emu, **{"sink.bulk-flush.interval": "0"}) + pipeline_block(checkpoint="3s"))
    path = cdcd.write_pipeline(tmp_path, y)
    proc = cdcd.start(["run", path, "--state-dir", tmp_path / "state"], stderr=subprocess.DEVNULL)
    try:
        assert cdcd.wait_for(lambda: bool(emu.collections()), timeout=10)
        time.sleep(1.0)
        assert emu.rows(GENERATED)["count"] == 0  # the partial batch waits for the checkpoint
        assert cdcd.wait_for(lambda: emu.rows(GENERATED)["count"] == 7, timeout=10)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


def test_ignore_delete_keeps_deleted_rows(emu, tmp_path):
    y = (generated_source(rows=100, delete_every=10, payload=8) + sink_block(emu, **{"sink.ignore-delete": True}) +
         pipeline_block())
    r = run_pipeline(tmp_path, y)
    assert r.returncode == 0, r.stderr
    assert len(dump(emu, GENERATED)) == 100
    assert "delete" not in emu.counters()["requests"]


def test_ttl_and_async(emu, tmp_path):
    y = (generated_source(rows=20, payload=8) + sink_block(emu, ttl=3600, **{"async": True}) + pipeline_block())
    r = run_pipeline(tmp_path, y)
    assert r.returncode == 0, r.stderr
    rows = emu.rows(GENERATED)["rows"]
    assert len(rows) == 20
    assert all(row.get("expires_at") for row in rows)
    assert emu.counters()["async_upserts"] == 1


def test_aksk_signed_data_plane_and_env_credentials(emu, tmp_path):
    emu.set_credentials(api_keys=["other-key"], access_keys={"AK_ENV_1": "sk-env-secret-1"})
    env = dict(os.environ, VDB_AK="AK_ENV_1", VDB_SK="sk-env-secret-1")
    y = (generated_source(rows=250, payload=8) +
         sink_block(emu, **{"api-key": None, "access-key": None, "secret-key": None,
                            "access-key-env": "VDB_AK", "secret-key-env": "VDB_SK"}) + pipeline_block())
    path = cdcd.write_pipeline(tmp_path, y)
    r = cdcd.run(["run", path, "--state-dir", tmp_path / "state"], env=env)
    assert r.returncode == 0, r.stderr
    c = emu.counters()
    assert c["auth"]["ak_sk"] == 5 and c["auth"].get("api_key", 0) == 0  # Get, Create, 3 upserts
    assert len(dump(emu, GENERATED)) == 250
    assert "sk-env-secret-1" not in r.stderr


def test_wrong_api_key_fails_without_retrying(emu, tmp_path):
    y = generated_source(rows=5) + sink_block(emu, **{"api-key": "wrong-key-123"}) + pipeline_block()
    r = run_pipeline(tmp_path, y)
    assert r.returncode != 0
    assert "HTTP 401 Unauthorized" in r.stderr
    assert emu.counters()["requests"]["upsert"] == 1
    assert "wrong-key-123" not in r.stderr


def test_credential_rules_are_checked_by_validate(emu, tmp_path):
    y = (generated_source(rows=5) + sink_block(emu, **{"api-key-env": "X", "secret-key": None}) + pipeline_block())
    path = cdcd.write_pipeline(tmp_path, y)
    r = cdcd.run(["validate", path])
    assert r.returncode != 0
    out = r.stdout + r.stderr
    assert "set only one of `api-key` and `api-key-env`" in out
    assert "one of `secret-key` and `secret-key-env` is required" in out
    assert "pipeline.yaml:" in out
