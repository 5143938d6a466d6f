"""MNS incremental mode: startup modes, deletes, append-only, metadata, parallel receivers,
faults, kill -9 without losing an event or deleting a message before its checkpoint, and
undecodable events."""
import json
import time

import cdcd_process as cdcd

from oss_helpers import Daemon, fields, pipeline, run_to_end


def mns_opts(emu, **extra):
    # EARLIEST_OFFSET: these tests send messages before (or while) cdcd starts and expect them;
    # the default COMMITTED_OFFSET skips what was enqueued before a first start.
    opts = {"mns.endpoint": emu.mns.url, "mns.region": "cn-hangzhou", "mns.queue-name": "q1",
            "mns.polling-wait-time": "1s", "scan.startup.mode": "EARLIEST_OFFSET"}
    opts.update(extra)
    return opts


def setup(emu, visibility=30):
    emu.create_bucket("b1")
    emu.mns.create_queue("q1", visibility_timeout=visibility)
    emu.add_notification("b1", "q1")


def put(emu, *keys):
    emu.put_objects("b1", [{"key": k, "content": k} for k in keys], notify=True)


def keys_of(events):
    return [fields(e[3] if e[3] != "[]" else e[2])[0] for e in events]


def test_earliest_offset_consumes_what_the_queue_holds(emu, tmp_path):
    setup(emu)
    put(emu, "old/1", "old/2")
    d = Daemon(tmp_path, pipeline(emu, **mns_opts(emu, **{"scan.startup.mode": "EARLIEST_OFFSET"}))).start()
    assert d.wait_events(lambda ev: len(ev) >= 2, 20), d.stderr()
    put(emu, "new/1")
    assert d.wait_events(lambda ev: len(ev) >= 3, 20)
    assert d.stop() == 0
    assert sorted(keys_of(d.events())) == ["new/1", "old/1", "old/2"]
    assert all(e[1] == "REPLACE" for e in d.events())
    assert emu.mns.messages("q1") == []  # deleted after the final checkpoint


def test_committed_offset_with_nothing_committed_starts_at_the_latest_then_resumes(emu, tmp_path):
    # The spec: COMMITTED_OFFSET (the MNS default) without a committed position is LATEST_OFFSET:
    # the backlog of a first start is skipped. Once a checkpoint exists, a restart resumes it and
    # consumes what arrived while cdcd was down.
    setup(emu)
    put(emu, "old/1", "old/2")
    time.sleep(0.1)
    opts = {k: v for k, v in mns_opts(emu).items() if k != "scan.startup.mode"}  # the default
    d = Daemon(tmp_path, pipeline(emu, **opts)).start()
    assert cdcd.wait_for(lambda: "consuming MNS queue" in d.stderr(), 20), d.stderr()
    time.sleep(1.5)
    put(emu, "new/1")
    assert d.wait_events(lambda ev: len(ev) >= 1, 20), d.stderr()
    time.sleep(1.5)
    assert d.stop() == 0
    assert keys_of(d.events()) == ["new/1"]
    assert emu.mns.messages("q1") == []  # the skipped backlog is acknowledged too
    put(emu, "down/1")
    again = Daemon(tmp_path, pipeline(emu, **opts), tag="again").start()
    assert again.wait_events(lambda ev: len(ev) >= 1, 20), again.stderr()
    time.sleep(1)
    assert again.stop() == 0
    assert keys_of(again.events()) == ["down/1"]


def test_latest_offset_skips_messages_enqueued_before_the_start(emu, tmp_path):
    setup(emu)
    put(emu, "old/1", "old/2")
    time.sleep(0.1)
    d = Daemon(tmp_path, pipeline(emu, **mns_opts(emu, **{"scan.startup.mode": "LATEST_OFFSET"}))).start()
    time.sleep(2.5)
    put(emu, "new/1")
    assert d.wait_events(lambda ev: len(ev) >= 1, 20)
    time.sleep(1.5)
    assert d.stop() == 0
    assert keys_of(d.events()) == ["new/1"]
    assert emu.mns.messages("q1") == []  # skipped messages are acknowledged too


