"""SNAPSHOT: prefixes, table-id patterns, pre-signed URLs, V4, faults, resume after kill -9,
option validation."""
import time
import urllib.error
import urllib.request

import cdcd_process as cdcd
from oss_helpers import Daemon, fields, pipeline, run_to_end


def snap(emu, **extra):
    opts = {"scan.startup.mode": "SNAPSHOT", "oss-endpoint": emu.endpoint, "oss-region": "cn-hangzhou",
            "oss-bucket": "b1"}
    opts.update(extra)
    return opts


def keys_of(events):
    return [fields(e[3])[0] for e in events]


def test_snapshot_lists_every_path_prefix_once(emu, tmp_path):
    emu.create_bucket("b1")
    emu.seed("b1", 3000, prefixes=["a/", "b/", "c/"])
    rc, d = run_to_end(tmp_path, pipeline(emu, **snap(emu, path="a/,c/,a/sub")))
    assert rc == 0, d.stderr()
    keys = keys_of(d.events())
    assert len(keys) == 2000 and len(set(keys)) == 2000
    assert all(k.startswith(("a/", "c/")) for k in keys)
    assert all(e[1] == "INSERT" for e in d.events())
    row = fields(d.events()[0][3])
    assert row[1] == f"oss://b1/{row[0]}" and row[2] == "cn-hangzhou" and row[3] == "b1"
    assert row[4] == row[0].split("/")[-1] and row[5] == "1024"


def test_whole_bucket_with_v4_signatures(emu, tmp_path):
    emu.create_bucket("b1")
    emu.seed("b1", 1500)
    rc, d = run_to_end(tmp_path, pipeline(emu, **snap(emu, **{"oss-enable-v4-signature": "true"})))
    assert rc == 0, d.stderr()
    assert len(d.events()) == 1500
    assert emu.counters()["ListObjectsV2"] == 2


def test_table_id_pattern_with_one_two_and_three_groups(emu, tmp_path):
    emu.create_bucket("b1")
    emu.put_objects("b1", [{"key": k, "content": "x"} for k in
                           ["db1/t1/p1.csv", "db1/t2/p1.csv", "db2/t1/p1.csv", "top.csv"]])
    cases = {
        r"oss://[^/]+/([^/]+)/.*": {"db1", "db2"},
        r"oss://([^/]+)/([^/]+)/.*": {"b1.db1", "b1.db2"},
        r"oss://([^/]+)/([^/]+)/([^/]+)/.*": {"b1.db1.t1", "b1.db1.t2", "b1.db2.t1"},
    }
    for i, (pattern, tables) in enumerate(cases.items()):
        yaml = pipeline(emu, name=f"t{i}", **snap(emu, **{"oss-key.to.table-id.matching.pattern": pattern}))
        rc, d = run_to_end(tmp_path, yaml, tag=f"t{i}")
        assert rc == 0, d.stderr()
        events = d.events()
        assert {e[0] for e in events} == tables
        assert "top.csv" not in keys_of(events)  # not matching: filtered out
        assert len(events) == 3


def test_pre_signed_urls_are_accepted_and_expire(emu, tmp_path):
    emu.create_bucket("b1")
    emu.put_objects("b1", [{"key": "docs/a b.txt", "content": "hello"}])
    for v4 in ("false", "true"):
        yaml = pipeline(emu, name=f"p{v4}", **snap(emu, **{"oss-objects.pre-sign.enabled": "true",
                                                          "oss-objects.pre-sign.ttl": "2s",
                                                          "oss-enable-v4-signature": v4}))
        rc, d = run_to_end(tmp_path, yaml, tag=f"p{v4}")
        assert rc == 0, d.stderr()
        url = fields(d.events()[0][3])[1]
        assert url.startswith(emu.endpoint + "/b1/docs/a%20b.txt?")
        assert urllib.request.urlopen(url).read() == b"hello"
        time.sleep(3.5)
        try:
            urllib.request.urlopen(url)
            raise AssertionError("an expired pre-signed URL was accepted")
        except urllib.error.HTTPError as e:
            assert e.code == 403


def test_throttling_and_5xx_are_survived(emu, tmp_path):
    emu.create_bucket("b1")
    emu.seed("b1", 3000)
    emu.inject_fault("ListObjectsV2", "throttle", count=2)
    emu.inject_fault("ListObjectsV2", "error", count=2, status=500)
    rc, d = run_to_end(tmp_path, pipeline(emu, **snap(emu)))
    assert rc == 0, d.stderr()
    assert len(set(keys_of(d.events()))) == 3000


