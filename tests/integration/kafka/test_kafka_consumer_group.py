# scan.consumer-group.enabled: three cdcd replicas share a topic's partitions through the Kafka
# consumer group (cooperative-sticky). Replicas joining take partitions from the running one
# (hand-over through the group's committed offset), one replica is killed with SIGKILL mid-run and
# its partitions move to the others. All write to one output partition, in the order they write:
# every message arrives, no key's messages go backwards beyond a suffix written again, and only
# what the killed replica wrote is written twice.
import json
import threading
import time
from collections import Counter

from confluent_kafka import OFFSET_BEGINNING, TopicPartition

from conftest import unique, wait_for

PARTITIONS = 6
KEYS = [f"k{i}" for i in range(24)]

REPLICA = """
source:
  type: kafka
  properties.bootstrap.servers: {bootstrap}
  properties.group.id: {group}
  properties.session.timeout.ms: 6000
  properties.heartbeat.interval.ms: 500
  topic: {topic}
  value.format: json
  table-id.fixed.name: app.events
  scan.startup.mode: earliest-offset
  scan.consumer-group.enabled: true
sink:
  type: kafka
  properties.bootstrap.servers: {bootstrap}
  topic: {out}
  sink.custom-header: replica:{replica}
pipeline:
  name: {name}
  parallelism: 1
  execution.checkpointing.interval: 500ms
"""


class Producer(threading.Thread):
    """Keyed messages, every key's seq counting up, a round of all keys every 50 ms."""

    def __init__(self, kafka_broker, topic):
        super().__init__(daemon=True)
        self.broker, self.topic = kafka_broker, topic
        self.halt = threading.Event()
        self.rounds = 0
        self.error = None

    def run(self):
        try:
            p = self.broker.producer()
            while not self.halt.is_set():
                for k in KEYS:
                    p.produce(self.topic, key=k, value=json.dumps({"k": k, "seq": self.rounds}))
                p.flush(10)
                self.rounds += 1
                time.sleep(0.05)
        except Exception as e:  # noqa: BLE001  (reported by the test)
            self.error = e

    def stop(self):
        self.halt.set()
        self.join(15)
        assert self.error is None, self.error
        return self.rounds


class Output:
    """The output partition as read so far: [(replica, key, seq)] in the order written."""

    def __init__(self, kafka_broker, topic):
        self.partition = TopicPartition(topic, 0, OFFSET_BEGINNING)
        self.consumer = kafka_broker.consumer(None, isolation_level="read_uncommitted")
        self.consumer.assign([self.partition])
        self.next = 0
        self.rows = []

    def read(self):
        """Up to the end of the partition as it is now (the replicas keep writing)."""
        end = self.consumer.get_watermark_offsets(self.partition, timeout=10, cached=False)[1]
        deadline = time.monotonic() + 20
        while self.next < end and time.monotonic() < deadline:
            for m in self.consumer.consume(num_messages=5000, timeout=0.2):
                if m.error() is None:
                    after = json.loads(m.value())["after"]
                    self.rows.append((dict(m.headers())["replica"].decode(), after["k"], after["seq"]))
                    self.next = m.offset() + 1
        return self.rows

    def close(self):
        self.consumer.close()


def in_order(seqs):
    """Counts up by one from 0, except where a suffix of what was written comes again (a run
    restarting at or below the highest so far); never a gap."""
    top, expected = -1, 0
    for s in seqs:
        if s != expected and s > top:
            return False
        top, expected = max(top, s), s + 1
    return True


def test_three_replicas_share_partitions_and_survive_a_kill(kafka_broker, cdcd):
    topic, out, group, name = unique("cg_in"), unique("cg_out"), unique("cg"), unique("cg_p")
    kafka_broker.create_topic(topic, partitions=PARTITIONS)
    kafka_broker.create_topic(out, partitions=1)
    replicas = [cdcd(REPLICA.format(bootstrap=kafka_broker.bootstrap, group=group, topic=topic, out=out,
                                    replica=i, name=name)) for i in range(3)]

    output = Output(kafka_broker, out)
    try:
        check_replicas(kafka_broker, topic, replicas, output)
    except BaseException:
        for i, c in enumerate(replicas):
            print(f"--- replica {i} log tail ---\n" + c.log_text()[-4000:])
        raise
    finally:
        output.close()


