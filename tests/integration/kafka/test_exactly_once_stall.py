# A transactional producer that stops acknowledging records must not hold the pipeline: every
# wait on it (for room in its queue, a flush, a checkpoint) ends at the stall limit of
# sinks/kafka/producer_config.h (60 s with these client timeouts) with a clear error, so that a
# supervisor restarts cdcd, which aborts the open transaction and resumes exactly once. Before,
# a writer whose producer's queue was full waited for room until message.timeout.ms (5 min).
import os
import signal
import time

from conftest import unique, wait_for
from test_fault_matrix import CLIENT_TIMEOUTS, _broker_pid

PIPELINE = """
source:
  type: values
  event-set.id: GENERATED
  generator.rows: 100000000
sink:
  type: kafka
  properties.bootstrap.servers: {bootstrap}
  topic: {topic}
  sink.delivery-guarantee: exactly-once
  properties.queue.buffering.max.messages: 2000
{timeouts}
pipeline:
  name: {name}
  parallelism: 1
  execution.checkpointing.interval: 1s
"""

STALL_LIMIT = 60


def _answers(kafka_broker):
    try:
        kafka_broker.create_topic(unique("after_pause"), timeout=5)
        return True
    except Exception:  # noqa: BLE001  (fenced, not yet re-registered: any client error)
        return False


def test_a_full_queue_that_is_never_acknowledged_fails_the_sink_at_the_stall_limit(kafka_broker, cdcd):
    topic = unique("stall")
    kafka_broker.create_topic(topic, partitions=1)
    c = cdcd(PIPELINE.format(bootstrap=kafka_broker.bootstrap, topic=topic, name=unique("stall"),
                             timeouts=CLIENT_TIMEOUTS))
    c.start()
    wait_for(lambda: sum(kafka_broker.end_offsets(topic, isolation="read_committed").values()) > 0, 60,
             "a first committed transaction", interval=0.5)
    pid = _broker_pid(kafka_broker)
    os.kill(pid, signal.SIGSTOP)  # no response ever comes: the producer's queue fills and stays full
    paused = time.monotonic()
    try:
        wait_for(lambda: c.proc.poll() is not None, STALL_LIMIT + 40, "cdcd to give up on the stalled producer",
                 interval=0.5)
        gave_up_after = time.monotonic() - paused
    finally:
        os.kill(pid, signal.SIGCONT)
        # A broker paused this long was fenced by its controller: the next tests share it.
        wait_for(lambda: _answers(kafka_broker), 90, "the broker to answer after the pause", interval=1)
    log = c.log_text()
    assert c.proc.returncode == 1, log[-3000:]
    # Which wait meets the pause decides the message: the writer waiting for room in the queue
    # (or a flush) ends at the stall limit; a checkpoint whose records were all acknowledged just
    # before the pause waits instead on writing its commit marker, a transactional call that ends
    # at its own 60 s timeout (sinks/kafka/transactions.cpp). Either is a clear error at 60 s.
    assert ("has had no record acknowledged for 60 s" in log
            or "cannot write the commit marker of checkpoint" in log), log[-3000:]
    print(f"cdcd gave up {gave_up_after:.0f} s after the broker paused")
    assert gave_up_after >= STALL_LIMIT - 10, log[-3000:]  # not at the first timeout