def test_kill_9_during_a_long_snapshot_resumes_from_the_checkpointed_position(emu, tmp_path):
    emu.create_bucket("b1")
    emu.seed("b1", 30000, prefixes=["x/", "y/"])
    yaml = pipeline(emu, interval="200ms", **snap(emu, path="x/,y/",
                                                  **{"scan.rate-limit.records-per-second": "5000"}))
    d = Daemon(tmp_path, yaml).start()
    assert d.wait_events(lambda ev: len(ev) > 18000, 30)
    d.kill9()
    first = len(d.events())
    lists_before = emu.counters()["ListObjectsV2"]
    assert first < 30000
    d2 = Daemon(tmp_path, yaml, tag="second").start()
    assert d2.wait(60) == 0, d2.stderr()
    assert "resuming at prefix 2/2" in d2.stderr()
    keys = keys_of(d.events()) + keys_of(d2.events())
    assert set(keys) == {f"{p}obj-{i:08d}" for i, p in ((i, "xy"[i % 2] + "/") for i in range(30000))}
    # Resumed from the checkpoint: at most a page or two listed again, not the 30 pages of a restart.
    lists_after = emu.counters()["ListObjectsV2"] - lists_before
    assert lists_after <= 30000 // 1000 - 18 + 2, lists_after
    assert len(d2.events()) <= 30000 - 18000 + 2000


def test_validation_errors_name_the_yaml_line(emu, tmp_path):
    cases = [
        ({"scan.startup.mode": "SNAPSHOT"}, "`oss-endpoint` is required"),
        ({"scan.incremental.mode": "POLLING", "oss-endpoint": "http://h", "oss-bucket": "b"}, "`oss-region` is required"),
        ({"scan.incremental.mode": "POLLING", "scan.startup.mode": "TIMESTAMP", "oss-endpoint": "http://h",
          "oss-bucket": "b", "oss-region": "r"}, "not supported with scan.incremental.mode POLLING"),
        ({"scan.incremental.mode": "POLLING", "scan.startup.mode": "COMMITTED_OFFSET", "oss-endpoint": "http://h",
          "oss-bucket": "b", "oss-region": "r"}, "not supported"),
        ({"mns.region": "r", "mns.queue-name": "q"}, "`mns.endpoint` is required"),
        ({"mns.endpoint": "http://h", "mns.region": "r", "mns.queue-name": "q", "scan.startup.mode": "TIMESTAMP"},
         "requires `scan.startup.timestamp-millis`"),
        ({"mns.endpoint": "http://h", "mns.region": "r", "mns.queue-name": "q", "path": "a/"}, "`path` requires `oss-bucket`"),
        ({"mns.endpoint": "http://h", "mns.region": "r", "mns.queue-name": "q", "oss-enable-v4-signature": "true"},
         "requires `oss-region`"),
        ({"mns.endpoint": "http://h", "mns.region": "r", "mns.queue-name": "q", "mns.batch-size": "17"}, "mns.batch-size"),
        ({"mns.endpoint": "http://h", "mns.region": "r", "mns.queue-name": "q", "metadata.list": "eventName,bogus"},
         "unknown metadata column 'bogus'"),
        ({"mns.endpoint": "http://h", "mns.region": "r", "mns.queue-name": "q",
          "oss-key.to.table-id.matching.pattern": "oss://(a)(b)(c)(d)"}, "1 to 3 capture groups"),
    ]
    for i, (opts, message) in enumerate(cases):
        yaml = cdcd.write_pipeline(tmp_path, pipeline(emu, **opts), f"v{i}.yaml")
        res = cdcd.run(["validate", yaml])
        assert res.returncode != 0, (opts, res.stdout)
        text = res.stdout + res.stderr
        assert message in text, (opts, text)
        assert f"v{i}.yaml:" in text, text  # file:line:column
    ok = cdcd.write_pipeline(tmp_path, pipeline(emu, **{"mns.endpoint": "http://h", "mns.region": "r",
                                                        "mns.queue-name": "q", "scan.startup.mode": "SNAPSHOT",
                                                        "oss-endpoint": "http://h", "oss-bucket": "b",
                                                        "oss-region": "r"}), "ok.yaml")
    res = cdcd.run(["validate", ok])
    assert res.returncode == 0, res.stdout + res.stderr
    assert "SKTEST" not in res.stdout + res.stderr