def check_replicas(kafka_broker, topic, replicas, output):
    def by_replica():
        return Counter(r for r, _, _ in output.read())

    producer = Producer(kafka_broker, topic)
    producer.start()
    try:
        replicas[0].start()
        wait_for(lambda: by_replica()["0"] > 0, 30, what="the first replica's output")
        for c in replicas[1:]:
            c.start()
        # The joiners take partitions from the first replica, which hands them over.
        wait_for(lambda: by_replica()["1"] > 0 and by_replica()["2"] > 0, 30, what="every replica's output")
        assert "committed the hand-over offsets" in replicas[0].log_text()
        replicas[1].kill9()
        time.sleep(1)
    finally:
        rounds = producer.stop()
    everything = {(k, s) for k in KEYS for s in range(rounds)}
    # The others take the victim's partitions once its session has timed out (6 s).
    wait_for(lambda: {(k, s) for _, k, s in output.read()} >= everything, 40,
             what=f"all {rounds * len(KEYS)} messages delivered")
    for i in (0, 2):
        assert replicas[i].stop() == 0, replicas[i].log_text()[-3000:]

    rows = output.read()
    assert {(k, s) for _, k, s in rows} == everything
    for k in KEYS:
        seqs = [s for _, key, s in rows if key == k]
        assert in_order(seqs), f"key {k}: {seqs}"
    # Hand-overs between live replicas are exact: what was written twice, the killed replica
    # wrote once (after its last checkpoint; its partitions' next owners read that again). Unless
    # librdkafka 2.0 dropped a live replica's partitions as lost (a commit refused during a
    # rebalance, its issue #4059): they are then read again from the last commit.
    count = Counter((k, s) for _, k, s in rows)
    by_victim = {(k, s) for r, k, s in rows if r == "1"}
    twice = {row for row, n in count.items() if n > 1}
    lost = any("lost partitions" in replicas[i].log_text() for i in (0, 2))
    print(f"{len(rows)} written, {len(twice)} twice, {len(twice - by_victim)} of them not by the killed "
          f"replica; partitions lost by a live replica: {lost}")
    if not lost:
        assert twice <= by_victim, sorted(twice - by_victim)[:10]


def test_consumer_group_option_is_refused_without_its_requirements(cdcd):
    c = cdcd("""
source:
  type: kafka
  properties.bootstrap.servers: localhost:1
  topic: t
  value.format: json
  table-id.fixed.name: t
  scan.startup.mode: earliest-offset
  scan.consumer-group.enabled: true
  scan.bounded.mode: latest-offset
  properties.partition.assignment.strategy: range
sink:
  type: values
pipeline:
  name: cg
""")
    p = c.run(check=False)
    assert p.returncode != 0
    err = p.stdout + p.stderr
    assert "scan.consumer-group.enabled needs `properties.group.id`" in err
    assert "scan.bounded.mode latest-offset cannot be combined with scan.consumer-group.enabled" in err
    assert "remove `properties.partition.assignment.strategy` or set it to cooperative-sticky" in err


SINGLE = """
source:
  type: kafka
  properties.bootstrap.servers: {bootstrap}
  properties.group.id: {group}
  topic: {topic}
  value.format: json
  table-id.fixed.name: app.events
  scan.startup.mode: earliest-offset
  scan.consumer-group.enabled: true
sink:
  type: file
  path: {out}
pipeline:
  name: cg_single
  execution.checkpointing.interval: 500ms
"""


def seqs_in(path):
    try:
        return sorted(json.loads(line)["after"]["seq"] for line in path.read_text().splitlines() if line)
    except FileNotFoundError:
        return []


def test_a_partition_starts_at_the_newer_of_own_checkpoint_and_group_offset(kafka_broker, cdcd, tmp_path):
    topic, group = unique("cg_start"), unique("cg_start_g")
    kafka_broker.create_topic(topic, partitions=2)
    send = lambda seqs: kafka_broker.produce(topic, [(f"k{s % 4}", json.dumps({"k": f"k{s % 4}", "seq": s}))
                                                     for s in seqs])
    send(range(20))
    out_a, out_b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a = cdcd(SINGLE.format(bootstrap=kafka_broker.bootstrap, group=group, topic=topic, out=out_a))
    a.start()
    wait_for(lambda: len(seqs_in(out_a)) == 20, 30, what="replica a's output")
    assert a.stop() == 0
    assert sum(kafka_broker.committed_offsets(group, topic).values()) == 20
    # Another replica, with a fresh state directory: the group's committed offsets, not the
    # startup mode (earliest-offset), say where it starts.
    send(range(20, 30))
    b = cdcd(SINGLE.format(bootstrap=kafka_broker.bootstrap, group=group, topic=topic, out=out_b))
    b.start()
    wait_for(lambda: len(seqs_in(out_b)) == 10, 30, what="replica b's output")
    assert b.stop() == 0
    assert seqs_in(out_b) == list(range(20, 30))
    # The group moved back behind b's own checkpoint: b resumes from its checkpoint, the newer.
    kafka_broker.commit_offsets(group, topic, {0: 0, 1: 0})
    send(range(30, 35))
    b.start()
    wait_for(lambda: len(seqs_in(out_b)) >= 15, 30, what="replica b's output after its restart")
    time.sleep(1)
    assert b.stop() == 0
    assert seqs_in(out_b) == list(range(20, 35))
