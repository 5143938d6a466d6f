"""Smoke test of the real single-node Kafka broker (tests/services/kafka/kafka.sh + broker.py)."""
import subprocess
import time
from collections import defaultdict
from pathlib import Path

import pytest

from broker import KafkaBroker

HERE = Path(__file__).resolve().parent


def test_starts_on_loopback(kafka_broker: KafkaBroker):
    assert kafka_broker.bootstrap.startswith("127.0.0.1:")
    assert kafka_broker.is_running()
    print(f"broker startup: {kafka_broker.startup_seconds:.2f}s")
    state = (kafka_broker.run_dir / "broker.env").read_text()
    assert f"BOOTSTRAP={kafka_broker.bootstrap}" in state
    # auto.create.topics.enable=false: metadata for an unknown topic must not create it
    with pytest.raises(KeyError):
        kafka_broker.describe_topic("never-created")
    assert "never-created" not in kafka_broker.list_topics()


def test_topic_create_describe_delete(kafka_broker: KafkaBroker):
    kafka_broker.create_topic("smoke-admin", partitions=2, config={"retention.ms": 3600000})
    d = kafka_broker.describe_topic("smoke-admin")
    assert sorted(d) == [0, 1] and all(p["leader"] == 1 for p in d.values())
    kafka_broker.delete_topic("smoke-admin")
    assert "smoke-admin" not in kafka_broker.list_topics()


def test_1000_messages_keep_per_partition_order(kafka_broker: KafkaBroker):
    kafka_broker.create_topic("smoke-order", partitions=3)
    msgs = [(f"key-{i % 17}", f"value-{i}") for i in range(1000)]
    acks = kafka_broker.produce("smoke-order", msgs, headers={"source": "smoke"})
    assert len(acks) == 1000
    sent = defaultdict(list)
    for (k, v), (p, off) in zip(msgs, acks):
        sent[p].append((off, k.encode(), v.encode()))
    assert len(sent) == 3, "17 keys should land on all 3 partitions"

    got = kafka_broker.consume("smoke-order", 1000, timeout=30)
    assert len(got) == 1000
    by_part = defaultdict(list)
    for r in got:
        assert r.headers == [("source", b"smoke")]
        by_part[r.partition].append((r.offset, r.key, r.value))
    assert dict(by_part) == dict(sent)  # same messages, same offsets, same order per partition
    # one key -> one partition
    key_parts = defaultdict(set)
    for r in got:
        key_parts[r.key].add(r.partition)
    assert all(len(s) == 1 for s in key_parts.values())
    assert kafka_broker.end_offsets("smoke-order") == {p: len(v) for p, v in sent.items()}


def test_explicit_partition_and_null_key(kafka_broker: KafkaBroker):
    kafka_broker.create_topic("smoke-part", partitions=3)
    kafka_broker.produce("smoke-part", ["a", "b", None], partition=2)
    got = kafka_broker.consume("smoke-part", 3, timeout=15)
    assert [(r.partition, r.key, r.value) for r in got] == [(2, None, b"a"), (2, None, b"b"), (2, None, None)]


def test_transactions_commit_and_abort(kafka_broker: KafkaBroker):
    kafka_broker.create_topic("smoke-txn", partitions=2)
    tp = kafka_broker.transactional_producer()
    tp.begin_transaction()
    kafka_broker.produce("smoke-txn", [("k", f"committed-{i}") for i in range(5)], producer=tp)
    tp.commit_transaction(30)
    tp.begin_transaction()
    kafka_broker.produce("smoke-txn", [("k", f"aborted-{i}") for i in range(5)], producer=tp)
    tp.abort_transaction(30)
    tp.begin_transaction()
    kafka_broker.produce("smoke-txn", [("k", "committed-last")], producer=tp)
    tp.commit_transaction(30)

    committed = kafka_broker.consume_all("smoke-txn", timeout=20, isolation="read_committed")
    assert [r.value for r in committed] == [f"committed-{i}".encode() for i in range(5)] + [b"committed-last"]
    everything = kafka_broker.consume_all("smoke-txn", timeout=20, isolation="read_uncommitted")
    assert len(everything) == 11
    assert sum(r.value.startswith(b"aborted-") for r in everything) == 5


def test_consumer_group_offsets(kafka_broker: KafkaBroker):
    kafka_broker.create_topic("smoke-group", partitions=3)
    acks = kafka_broker.produce("smoke-group", [(f"k{i}", f"v{i}") for i in range(30)])
    per_part = defaultdict(int)
    for p, _ in acks:
        per_part[p] += 1
    assert kafka_broker.committed_offsets("g1", "smoke-group") == {}
    got = kafka_broker.consume("smoke-group", 30, timeout=30, group="g1", commit=True)
    assert len(got) == 30
    assert kafka_broker.committed_offsets("g1", "smoke-group") == dict(per_part)
    kafka_broker.commit_offsets("g2", "smoke-group", {0: 1})
    assert kafka_broker.committed_offsets("g2", "smoke-group") == {0: 1}


def test_stop_keep_and_resume_keeps_data(kafka_broker: KafkaBroker):
    kafka_broker.create_topic("smoke-resume", partitions=3)
    kafka_broker.produce("smoke-resume", [(f"k{i}", f"before-{i}") for i in range(100)])
    kafka_broker.commit_offsets("g-resume", "smoke-resume", {1: 3})
    port = kafka_broker.port

    kafka_broker.stop(keep=True)
    assert not kafka_broker.is_running()
    t0 = time.monotonic()
    kafka_broker.start(resume=True)
    print(f"broker resume: {time.monotonic() - t0:.2f}s")
    assert kafka_broker.port == port

    assert kafka_broker.describe_topic("smoke-resume").keys() == {0, 1, 2}
    before = kafka_broker.consume("smoke-resume", 100, timeout=30)
    assert sorted(r.value for r in before) == sorted(f"before-{i}".encode() for i in range(100))
    assert kafka_broker.committed_offsets("g-resume", "smoke-resume") == {1: 3}
    kafka_broker.produce("smoke-resume", ["after"], key="k0")
    assert len(kafka_broker.consume("smoke-resume", 101, timeout=30)) == 101


def test_kafka_sh_topic_helpers(kafka_broker: KafkaBroker):
    sh = ["bash", str(HERE / "kafka.sh"), "--run-dir", str(kafka_broker.run_dir)]
    run = lambda *a, **kw: subprocess.run(sh + list(a), capture_output=True, text=True, timeout=60, **kw)  # noqa: E731
    assert run("status").returncode == 0
    r = run("topic", "create", "smoke-cli", "2")
    assert r.returncode == 0, r.stderr
    assert "smoke-cli" in run("topic", "list").stdout.split()
    r = run("topic", "produce", "smoke-cli", "--key-delim", ":", input="a:1\nb:2\nc:3\n")
    assert r.returncode == 0, r.stderr
    r = run("topic", "consume", "smoke-cli", "3", "--timeout", "20", "--format", "%k=%s\n")
    assert r.returncode == 0, r.stderr
    assert sorted(r.stdout.split()) == ["a=1", "b=2", "c=3"]
    assert run("topic", "delete", "smoke-cli").returncode == 0


def test_second_broker_in_own_run_dir(tmp_path):
    """Brokers are independent per run dir; close() stops and wipes."""
    with KafkaBroker(run_dir=tmp_path / "run") as b:
        b.create_topic("solo", partitions=1)
        b.produce("solo", ["x"])
        assert [r.value for r in b.consume("solo", 1, timeout=15)] == [b"x"]
    assert not (tmp_path / "run" / "data").exists()
    assert not b.is_running()
