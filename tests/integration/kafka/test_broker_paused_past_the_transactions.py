# The broker paused (SIGSTOP) for longer than an exactly-once sink's transactional calls may take:
# their own timeout (60 s), the producer's stall limit (sinks/kafka/producer_config.h) and cdcd's
# limit on a call that does not return (70 s, sinks/kafka/transactions.cpp). The fault matrix's
# pause (8 s) is ridden out; this one cannot be. cdcd must neither wait for ever nor fail without
# saying why: it exits 1 within those limits, naming what it gave up on (the commit marker, the
# commit, or the records no broker acknowledged), and a supervisor's restart (here the test) finds
# every record exactly once (docs/reliability.md).
import os
import re
import signal
import time

from confluent_kafka import KafkaException, TopicPartition

from conftest import wait_for
from test_fault_matrix import MatrixRun, Trickle, _broker_pid, _log_excerpt

# The longest the broker stays paused: past every limit above. cdcd exits before it.
PAUSE_SECONDS = 80


def test_exactly_once_fails_clearly_when_the_broker_is_away_past_its_timeouts_and_loses_nothing(
        kafka_broker, cdcd, tmp_path):
    run = MatrixRun(kafka_broker, cdcd, tmp_path, "exactly-once", "bp")
    c, ids, written = run.c, run.ids, run.written
    # A slow stream: when the broker pauses, the sink's records are most likely all acknowledged,
    # so what waits is the next checkpoint's commit marker (with a fast one, the records not yet
    # acknowledged hit the stall limit first).
    trickle = Trickle(kafka_broker, run.src, run.db, per_tick=1, tick=0.05).start()
    # The pause must find a transaction open (records written that no commit has made readable
    # yet): with nothing in flight cdcd has nothing to wait for and rightly runs on, idle, which
    # a pause right after a commit found once in a CI run.
    ends = [kafka_broker.consumer(isolation_level=i) for i in ("read_uncommitted", "read_committed")]

    def transaction_open():
        try:
            uncommitted, committed = (
                sum(e.get_watermark_offsets(TopicPartition(run.dst, p), timeout=5)[1] for p in (0, 1))
                for e in ends)
            return uncommitted > committed
        except KafkaException:
            return False

    try:
        c.start()
        wait_for(lambda: written() >= 50, 60, "the stream to flow", interval=0.5)
        pid = _broker_pid(kafka_broker)
        wait_for(transaction_open, 30, "a transaction open", interval=0.005)
        os.kill(pid, signal.SIGSTOP)
        paused = time.monotonic()
        try:
            while c.proc.poll() is None and time.monotonic() - paused < PAUSE_SECONDS:
                time.sleep(0.5)
            took = time.monotonic() - paused
        finally:
            os.kill(pid, signal.SIGCONT)
    finally:
        sent = trickle.stop()
        for e in ends:
            e.close()
    log = c.log_text()
    assert c.proc.poll() is not None, f"cdcd still waits {took:.0f} s into the pause:\n{_log_excerpt(log)}"
    assert c.proc.returncode == 1, _log_excerpt(log)
    failure = re.search(r"^.* error (sink kafka writer \d+ failed|pipeline failed): kafka sink: .*$", log, re.M)
    assert failure, _log_excerpt(log)
    # Whichever call gave up, the error says what a restart does (librdkafka's words alone, such
    # as `Local: Timed out` from the commit marker before 2026-12-07, did not).
    assert "when it is restarted the open transaction is aborted and the pipeline resumes from its " \
           "last checkpoint, exactly once" in failure.group(0), failure.group(0)
    print(f"exited 1 {took:.1f} s into the pause: {failure.group(0)}")
    # The supervisor's restart, with the broker back.
    c.start()
    wait_for(lambda: written() >= len(sent) or c.proc.poll() is not None, 120, "every record", interval=0.5)
    wait_for(lambda: set(ids()) >= sent or c.proc.poll() is not None, 60, "every record", interval=1)
    assert c.proc.poll() is None, f"cdcd exited {c.proc.returncode}:\n{_log_excerpt(c.log_text())}"
    assert c.stop() == 0, _log_excerpt(c.log_text())
    got = ids()
    lost = sent - set(got)
    duplicates = len(got) - len(set(got))
    print(f"{len(sent)} records, {len(lost)} lost, {duplicates} duplicates")
    assert not lost, f"{len(lost)} of {len(sent)} records lost"
    assert duplicates == 0, f"{duplicates} duplicates under exactly-once"
