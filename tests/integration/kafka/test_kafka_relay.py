# Kafka → cdcd → Kafka: the spec's relay example, crash recovery (kill -9), broker restarts.
import random
import re
import time

import pytest
from confluent_kafka import KafkaException, TopicPartition

from conftest import unique, wait_for

ID = re.compile(rb'"after":\{"id":(\d+)')


def dbz(i, db, table):
    return ('{"before":null,"after":{"id":%d,"name":"n%d","amount":%d.25},"op":"c","source":{"db":"%s","table":"%s"}}'
            % (i, i, i % 1000, db, table))


RELAY = """
source:
  type: kafka
  name: Kafka Source
  properties.bootstrap.servers: {bootstrap}
  properties.group.id: {group}
  properties.auto.offset.reset: earliest
  {topic}
  value.format: debezium-json
  table-id.dynamic.from: value
  table-id.dynamic.fields: source.db,source.table
  scan.startup.mode: group-offsets
{extra}
sink:
  type: kafka
  name: Kafka Sink
  properties.bootstrap.servers: {bootstrap}
  value.format: debezium-json
{sink}
pipeline:
  name: {name}
  parallelism: {parallelism}
  execution.checkpointing.interval: {interval}
"""


def relay_yaml(kafka_broker, topic, extra="", sink="", interval="1s", parallelism=2, name=None):
    return RELAY.format(bootstrap=kafka_broker.bootstrap, group=unique("g"), topic=topic, extra=extra, sink=sink,
                        name=name or unique("relay"), interval=interval, parallelism=parallelism)


def test_spec_relay_example_topic_per_table(kafka_broker, cdcd):
    db = unique("app")
    prefix = unique("src")
    kafka_broker.create_topic(prefix + "_1", partitions=2)
    kafka_broker.create_topic(f"{db}.orders")
    kafka_broker.create_topic(f"{db}.items")
    msgs = [dbz(i, db, "orders" if i % 3 else "items") for i in range(30)]
    kafka_broker.produce(prefix + "_1", msgs)
    c = cdcd(relay_yaml(kafka_broker, f"topic-pattern: {prefix}_.*"))
    c.start()
    wait_for(lambda: len(kafka_broker.consume_all(f"{db}.orders")) == 20 and
             len(kafka_broker.consume_all(f"{db}.items")) == 10, 90, "relayed messages")
    assert c.stop() == 0
    out = kafka_broker.consume_all(f"{db}.orders") + kafka_broker.consume_all(f"{db}.items")
    assert sorted(r.value.decode() for r in out) == sorted(msgs)  # byte-identical CDC JSON
    assert {r.key.decode() for r in out} == {f'{{"TableId":"{db}.orders"}}', f'{{"TableId":"{db}.items"}}'}


def _load(kafka_broker, n, partitions=3):
    src = unique("crash_in")
    kafka_broker.create_topic(src, partitions=partitions)
    db = unique("db")
    batch = 20000
    for start in range(0, n, batch):
        kafka_broker.produce(src, [dbz(i, db, "t") for i in range(start, min(n, start + batch))])
    return src


def _ids(records):
    out = []
    for r in records:
        m = ID.search(r.value)
        assert m, r.value
        out.append(int(m.group(1)))
    return out


def _wal_size(state_dir):
    """Bytes in the RocksDB write-ahead logs of a state directory: each checkpoint is one synced
    write to them, so a change means that a checkpoint has just become durable."""
    total = 0
    for f in state_dir.glob("*.log"):
        try:
            total += f.stat().st_size
        except FileNotFoundError:
            pass  # a log RocksDB just retired
    return total


def _kill_after_checkpoints(c, count, written, timeout=60):
    """Kills the daemon -9 as soon as `count` checkpoints holding records of this run are durable:
    right in the window between a checkpoint and the sink's commit that follows it. `written()`
    counts the records in the output topic, committed or not (None: unknown for now). False when the
    daemon ended first."""
    deadline = time.time() + timeout
    before = None
    while before is None and time.time() < deadline:
        before = written()
    while written() in (before, None):  # this run writes records: its next checkpoints hold some
        if c.proc.poll() is not None or time.time() > deadline:
            return False
        time.sleep(0.005)
    seen = _wal_size(c.state)
    while count > 0 and time.time() < deadline:
        if c.proc.poll() is not None:
            return False
        size = _wal_size(c.state)
        if size != seen:
            seen = size
            count -= 1
        else:
            time.sleep(0.0005)
    if c.proc.poll() is not None:
        return False
    c.kill9()
    return True


