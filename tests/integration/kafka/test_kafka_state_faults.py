"""State-directory faults with the Kafka source and the exactly-once Kafka sink: the state
directory's disk filling up while the pipeline runs, a read-only state directory and a second
instance on the same directory. The source commits to its group only offsets a written checkpoint
covers; the sink commits no transaction of a checkpoint that was not written. (A second instance
next to the exactly-once sink: test_kafka_state_dir.py.)"""
import json
import re
import signal
import subprocess

from conftest import GENERATED_EXACTLY_ONCE, unique, wait_for
from state_faults import read_only, small_disk

HALF = 500

SOURCE_PIPE = """
source:
  type: kafka
  properties.bootstrap.servers: {bootstrap}
  topic: {topic}
  value.format: json
  table-id.fixed.name: db.t
  scan.startup.mode: earliest-offset
  properties.group.id: {group}
sink:
  type: file
  path: {out}
pipeline:
  name: {name}
  execution.checkpointing.interval: 200ms{extra}
"""


def tolerate(n):
    return f"\n  execution.checkpointing.tolerable-failed-checkpoints: {n}" if n is not None else ""


def ids_in(path):
    try:
        return [json.loads(x)["after"]["id"] for x in path.read_text().splitlines() if x]
    except FileNotFoundError:
        return []


def produce_ids(kafka_broker, topic, start, n):
    kafka_broker.produce(topic, [json.dumps({"id": i}) for i in range(start, start + n)])


def failed_writes(c):
    return len(re.findall(r"checkpoint \d+ failed: cannot write checkpoint", c.log_text()))


class SourceCase:
    def __init__(self, kafka_broker, cdcd, tolerable=None):
        self.broker = kafka_broker
        self.topic = unique("state_faults")
        self.group = unique("g")
        kafka_broker.create_topic(self.topic)
        self.make = lambda: cdcd(SOURCE_PIPE.format(
            bootstrap=kafka_broker.bootstrap, topic=self.topic, group=self.group, out=self.out,
            name=self.name, extra=tolerate(tolerable)))
        self.name = unique("p")
        self.out = None

    def committed(self):
        return self.broker.committed_offsets(self.group, self.topic).get(0)

    def first_half_committed(self, c):
        """Starts `c`, feeds it the first half and waits until a checkpoint covers it."""
        c.start()
        wait_for(lambda: "reading" in c.log_text(), 60, "assignment")
        produce_ids(self.broker, self.topic, 0, HALF)
        wait_for(lambda: self.committed() == HALF, 30, "the first half committed")


def test_kafka_source_rides_out_a_full_state_disk_committing_no_uncovered_offset(kafka_broker, cdcd, tmp_path):
    case = SourceCase(kafka_broker, cdcd, tolerable=50)
    case.out = tmp_path / "out.jsonl"
    c = case.make()
    with small_disk(tmp_path / "disk") as disk:
        c.state = disk.root / "state"
        case.first_half_committed(c)
        disk.fill()
        # (A write or two may still fit in the last page of RocksDB's log.)
        wait_for(lambda: failed_writes(c) >= 1, 30, "a failed checkpoint write")
        produce_ids(kafka_broker, case.topic, HALF, HALF)
        wait_for(lambda: failed_writes(c) >= 3, 30, "three failed checkpoint writes")
        assert c.proc.poll() is None, c.log_text()[-3000:]
        # The source has read the second half, but the group's offset stays where the last
        # written checkpoint put it.
        assert case.committed() == HALF
        disk.free()
        wait_for(lambda: case.committed() == 2 * HALF, 30, "the second half committed")
        assert c.stop() == 0, c.log_text()[-3000:]
    assert ids_in(case.out) == list(range(2 * HALF))


def test_kafka_source_fails_after_its_tolerated_failures_and_a_restart_is_exactly_once(
        kafka_broker, cdcd, tmp_path):
    case = SourceCase(kafka_broker, cdcd, tolerable=1)
    case.out = tmp_path / "out.jsonl"
    with small_disk(tmp_path / "disk") as disk:
        state = disk.root / "state"
        c = case.make()
        c.state = state
        case.first_half_committed(c)
        disk.fill()
        # (A write or two may still fit in the last page of RocksDB's log.)
        wait_for(lambda: failed_writes(c) >= 1, 30, "a failed checkpoint write")
        produce_ids(kafka_broker, case.topic, HALF, HALF)
        assert c.proc.wait(30) == 1, c.log_text()[-3000:]
        assert re.search(rf"cannot write checkpoint \d+ to {re.escape(str(state))}.*No space left on "
                         r"device.*2 consecutive checkpoint\(s\) failed \(execution.checkpointing.tolerable-failed-"
                         r"checkpoints is 1\): stopping", c.log_text()), c.log_text()[-3000:]
        assert case.committed() == HALF
        disk.free()
        again = case.make()
        again.state = state
        again.start()
        wait_for(lambda: case.committed() == 2 * HALF, 30, "the second half committed after the restart")
        assert again.stop() == 0, again.log_text()[-3000:]
    assert ids_in(case.out) == list(range(2 * HALF))


