"""FETCH_CONTENT(url) in a transform projection downloads the object (oss:// and pre-signed),
off the event loop, within fetch-content.timeout."""
import base64
import time

import cdcd_process as cdcd
from oss_helpers import Daemon, fields, pipeline, run_to_end


def opts(emu, **extra):
    o = {"scan.startup.mode": "SNAPSHOT", "oss-endpoint": emu.endpoint, "oss-region": "cn-hangzhou", "oss-bucket": "b1"}
    o.update(extra)
    return o


TRANSFORM = "transform:\n  - source-table: b1\n    projection: key, FETCH_CONTENT(url) AS content\n"


def printed_bytes(value: str) -> bytes:
    try:
        return base64.b64decode(value, validate=True)
    except Exception:
        return value.encode()


def test_fetch_content_yields_the_object_bytes(emu, tmp_path):
    emu.create_bucket("b1")
    emu.put_objects("b1", [{"key": "img/a.txt", "content": "hello world"}, {"key": "img/b.txt", "content": "second"}])
    for presign in ("false", "true"):
        rc, d = run_to_end(tmp_path, pipeline(emu, name=f"f{presign}", transform=TRANSFORM,
                                              **opts(emu, **{"oss-objects.pre-sign.enabled": presign})),
                           tag=f"f{presign}")
        assert rc == 0, d.stderr()
        rows = {fields(e[3])[0]: fields(e[3])[1] for e in d.events()}
        assert set(rows) == {"img/a.txt", "img/b.txt"}
        assert printed_bytes(rows["img/a.txt"]) == b"hello world"
        assert printed_bytes(rows["img/b.txt"]) == b"second"
    assert emu.counters()["GetObject"] >= 4


def test_fetch_content_size_limit_fails_or_yields_null(emu, tmp_path):
    emu.create_bucket("b1")
    emu.put_objects("b1", [{"key": "big", "size": 5000}])
    rc, d = run_to_end(tmp_path, pipeline(emu, transform=TRANSFORM, **opts(emu, **{"fetch-content.max-size": "1kb"})))
    assert rc != 0
    assert "fetch-content.max-size" in d.stderr()
    rc, d = run_to_end(tmp_path, pipeline(emu, name="n", transform=TRANSFORM,
                                          **opts(emu, **{"fetch-content.max-size": "1kb",
                                                         "fetch-content.ignore-errors": "true"})), tag="n")
    assert rc == 0, d.stderr()
    assert fields(d.events()[0][3])[1] == "null"
    assert "FETCH_CONTENT failed, yielding NULL" in d.stderr()


def mns_fetch_pipeline(emu, **extra):
    o = {"mns.endpoint": emu.mns.url, "mns.region": "cn-hangzhou", "mns.queue-name": "q1", "mns.polling-wait-time": "1s",
         "scan.startup.mode": "EARLIEST_OFFSET", "oss-endpoint": emu.endpoint, "oss-region": "cn-hangzhou",
         "mns.batch-size": 1, "scan.parallelism": 2}
    o.update(extra)
    return pipeline(emu, transform=TRANSFORM, **o)


def mns_setup(emu):
    emu.create_bucket("b1")
    emu.mns.create_queue("q1", visibility_timeout=30)
    emu.add_notification("b1", "q1")


def put(emu, key, content):
    emu.put_objects("b1", [{"key": key, "content": content}], notify=True)


