"""A second `cdcd run` on the state directory of a running exactly-once Kafka pipeline is refused
before its sink exists: a new transactional producer with the same transactional ids would fence
the running daemon's, whose next commit would then fail."""
import json
import subprocess

from conftest import GENERATED_EXACTLY_ONCE, unique

ROWS = 16_000


def test_a_second_start_does_not_fence_the_running_exactly_once_sink(kafka_broker, cdcd):
    topic = unique("eos_second")
    kafka_broker.create_topic(topic)
    c = cdcd(GENERATED_EXACTLY_ONCE.format(rows=ROWS, rate=2000, bootstrap=kafka_broker.bootstrap, topic=topic,
                                         name=unique("second"), extra=""))
    first = c.start()
    # A first transaction is committed: the daemon's producer is in business.
    kafka_broker.consume(topic, 1, timeout=60, isolation="read_committed")
    assert first.poll() is None, c.log_text()[-3000:]

    second = subprocess.run(c.cmd(), capture_output=True, text=True, timeout=120)
    assert second.returncode == 1
    assert f"state directory {c.state} is in use by another cdcd process (pid {first.pid})" in second.stderr

    # The first keeps committing its transactions and finishes with every row exactly once.
    assert first.wait(120) == 0, c.log_text()[-3000:]
    records = kafka_broker.consume_all(topic, isolation="read_committed", timeout=60)
    ids = [json.loads(r.value)["after"]["id"] for r in records]
    assert sorted(ids) == list(range(1, ROWS + 1))