def test_timestamp_skips_messages_enqueued_before_it(emu, tmp_path):
    setup(emu)
    put(emu, "before/1")
    time.sleep(0.3)
    ts = int(time.time() * 1000)
    time.sleep(0.3)
    put(emu, "after/1")
    d = Daemon(tmp_path, pipeline(emu, **mns_opts(emu, **{"scan.startup.mode": "TIMESTAMP",
                                                          "scan.startup.timestamp-millis": ts}))).start()
    assert d.wait_events(lambda ev: len(ev) >= 1, 20)
    time.sleep(2)
    assert d.stop() == 0
    assert keys_of(d.events()) == ["after/1"]


def test_initial_snapshots_then_consumes_and_snapshot_only_ends(emu, tmp_path):
    setup(emu)
    emu.put_objects("b1", [{"key": f"data/{i}", "content": "x"} for i in range(5)] + [{"key": "other/1", "content": "x"}])
    oss = {"oss-endpoint": emu.endpoint, "oss-region": "cn-hangzhou", "oss-bucket": "b1", "path": "data/"}
    d = Daemon(tmp_path, pipeline(emu, **mns_opts(emu, **{"scan.startup.mode": "INITIAL"}, **oss))).start()
    assert d.wait_events(lambda ev: len(ev) >= 5, 20), d.stderr()
    put(emu, "data/new")
    assert d.wait_events(lambda ev: len(ev) >= 6, 20)
    assert d.stop() == 0
    ev = d.events()
    assert [e[1] for e in ev] == ["INSERT"] * 5 + ["REPLACE"]
    assert keys_of(ev)[-1] == "data/new"
    rc, s = run_to_end(tmp_path, pipeline(emu, name="snap", **mns_opts(emu, **{"scan.startup.mode": "SNAPSHOT"}, **oss)),
                       tag="snap")
    assert rc == 0, s.stderr()
    assert sorted(keys_of(s.events())) == sorted([f"data/{i}" for i in range(5)] + ["data/new"])


def test_deletes_metadata_and_append_only(emu, tmp_path):
    setup(emu)
    transform = ("transform:\n  - source-table: b1\n"
                 "    projection: key, size, eventName, eventTime, ossObjectSize, ossObjectETag, ossRuleId, ossObjectReadFrom\n")
    meta = "eventName,eventTime,ossObjectSize,ossObjectETag,ossRuleId,ossObjectReadFrom"
    d = Daemon(tmp_path, pipeline(emu, transform=transform, **mns_opts(emu, **{"metadata.list": meta}))).start()
    time.sleep(1)
    put(emu, "k/1")
    emu.delete_objects("b1", ["k/1"], notify=True)
    assert d.wait_events(lambda ev: len(ev) >= 2, 20), d.stderr()
    assert d.stop() == 0
    (t1, op1, _, after, _), (t2, op2, before, _, _) = d.events()[:2]
    assert (op1, op2) == ("REPLACE", "DELETE")
    a = fields(after)
    assert a[0] == "k/1" and a[1] == "3" and a[2] == "ObjectCreated:PutObject"
    assert a[3].startswith("20") and a[4] == "3" and len(a[5]) == 32 and a[6] != "null" and a[7] == "null"
    assert fields(before)[2] == "ObjectRemoved:DeleteObject"

    rc_yaml = pipeline(emu, name="ao", **mns_opts(emu, **{"scan.read-changelog-as-append-only.enabled": "true"}))
    d2 = Daemon(tmp_path, rc_yaml, tag="ao", state="ao").start()
    time.sleep(1)
    put(emu, "k/2")
    emu.delete_objects("b1", ["k/2"], notify=True)
    assert d2.wait_events(lambda ev: len(ev) >= 2, 20)
    assert d2.stop() == 0
    assert [e[1] for e in d2.events()] == ["INSERT", "INSERT"]