def test_a_slow_download_stalls_neither_other_receivers_nor_checkpoints(emu, tmp_path):
    # GetObject of slow/1 answers after 6 s. Its receiver waits for it off the event loop: the other
    # receiver's objects reach the sink meanwhile, and their checkpoints complete (MNS deletes a
    # message only then). Before, the download blocked the loop: nothing moved for 6 s.
    mns_setup(emu)
    emu.inject_fault("GetObject", "delay", count=1, delay_ms=6_000)
    d = Daemon(tmp_path, mns_fetch_pipeline(emu)).start()
    assert cdcd.wait_for(lambda: "consuming MNS queue" in d.stderr(), 20), d.stderr()
    put(emu, "slow/1", "slow content")
    assert cdcd.wait_for(lambda: emu.control("GET", "/faults")["faults"] == [], 10)  # the slow GET started
    started = time.monotonic()
    put(emu, "fast/1", "one")
    put(emu, "fast/2", "two")
    assert d.wait_events(lambda ev: {"fast/1", "fast/2"} <= {fields(e[3])[0] for e in ev}, 4), d.stderr()
    assert cdcd.wait_for(lambda: len(emu.mns.messages("q1")) == 1, 4)  # fast/* acknowledged
    assert time.monotonic() - started < 5.5
    assert "slow/1" not in {fields(e[3])[0] for e in d.events()}
    assert d.wait_events(lambda ev: len(ev) >= 3, 15), d.stderr()
    assert d.stop() == 0
    rows = {fields(e[3])[0]: printed_bytes(fields(e[3])[1]) for e in d.events()}
    assert rows == {"slow/1": b"slow content", "fast/1": b"one", "fast/2": b"two"}


def test_fetch_content_timeout_cancels_the_download(emu, tmp_path):
    # fetch-content.timeout 1 s against an answer that takes 8 s: the connection is closed at 1 s
    # and the retry loop's last attempt gets 1 ms; with ignore-errors the row is NULL, else it fails.
    mns_setup(emu)
    emu.inject_fault("GetObject", "delay", count=1, delay_ms=8_000)
    d = Daemon(tmp_path, mns_fetch_pipeline(emu, **{"fetch-content.timeout": "1s",
                                                    "fetch-content.ignore-errors": "true"})).start()
    assert cdcd.wait_for(lambda: "consuming MNS queue" in d.stderr(), 20), d.stderr()
    put(emu, "slow/1", "x")
    sent = time.monotonic()
    assert d.wait_events(lambda ev: len(ev) >= 1, 6), d.stderr()
    assert time.monotonic() - sent < 4
    assert fields(d.events()[0][3])[1] == "null"
    assert "did not finish within fetch-content.timeout (1000 ms), cancelled" in d.stderr()
    assert emu.counters()["GetObject"] <= 2  # not the 4 attempts of the retry policy
    put(emu, "next/1", "fine")  # the fetcher goes on
    assert d.wait_events(lambda ev: len(ev) >= 2, 10), d.stderr()
    assert d.stop() == 0
    assert printed_bytes(fields(d.events()[1][3])[1]) == b"fine"

    # A body trickling in (64 KiB every 250 ms, 8 MiB: 32 s): the connection is closed at the
    # deadline, mid-body, and the emulator sees the hang-up. Before, the download went on.
    emu.inject_fault("GetObject", "oversize", count=1, size=8 << 20, chunk_delay_ms=250)
    put(emu, "trickle/1", "x")
    d = Daemon(tmp_path, mns_fetch_pipeline(emu, name="trickle", **{"fetch-content.timeout": "1s",
                                                                   "fetch-content.ignore-errors": "true"}),
               tag="trickle", state="trickle").start()
    assert d.wait_events(lambda ev: len(ev) >= 1, 20), d.stderr()
    assert fields(d.events()[0][3])[1] == "null"
    assert cdcd.wait_for(lambda: emu.counters().get("GetObject:hung-up", 0) == 1, 3), emu.counters()
    assert d.stop() == 0

    emu.inject_fault("GetObject", "delay", count=1, delay_ms=8_000)
    put(emu, "slow/2", "x")
    rc, f = run_to_end(tmp_path, mns_fetch_pipeline(emu, name="fail", **{"fetch-content.timeout": "1s"}),
                       tag="fail", timeout=30)
    assert rc != 0
    assert "FETCH_CONTENT failed: download did not finish within fetch-content.timeout" in f.stderr()