def _crash_relay(kafka_broker, cdcd, guarantee, isolation, interval="300ms", kill=None, parallelisms=(2,),
                 n=200_000):
    """Kills the relay up to 10 times, then lets it finish; each start runs at the next of
    `parallelisms` in turn."""
    src = _load(kafka_broker, n)
    dst = unique("crash_out")
    kafka_broker.create_topic(dst, partitions=2)
    yaml = relay_yaml(kafka_broker, f"topic: {src}", extra="  scan.bounded.mode: latest-offset",
                      sink=f"  topic: {dst}\n  sink.delivery-guarantee: {guarantee}", interval=interval,
                      name=unique("crash"), parallelism="@PARALLELISM@")
    rng = random.Random(7)
    c = cdcd(yaml)
    kills = 0
    while kills < 10:
        c.yaml.write_text(yaml.replace("@PARALLELISM@", str(parallelisms[kills % len(parallelisms)])))
        c.start()
        if kill:
            if not kill(c, rng, dst):
                break  # finished before the kill
        else:
            # Short enough that a quiet machine's relay (~400k msgs/s) is still running.
            time.sleep(rng.uniform(0.1, 0.35))
            if c.proc.poll() is not None:
                break  # finished before the kill
            c.kill9()
        kills += 1
    c.yaml.write_text(yaml.replace("@PARALLELISM@", str(parallelisms[kills % len(parallelisms)])))
    c.start()
    assert c.proc.wait(300) == 0, c.log_text()[-3000:]
    ids = _ids(kafka_broker.consume_all(dst, isolation=isolation, timeout=60))
    assert set(ids) == set(range(n)), f"missing {len(set(range(n)) - set(ids))} after {kills} kills"
    return ids, kills, c


def test_kill_9_ten_times_at_least_once(kafka_broker, cdcd):
    ids, kills, _ = _crash_relay(kafka_broker, cdcd, "at-least-once", "read_uncommitted")
    assert kills >= 3, f"only {kills} kills: the relay finished first"


def test_kill_9_ten_times_exactly_once(kafka_broker, cdcd):
    ids, kills, _ = _crash_relay(kafka_broker, cdcd, "exactly-once", "read_committed")
    assert kills >= 3, f"only {kills} kills: the relay finished first"
    assert len(ids) == len(set(ids)), f"{len(ids) - len(set(ids))} duplicates"


def _kill_one_or_two_checkpoints_in(watermarks):
    """A `kill` for _crash_relay: kill -9 just after one or two checkpoints holding records became
    durable (before or while their transaction commits, under exactly-once)."""
    def kill(c, rng, dst):
        def written():  # None while the broker cannot tell (a transient error)
            try:
                return sum(watermarks.get_watermark_offsets(TopicPartition(dst, p), timeout=10)[1] for p in (0, 1))
            except KafkaException:
                return None
        return _kill_after_checkpoints(c, rng.randint(1, 2), written)
    return kill


def test_kill_9_right_after_checkpoints_exactly_once(kafka_broker, cdcd):
    # Each kill lands just after a checkpoint holding records became durable, before (or while)
    # its transaction commits: the restart finds that transaction aborted and resumes from the
    # checkpoint before it.
    watermarks = kafka_broker.consumer(isolation_level="read_uncommitted")
    try:
        ids, kills, c = _crash_relay(kafka_broker, cdcd, "exactly-once", "read_committed", interval="100ms",
                                     kill=_kill_one_or_two_checkpoints_in(watermarks))
    finally:
        watermarks.close()
    assert kills >= 3, f"only {kills} kills: the relay finished first"
    assert len(ids) == len(set(ids)), f"{len(ids) - len(set(ids))} duplicates"
    log = c.log_text()
    print(f"{kills} kills; resumed from an older checkpoint {log.count('resuming from')} times; "
          f"{log.count('were committed')} restarts found their pending transactions committed")