def test_parallel_receivers_batch_delete_and_faults(emu, tmp_path):
    setup(emu)
    emu.mns.inject_fault("BatchReceiveMessage", "throttle", count=3)
    emu.mns.inject_fault("BatchReceiveMessage", "error", count=3)
    emu.mns.inject_fault("BatchDeleteMessage", "error", count=1)
    yaml = pipeline(emu, **mns_opts(emu, **{"scan.parallelism": 4, "mns.batch-size": 16,
                                            "mns.batch-delete.enabled": "true"}))
    d = Daemon(tmp_path, yaml).start()
    put(emu, *[f"p/{i}" for i in range(200)])
    assert d.wait_events(lambda ev: len(set(keys_of(ev))) >= 200, 40), d.stderr()
    time.sleep(2)
    assert d.stop() == 0
    assert set(keys_of(d.events())) == {f"p/{i}" for i in range(200)}
    counters = emu.mns.counters()
    assert counters.get("BatchDeleteMessage", 0) >= 200 // 16
    assert counters.get("DeleteMessage", 0) == 0
    assert emu.mns.messages("q1") == []


def test_receivers_default_to_the_pipeline_parallelism(emu, tmp_path):
    # The spec's scan.parallelism: "不设置则使用作业默认并行度" (unset: the job's parallelism).
    setup(emu)
    yaml = pipeline(emu, **mns_opts(emu)) + "  parallelism: 3\n"
    d = Daemon(tmp_path, yaml).start()
    put(emu, *[f"r/{i}" for i in range(20)])
    # Each event consumed and its message deleted after a checkpoint.
    assert cdcd.wait_for(lambda: emu.mns.messages("q1") == [], 40), d.stderr()
    assert d.stop() == 0
    assert "with 3 receiver(s)" in d.stderr()
    explicit = Daemon(tmp_path, pipeline(emu, **mns_opts(emu, **{"scan.parallelism": 2})) +
                      "  parallelism: 3\n", state="state2", tag="explicit").start()
    assert cdcd.wait_for(lambda: "receiver(s)" in explicit.stderr(), 20)
    assert explicit.stop() == 0
    assert "with 2 receiver(s)" in explicit.stderr()


def test_kill_9_loses_no_event_and_deletes_nothing_before_the_checkpoint(emu, tmp_path):
    setup(emu, visibility=3)
    yaml = pipeline(emu, interval="9s", **mns_opts(emu, **{"mns.batch-size": 16}))
    d = Daemon(tmp_path, yaml).start()
    put(emu, *[f"c/{i}" for i in range(40)])

    def all_in_flight():
        msgs = emu.mns.messages("q1")
        return len(msgs) == 40 and all(m["state"] == "inflight" for m in msgs)

    # Received and emitted, but no checkpoint covers them yet: every message is still in the queue.
    assert cdcd.wait_for(all_in_flight, 20), emu.mns.messages("q1")
    time.sleep(4)  # longer than the queue's visibility timeout: the source keeps them invisible
    assert all_in_flight()
    assert all(m["dequeue_count"] == 1 for m in emu.mns.messages("q1"))  # never redelivered
    assert emu.mns.counters().get("ChangeMessageVisibility", 0) >= 40
    d.kill9()
    assert len(emu.mns.messages("q1")) == 40
    d2 = Daemon(tmp_path, pipeline(emu, interval="300ms", **mns_opts(emu)), tag="second").start()
    assert d2.wait_events(lambda ev: len(set(keys_of(ev))) >= 40, 90), d2.stderr()
    time.sleep(1.5)
    assert d2.stop() == 0
    assert set(keys_of(d2.events())) == {f"c/{i}" for i in range(40)}
    assert emu.mns.messages("q1") == []


def test_an_undecodable_event_stops_the_pipeline_and_its_message_stays_in_the_queue(emu, tmp_path):
    setup(emu, visibility=2)
    good = {"eventName": "ObjectCreated:PutObject", "eventTime": "2024-01-02T03:04:05.000Z",
            "region": "cn-hangzhou", "oss": {"bucket": {"name": "b1"}, "object": {"key": "good/1", "size": 3}}}
    no_key = {"eventName": "ObjectCreated:PutObject", "oss": {"bucket": {"name": "b1"}, "object": {"size": 1}}}
    message_id = emu.mns.send("q1", json.dumps({"events": [good, no_key]}))["message_id"]
    d = Daemon(tmp_path, pipeline(emu, **mns_opts(emu))).start()
    assert d.wait(30) != 0
    err = d.stderr()
    assert f"MNS queue q1, message {message_id}, event 1: oss.object.key is missing" in err, err
    # The valid sibling reached the sink; the message was not deleted.
    assert keys_of(d.events()) == ["good/1"]
    assert [m["message_id"] for m in emu.mns.messages("q1")] == [message_id]

    # After a restart the message is seen again (and, still undecodable, stops the pipeline again).
    again = Daemon(tmp_path, pipeline(emu, **mns_opts(emu)), tag="again").start()
    assert again.wait(30) != 0
    assert f"message {message_id}, event 1" in again.stderr()
    (m,) = emu.mns.messages("q1")
    assert m["message_id"] == message_id and m["dequeue_count"] >= 2


