"""Restoring a checkpoint into a changed configuration: a phase the configuration can no longer
run (a snapshot phase without `oss-endpoint`, an MNS incremental phase without `mns.endpoint`) is
refused with a message naming the checkpoint, the phase and the option, never a crash; restoring
the option resumes where the checkpoint left off."""
import re

import cdcd_process as cdcd
from oss_helpers import Daemon, fields, pipeline

NAME = "oss-restore"


def keys_of(events):
    return [fields(e[3] if e[3] != "[]" else e[2])[0] for e in events]


def mns_opts(emu):
    return {"mns.endpoint": emu.mns.url, "mns.region": "cn-hangzhou", "mns.queue-name": "q1",
            "mns.polling-wait-time": "1s"}


def oss_opts(emu):
    return {"oss-endpoint": emu.endpoint, "oss-region": "cn-hangzhou", "oss-bucket": "b1"}


def setup(emu):
    emu.create_bucket("b1")
    emu.mns.create_queue("q1", visibility_timeout=30)
    emu.add_notification("b1", "q1")


def refused(tmp_path, yaml, tag):
    d = Daemon(tmp_path, yaml, tag=tag).start()
    return d.wait(30), d


def test_a_snapshot_phase_checkpoint_in_mns_mode_without_oss_endpoint_is_refused(emu, tmp_path):
    setup(emu)
    emu.seed("b1", 20000)
    # POLLING + INITIAL, slowed down so that the checkpoint is taken during the snapshot phase.
    first = Daemon(tmp_path, pipeline(emu, name=NAME, **oss_opts(emu), **{
        "scan.incremental.mode": "POLLING", "scan.startup.mode": "INITIAL",
        "scan.rate-limit.records-per-second": "2000"})).start()
    assert first.wait_events(lambda ev: len(ev) >= 1000, 30), first.stderr()[-3000:]
    assert first.stop() == 0, first.stderr()[-3000:]
    emitted = len(first.events())
    assert emitted < 20000

    # Same name, MNS mode (default COMMITTED_OFFSET) and no oss-endpoint: valid on its own.
    code, d = refused(tmp_path, pipeline(emu, name=NAME, **mns_opts(emu)), "mns")
    assert code == 1, (code, d.stderr()[-3000:])
    err = d.stderr()
    assert re.search(r"cannot restore checkpoint \d+ .*snapshot phase.*`oss-endpoint`", err), err[-3000:]
    assert "--reset-state" in err
    assert d.events() == []

    # Restoring the option resumes the snapshot, then consumes MNS.
    again = Daemon(tmp_path, pipeline(emu, name=NAME, **mns_opts(emu), **oss_opts(emu)), tag="again").start()
    try:
        assert again.wait_events(lambda ev: len(set(keys_of(first.events()) + keys_of(ev))) == 20000, 60), \
            again.stderr()[-3000:]
        assert "resuming at prefix 1/1" in again.stderr()
    finally:
        assert again.stop() == 0, again.stderr()[-3000:]
    assert len(again.events()) < 20000


def test_an_incremental_mns_checkpoint_restored_as_snapshot_without_mns_is_refused(emu, tmp_path):
    setup(emu)
    emu.put_objects("b1", [{"key": "a/1", "content": "x"}])
    first = Daemon(tmp_path, pipeline(emu, name=NAME, **oss_opts(emu), **mns_opts(emu), **{
        "scan.startup.mode": "INITIAL"})).start()
    assert cdcd.wait_for(lambda: "consuming MNS queue" in first.stderr(), 20), first.stderr()[-3000:]
    assert first.stop() == 0, first.stderr()[-3000:]

    # Same name, SNAPSHOT and no MNS options: valid on its own, but the checkpoint is incremental.
    code, d = refused(tmp_path, pipeline(emu, name=NAME, **oss_opts(emu), **{"scan.startup.mode": "SNAPSHOT"}),
                      "snapshot")
    assert code == 1, (code, d.stderr()[-3000:])
    err = d.stderr()
    assert re.search(r"cannot restore checkpoint \d+ .*incremental phase.*`mns.endpoint`", err), err[-3000:]
    assert "--reset-state" in err
    assert d.events() == []

    # --reset-state runs the SNAPSHOT the configuration asks for.
    yaml = cdcd.write_pipeline(tmp_path, pipeline(emu, name=NAME, **oss_opts(emu), **{"scan.startup.mode": "SNAPSHOT"}),
                               "fresh.yaml")
    out = cdcd.run(["run", yaml, "--state-dir", tmp_path / "state", "--reset-state"], timeout=60)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "oss-cdc snapshot of b1 complete: 1 objects" in out.stderr