# Each restart at another parallelism than the run it follows, killed just after checkpoints: the
# restore hands the old writers' states, merged, to every new writer (the tables they knew and
# the transactions pending at the checkpoint), and at-least-once above 1 splits the source into a
# reader per writer thread.
@pytest.mark.parametrize("guarantee,isolation", [("at-least-once", "read_uncommitted"),
                                                 ("exactly-once", "read_committed")])
def test_kill_9_right_after_checkpoints_with_the_parallelism_changing(kafka_broker, cdcd, guarantee,
                                                                      isolation):
    watermarks = kafka_broker.consumer(isolation_level="read_uncommitted")
    try:
        # More records than the other crash tests: at 2 and 3 writers at-least-once reads on a
        # reader per writer thread, and 200,000 were once all relayed before the third kill.
        ids, kills, c = _crash_relay(kafka_broker, cdcd, guarantee, isolation, interval="100ms",
                                     kill=_kill_one_or_two_checkpoints_in(watermarks),
                                     parallelisms=(1, 2, 3), n=400_000)
    finally:
        watermarks.close()
    # Two kills make the runs at 1 and 2 writers end in a crash: the restarts at 2 and 3 resume
    # from their checkpoints.
    assert kills >= 2, f"only {kills} kills: the relay finished first"
    if guarantee == "exactly-once":
        assert len(ids) == len(set(ids)), f"{len(ids) - len(set(ids))} duplicates"
    log = c.log_text()
    assert "resumed it with 2, the sink's state redistributed" in log
    assert "resumed it with 3, the sink's state redistributed" in log
    assert "restore is refused" not in log


def _killed_after_a_checkpoint_then_restarted(kafka_broker, cdcd, name, first_sink, then_sink):
    """Relays 400,000 records with `first_sink` (sink lines, exactly-once), kills it -9 right after
    a checkpoint, restarts it with `then_sink` and lets it finish. Returns the ids read with
    read_committed and the daemon."""
    # 200,000 were relayed before the kill once in CI (the run ended within its first two
    # checkpoints with records): twice as many leave it running past them.
    n = 400_000
    src = _load(kafka_broker, n)
    dst = unique(name + "_out")
    kafka_broker.create_topic(dst, partitions=2)
    name = unique(name)

    def yaml(sink):
        return relay_yaml(kafka_broker, f"topic: {src}", extra="  scan.bounded.mode: latest-offset",
                          sink=f"  topic: {dst}\n{sink}", interval="100ms",
                          name=name).replace("properties.group.id: ", "properties.group.id: g-" + name + "-", 1)

    watermarks = kafka_broker.consumer(isolation_level="read_uncommitted")
    try:
        c = cdcd(yaml(first_sink))
        c.start()
        assert _kill_one_or_two_checkpoints_in(watermarks)(c, random.Random(3), dst), "finished first"
    finally:
        watermarks.close()
    c.yaml.write_text(yaml(then_sink))
    c.start()
    assert c.proc.wait(300) == 0, c.log_text()[-3000:]
    ids = _ids(kafka_broker.consume_all(dst, isolation="read_committed", timeout=60))
    assert set(ids) == set(range(n)), f"missing {len(set(range(n)) - set(ids))}"
    return ids, c


def test_exactly_once_killed_after_a_checkpoint_then_run_at_least_once_loses_nothing(kafka_broker, cdcd):
    # The kill lands right after a checkpoint became durable, before its transaction committed.
    # The restart drops exactly-once: it must still settle what the exactly-once run left (abort
    # the transaction and resume from the checkpoint before it), or that checkpoint's records are
    # lost, and an open transaction holds read_committed consumers back until its timeout.
    _killed_after_a_checkpoint_then_restarted(kafka_broker, cdcd, "downgrade",
                                              "  sink.delivery-guarantee: exactly-once",
                                              "  sink.delivery-guarantee: at-least-once")


def test_exactly_once_killed_after_a_checkpoint_then_run_with_other_transactional_ids_loses_nothing(
        kafka_broker, cdcd):
    # The restart's transactional ids are not the killed run's (sink.transactional-id-prefix
    # changed): fencing its own ids does not abort what the killed run left open, which would hold
    # read_committed consumers back until the transaction's timeout (15 min). The checkpoint names
    # the run's ids, and the restart fences those too.
    prefix = unique("reprefix")
    ids, c = _killed_after_a_checkpoint_then_restarted(
        kafka_broker, cdcd, "reprefix",
        f"  sink.delivery-guarantee: exactly-once\n  sink.transactional-id-prefix: {prefix}-a",
        f"  sink.delivery-guarantee: exactly-once\n  sink.transactional-id-prefix: {prefix}-b")
    assert f"transactional ids {prefix}-a-0-*" in c.log_text()
    assert len(ids) == len(set(ids)), f"{len(ids) - len(set(ids))} duplicates"