def test_bad_record_policy_dead_letter_keeps_the_siblings_and_deletes_the_message_after_it(emu, tmp_path):
    # bad-record.policy dead-letter: the undecodable event goes to the dead-letter file with its
    # queue, message and index; its valid sibling to the sink; then the message is deleted.
    setup(emu, visibility=2)
    good = {"eventName": "ObjectCreated:PutObject", "eventTime": "2024-01-02T03:04:05.000Z",
            "region": "cn-hangzhou", "oss": {"bucket": {"name": "b1"}, "object": {"key": "good/1", "size": 3}}}
    no_key = {"eventName": "ObjectCreated:PutObject", "oss": {"bucket": {"name": "b1"}, "object": {"size": 1}}}
    message_id = emu.mns.send("q1", json.dumps({"events": [good, no_key]}))["message_id"]
    dead = tmp_path / "dead.jsonl"
    yaml = pipeline(emu, **mns_opts(emu)).replace(
        "pipeline:\n", f"pipeline:\n  bad-record.policy: dead-letter\n  bad-record.dead-letter.path: {dead}\n")
    d = Daemon(tmp_path, yaml).start()
    assert d.wait_events(lambda ev: len(ev) >= 1, 30), d.stderr()
    assert cdcd.wait_for(lambda: emu.mns.messages("q1") == [], 20), emu.mns.messages("q1")
    assert d.stop() == 0
    assert keys_of(d.events()) == ["good/1"]
    (record,) = [json.loads(x) for x in dead.read_text().splitlines()]
    assert record["position"] == f"MNS queue q1, message {message_id}, event 1"
    assert record["stage"] == "source" and record["connector"] == "oss-cdc"
    assert "oss.object.key is missing" in record["error"]
    assert json.loads(record["record"]) == no_key


def test_wait_time_zero_does_not_busy_poll_an_empty_queue(emu, tmp_path):
    # mns.polling-wait-time 0 (allowed by the spec) is a short poll: MNS answers an empty queue at
    # once and bills every request, so empty answers are paced (250 ms doubling up to 5 s).
    setup(emu)
    d = Daemon(tmp_path, pipeline(emu, **mns_opts(emu, **{"mns.polling-wait-time": "0s"}))).start()
    assert cdcd.wait_for(lambda: emu.mns.counters().get("BatchReceiveMessage", 0) >= 1, 20), d.stderr()
    emu.mns.control("DELETE", "/counters")
    time.sleep(3)
    receives = emu.mns.counters().get("BatchReceiveMessage", 0)
    assert 1 <= receives <= 8, receives  # a busy loop makes hundreds
    put(emu, "k/1")  # still consumed, within the paced interval
    assert d.wait_events(lambda ev: len(ev) >= 1, 15), d.stderr()
    assert d.stop() == 0
    assert keys_of(d.events()) == ["k/1"]


def test_sub_second_wait_time_long_polls_a_whole_second(emu, tmp_path):
    setup(emu)
    d = Daemon(tmp_path, pipeline(emu, **mns_opts(emu, **{"mns.polling-wait-time": "500ms"}))).start()
    assert cdcd.wait_for(lambda: emu.mns.counters().get("BatchReceiveMessage", 0) >= 1, 20), d.stderr()
    emu.mns.control("DELETE", "/counters")
    time.sleep(3)
    receives = emu.mns.counters().get("BatchReceiveMessage", 0)
    assert d.stop() == 0
    assert 1 <= receives <= 4, receives