def test_kafka_source_on_a_read_only_state_dir_is_refused_before_it_reads(kafka_broker, cdcd, tmp_path):
    case = SourceCase(kafka_broker, cdcd)
    case.out = tmp_path / "out.jsonl"
    c = case.make()
    case.first_half_committed(c)
    assert c.stop() == 0
    produce_ids(kafka_broker, case.topic, HALF, HALF)
    with read_only(c.state):
        refused = c.run(check=False)
    assert refused.returncode == 1
    assert re.search(rf"state directory {re.escape(str(c.state))}.*Read-only file system",
                     refused.stderr), refused.stderr
    assert "reading" not in refused.stderr
    assert case.committed() == HALF and ids_in(case.out) == list(range(HALF))
    c.start()
    wait_for(lambda: case.committed() == 2 * HALF, 30, "the second half committed after the fix")
    assert c.stop() == 0
    assert ids_in(case.out) == list(range(2 * HALF))


def test_kafka_source_second_instance_is_refused_and_the_first_keeps_reading(kafka_broker, cdcd, tmp_path):
    case = SourceCase(kafka_broker, cdcd)
    case.out = tmp_path / "out.jsonl"
    c = case.make()
    case.first_half_committed(c)
    second = subprocess.run(c.cmd(), capture_output=True, text=True, timeout=60)
    assert second.returncode == 1
    assert f"state directory {c.state} is in use by another cdcd process (pid {c.proc.pid})" in second.stderr
    assert "reading" not in second.stderr
    produce_ids(kafka_broker, case.topic, HALF, HALF)
    wait_for(lambda: case.committed() == 2 * HALF, 30, "the first daemon commits the second half")
    assert c.stop() == 0, c.log_text()[-3000:]
    assert ids_in(case.out) == list(range(2 * HALF))


ROWS = 8_000


def sink_case(kafka_broker, cdcd, tolerable=None, rate=1_000):
    topic = unique("eos_state_faults")
    kafka_broker.create_topic(topic)
    name = unique("eos")
    return topic, lambda: cdcd(GENERATED_EXACTLY_ONCE.format(
        rows=ROWS, rate=rate, bootstrap=kafka_broker.bootstrap, topic=topic, name=name,
        extra=tolerate(tolerable)))


def committed_ids(kafka_broker, topic):
    records = kafka_broker.consume_all(topic, isolation="read_committed", timeout=30)
    return [json.loads(r.value)["after"]["id"] for r in records]


def test_exactly_once_kafka_sink_rides_out_a_full_state_disk_committing_no_unwritten_checkpoint(
        kafka_broker, cdcd, tmp_path):
    topic, make = sink_case(kafka_broker, cdcd, tolerable=50)
    c = make()
    with small_disk(tmp_path / "disk") as disk:
        c.state = disk.root / "state"
        c.start()
        kafka_broker.consume(topic, 1, timeout=60, isolation="read_committed")
        disk.fill()
        wait_for(lambda: failed_writes(c) >= 2, 30, "two failed checkpoint writes")
        stable = kafka_broker.end_offsets(topic, isolation="read_committed")
        wait_for(lambda: failed_writes(c) >= 4, 30, "four failed checkpoint writes")
        # No transaction committed while its checkpoint was not written.
        assert kafka_broker.end_offsets(topic, isolation="read_committed") == stable
        assert c.proc.poll() is None, c.log_text()[-3000:]
        disk.free()
        assert c.proc.wait(60) == 0, c.log_text()[-3000:]
    assert sorted(committed_ids(kafka_broker, topic)) == list(range(1, ROWS + 1))


def test_exactly_once_kafka_sink_fails_on_a_full_state_disk_by_default_and_a_restart_is_exactly_once(
        kafka_broker, cdcd, tmp_path):
    topic, make = sink_case(kafka_broker, cdcd)
    with small_disk(tmp_path / "disk") as disk:
        state = disk.root / "state"
        c = make()
        c.state = state
        c.start()
        kafka_broker.consume(topic, 1, timeout=60, isolation="read_committed")
        disk.fill()
        assert c.proc.wait(30) == 1, c.log_text()[-3000:]
        assert re.search(rf"cannot write checkpoint \d+ to {re.escape(str(state))}: IO error: No space left on device",
                         c.log_text()), c.log_text()[-3000:]
        disk.free()
        again = make()
        again.state = state
        again.run(timeout=120)
    assert sorted(committed_ids(kafka_broker, topic)) == list(range(1, ROWS + 1))


def test_exactly_once_kafka_sink_on_a_read_only_state_dir_is_refused_before_its_producers_exist(
        kafka_broker, cdcd, tmp_path):
    topic, make = sink_case(kafka_broker, cdcd)
    c = make()
    c.start()
    kafka_broker.consume(topic, 1, timeout=60, isolation="read_committed")
    c.proc.send_signal(signal.SIGTERM)
    assert c.proc.wait(60) == 0, c.log_text()[-3000:]
    with read_only(c.state):
        refused = c.run(check=False)
    assert refused.returncode == 1
    assert re.search(rf"state directory {re.escape(str(c.state))}.*Read-only file system",
                     refused.stderr), refused.stderr
    assert "running:" not in refused.stderr
    c.run(timeout=120)
    assert sorted(committed_ids(kafka_broker, topic)) == list(range(1, ROWS + 1))