def test_broker_restart_mid_run_loses_nothing(kafka_broker, cdcd):
    src = unique("br_in")
    dst = unique("br_out")
    kafka_broker.create_topic(src, partitions=2)
    kafka_broker.create_topic(dst)
    db = unique("db")
    kafka_broker.produce(src, [dbz(i, db, "t") for i in range(1000)])
    c = cdcd(relay_yaml(kafka_broker, f"topic: {src}", sink=f"  topic: {dst}", parallelism=1))
    c.start()
    wait_for(lambda: len(kafka_broker.consume_all(dst)) >= 1000, 90, "first half")
    kafka_broker.stop(keep=True)
    time.sleep(5)
    assert c.proc.poll() is None  # cdcd waits for the broker
    kafka_broker.start(resume=True)
    kafka_broker.produce(src, [dbz(i, db, "t") for i in range(1000, 2000)])
    wait_for(lambda: set(_ids(kafka_broker.consume_all(dst))) >= set(range(2000)), 180, "second half")
    assert c.stop() == 0


KEY_SEQ = re.compile(rb'"after":\{"k":(\d+),"seq":(\d+)\}')

ORDER_RELAY = """
source:
  type: kafka
  properties.bootstrap.servers: {bootstrap}
  topic: {src}
  value.format: json
  table-id.fixed.name: app.t
  scan.startup.mode: earliest-offset
sink:
  type: kafka
  properties.bootstrap.servers: {bootstrap}
  topic: {dst}
  properties.linger.ms: 5
pipeline:
  name: {name}
  execution.checkpointing.interval: 1s
"""


def test_key_order_holds_across_a_broker_restart(kafka_broker, cdcd):
    # A steady stream of per-key sequence numbers through cdcd (at-least-once, the default) while
    # the broker restarts: the produce requests in flight then fail and are retried. Without
    # idempotence librdkafka may write a retried batch after a later one (or twice), and a key's
    # sequence goes back; with it, the broker keeps each key's changes in order, once.
    keys, per_key = 100, 2000
    src, dst = unique("order_in"), unique("order_out")
    kafka_broker.create_topic(src)
    kafka_broker.create_topic(dst)
    for seq in range(0, per_key, 200):
        kafka_broker.produce(src, ['{"k":%d,"seq":%d}' % (k, s) for s in range(seq, seq + 200)
                                   for k in range(keys)])
    total = keys * per_key
    c = cdcd(ORDER_RELAY.format(bootstrap=kafka_broker.bootstrap, src=src, dst=dst, name=unique("order")))
    watermarks = kafka_broker.consumer()

    def written():
        try:
            return watermarks.get_watermark_offsets(TopicPartition(dst, 0), timeout=5)[1]
        except KafkaException:
            return 0

    c.start()
    try:
        wait_for(lambda: written() >= total // 10, 60, "the stream to flow", interval=0.01)
        kafka_broker.stop(keep=True)  # mid-stream: requests in flight fail
        assert c.proc.poll() is None, c.log_text()[-3000:]
        kafka_broker.start(resume=True)
        watermarks.close()
        watermarks = kafka_broker.consumer()
        wait_for(lambda: written() >= total, 120, "every record", interval=0.1)
    finally:
        watermarks.close()
    records = kafka_broker.consume_all(dst)
    assert c.stop() == 0
    last, back = {}, []
    for r in records:
        m = KEY_SEQ.search(r.value)
        assert m, r.value
        k, s = int(m.group(1)), int(m.group(2))
        if s < last.get(k, -1):
            back.append((k, last[k], s))
        last[k] = s
    seen = {KEY_SEQ.search(r.value).groups() for r in records}
    assert len(seen) == total, f"{total - len(seen)} records lost"
    assert not back, f"{len(back)} times a key's sequence went back, e.g. {back[:5]}"
