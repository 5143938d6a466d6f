"""POLLING incremental mode: LATEST_OFFSET baseline, INITIAL, SNAPSHOT, prefix-size batches,
a backlog drained from one scan, emit-deletes, restarts that re-emit nothing unchanged, faults."""
import re
import time

import cdcd_process as cdcd
from oss_helpers import Daemon, fields, pipeline, run_to_end


def poll_opts(emu, **extra):
    opts = {"scan.incremental.mode": "POLLING", "oss-endpoint": emu.endpoint, "oss-region": "cn-hangzhou",
            "oss-bucket": "b1", "polling.interval": "300ms"}
    opts.update(extra)
    return opts


def keys_of(events):
    return [fields(e[3] if e[3] != "[]" else e[2])[0] for e in events]


def put(emu, *keys, content="x"):
    emu.put_objects("b1", [{"key": k, "content": content} for k in keys])


def test_latest_offset_emits_only_new_and_changed_objects(emu, tmp_path):
    emu.create_bucket("b1")
    emu.seed("b1", 2500, prefixes=["d/"])
    d = Daemon(tmp_path, pipeline(emu, **poll_opts(emu))).start()
    assert cdcd_wait(lambda: "baseline scan recorded 2500 objects" in d.stderr(), 20), d.stderr()
    put(emu, "d/new-1")
    put(emu, "d/obj-00000007", content="changed")
    assert d.wait_events(lambda ev: len(ev) >= 2, 20), d.stderr()
    time.sleep(1.5)  # several more scans: nothing unchanged is emitted again
    assert d.stop() == 0
    ev = d.events()
    assert sorted(keys_of(ev)) == ["d/new-1", "d/obj-00000007"]
    assert all(e[1] == "REPLACE" for e in ev)


def test_initial_then_changes_and_restart_re_emits_nothing_unchanged(emu, tmp_path):
    emu.create_bucket("b1")
    emu.seed("b1", 1200, prefixes=["a/", "b/"])
    yaml = pipeline(emu, **poll_opts(emu, **{"scan.startup.mode": "INITIAL", "path": "a/"}))
    d = Daemon(tmp_path, yaml).start()
    assert d.wait_events(lambda ev: len(ev) >= 600, 20), d.stderr()
    put(emu, "a/x1", "b/ignored")
    assert d.wait_events(lambda ev: len(ev) >= 601, 20)
    assert d.stop() == 0
    ev = d.events()
    assert [e[1] for e in ev].count("INSERT") == 600 and ev[-1][1] == "REPLACE" and keys_of(ev)[-1] == "a/x1"
    assert "ListObjectsV2" in emu.counters()

    d2 = Daemon(tmp_path, yaml, tag="second").start()
    time.sleep(1.5)
    put(emu, "a/x2")
    assert d2.wait_events(lambda ev: len(ev) >= 1, 20), d2.stderr()
    time.sleep(1)
    assert d2.stop() == 0
    assert keys_of(d2.events()) == ["a/x2"]  # restored state: nothing unchanged again


def test_snapshot_mode_with_polling_ends(emu, tmp_path):
    emu.create_bucket("b1")
    emu.seed("b1", 30)
    rc, d = run_to_end(tmp_path, pipeline(emu, **poll_opts(emu, **{"scan.startup.mode": "SNAPSHOT"})))
    assert rc == 0, d.stderr()
    assert len(d.events()) == 30


def test_prefix_size_batches_changes_and_deletes_when_asked(emu, tmp_path):
    emu.create_bucket("b1")
    put(emu, "p/keep", "q/gone")
    yaml = pipeline(emu, **poll_opts(emu, path="p/,q/", **{"polling.prefix-size": 2, "polling.interval": "1s",
                                                         "polling.emit-deletes": "true"}))
    d = Daemon(tmp_path, yaml).start()
    assert cdcd_wait(lambda: "baseline scan recorded 2 objects" in d.stderr(), 20), d.stderr()
    put(emu, *[f"p/n{i}" for i in range(5)])
    emu.delete_objects("b1", ["q/gone"])
    assert d.wait_events(lambda ev: len(ev) >= 6, 30), d.stderr()
    assert d.stop() == 0
    ev = d.events()
    assert sorted(keys_of(ev)) == sorted([f"p/n{i}" for i in range(5)] + ["q/gone"])
    assert [e[1] for e in ev if keys_of([e])[0] == "q/gone"] == ["DELETE"]
    # The five new keys of p/ came from one scan in batches of two.
    scans = [(int(c), int(b)) for c, b in re.findall(r"emitted (\d+) changes in (\d+) batch", d.stderr())]
    assert any(c >= 5 and b >= 3 for c, b in scans), scans


def test_a_backlog_is_drained_from_one_scan_at_the_default_interval(emu, tmp_path):
    # The spec's polling.prefix-size: "the most objects output per prefix in one batch from one
    # cached scan". 3000 new objects at the defaults (10 s, 100) came out 100 per scan, one scan
    # every 10 s: 300 s. Now one scan lists them and emits 30 batches back to back.
    emu.create_bucket("b1")
    put(emu, "old")
    opts = {"scan.incremental.mode": "POLLING", "oss-endpoint": emu.endpoint, "oss-region": "cn-hangzhou",
            "oss-bucket": "b1"}  # polling.interval and polling.prefix-size: the defaults
    d = Daemon(tmp_path, pipeline(emu, **opts)).start()
    assert cdcd_wait(lambda: "baseline scan recorded 1 objects" in d.stderr(), 20), d.stderr()
    emu.control("DELETE", "/counters")
    emu.seed("b1", 3000, prefixes=["n/"])
    seeded = time.monotonic()
    assert d.wait_events(lambda ev: len(ev) >= 3000, 30), (len(d.events()), d.stderr()[-2000:])
    drained = time.monotonic() - seeded
    assert "emitted 3000 changes in 30 batch(es)" in d.stderr(), d.stderr()[-2000:]
    lists = emu.counters().get("ListObjectsV2", 0)
    time.sleep(0.5)
    assert d.stop() == 0
    assert len(set(keys_of(d.events()))) == 3000 and len(d.events()) == 3000
    assert drained < 10 + 15, drained  # the one interval, then listing speed
    assert lists <= 2 * 4, lists  # one scan is 4 pages; not 30 scans
    # State per tracked object stays small (the target is at most 150 bytes).
    listing = cdcd.run(["checkpoints", "list", "--state-dir", tmp_path / "state"]).stdout
    source_bytes = max(int(x) for x in re.findall(r"source:(\d+)", listing))
    assert source_bytes / 3001 <= 150, (source_bytes, listing)


def test_append_only_and_faults(emu, tmp_path):
    emu.create_bucket("b1")
    put(emu, "a")
    d = Daemon(tmp_path, pipeline(emu, **poll_opts(emu, **{"scan.read-changelog-as-append-only.enabled": "true"}))).start()
    assert cdcd_wait(lambda: "baseline scan" in d.stderr(), 20)
    emu.inject_fault("ListObjectsV2", "throttle", count=2)
    emu.inject_fault("ListObjectsV2", "error", count=2, status=503)
    put(emu, "b")
    assert d.wait_events(lambda ev: len(ev) >= 1, 30), d.stderr()
    assert d.stop() == 0
    assert [e[1] for e in d.events()] == ["INSERT"]


def cdcd_wait(pred, timeout):
    import cdcd_process
    return cdcd_process.wait_for(pred, timeout, 0.1)
