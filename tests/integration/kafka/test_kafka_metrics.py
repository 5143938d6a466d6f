# The Kafka connectors' metrics on /metrics (--admin-address) while a relay runs: consumer lag per
# partition (appears, moves, reaches 0), records and bytes in and out, no errors.
#
# The source's prefetch is cut to a few messages per fetch (queued.min.messages 1,
# queued.max.messages.kbytes 1, max.partition.fetch.bytes 2048, input written in record batches of
# a few messages, as the broker returns whole batches): librdkafka 2.0 then stops fetching
# after every fetch, and only cdcd's wake-up (a ListOffsets request to the leader once the queue has
# drained) keeps the relay going. That makes the relay slow enough to watch the lag fall, and the
# test would time out without the wake-up (a fetch per second of librdkafka's broker thread).
import http.client
import socket
import time

from prometheus_client.parser import text_string_to_metric_families

from conftest import unique, wait_for
from test_kafka_relay import dbz, relay_yaml

N_PER_PARTITION = 10000


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scrape(port):
    """{(family sample name, frozenset(labels)): value} or None when nothing answers yet."""
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/metrics")
        resp = conn.getresponse()
        body = resp.read().decode()
        conn.close()
    except OSError:
        return None
    assert resp.status == 200, body
    return {(s.name, frozenset(s.labels.items())): s.value
            for f in text_string_to_metric_families(body) for s in f.samples}


def sample(metrics, name, **labels):
    found = [v for (n, ls), v in metrics.items() if n == name and set(labels.items()) <= set(ls)]
    assert len(found) == 1, (name, labels, found)
    return found[0]


def test_relay_reports_lag_per_partition_and_bytes(kafka_broker, cdcd, tmp_path):
    src, dst, db = unique("lag_in"), unique("lag_out"), unique("lagdb")
    kafka_broker.create_topic(src, partitions=2)
    kafka_broker.create_topic(f"{db}.t")
    values = {}
    for p in (0, 1):
        msgs = [dbz(p * N_PER_PARTITION + i, db, "t") for i in range(N_PER_PARTITION)]
        # record batches of ~3: thousands of produce requests, so a loaded machine needs longer
        # than the default 30 s to deliver them.
        kafka_broker.produce(src, msgs, partition=p, batch_size=400, timeout=120)
        values[p] = msgs
    total = 2 * N_PER_PARTITION
    in_bytes = sum(len(m) for msgs in values.values() for m in msgs)

    port = free_port()
    extra = ("  properties.queued.min.messages: 1\n"
             "  properties.queued.max.messages.kbytes: 1\n"
             "  properties.max.partition.fetch.bytes: 2048\n")
    c = cdcd(relay_yaml(kafka_broker, f"topic: {src}", extra=extra, parallelism=1))
    c.cmd = lambda: [*type(c).cmd(c), "--admin-address", f"127.0.0.1:{port}"]
    c.start()

    lag = {0: [], 1: []}
    src_labels = dict(role="source", connector="kafka")

    def relayed():
        m = scrape(port)
        assert c.proc.poll() is None, c.log_text()[-3000:]
        if m is None:
            return False
        for p in (0, 1):
            series = [v for (n, ls), v in m.items() if n == "cdcd_kafka_consumer_lag"
                      and dict(ls).get("topic") == src and dict(ls).get("partition") == str(p)]
            lag[p].extend(series)
        return sample(m, "cdcd_records_out_total", role="sink", connector="kafka") == total and m

    m = wait_for(relayed, 120, "all records acknowledged by the sink", interval=0.1)
    # After the last message the lag of both partitions settles at 0.
    wait_for(lambda: all(sample(scrape(port), "cdcd_kafka_consumer_lag", topic=src, partition=str(p)) == 0
                         for p in (0, 1)), 30, "lag 0")
    m = scrape(port)
    assert c.stop() == 0

    for p in (0, 1):
        seen = lag[p]
        assert seen, f"no cdcd_kafka_consumer_lag series for partition {p}"
        assert max(seen) > 0 and max(seen) <= N_PER_PARTITION, seen
        assert len(set(seen)) >= 3, f"the lag of partition {p} did not move: {sorted(set(seen))}"
    assert sample(m, "cdcd_records_in_total", **src_labels) == total
    assert sample(m, "cdcd_bytes_in_total", **src_labels) == in_bytes  # values, no keys
    out = kafka_broker.consume_all(f"{db}.t")
    assert len(out) == total
    assert sorted(r.value.decode() for r in out) == sorted(v for msgs in values.values() for v in msgs)
    out_bytes = sum(len(r.key) + len(r.value) for r in out)
    assert sample(m, "cdcd_bytes_out_total", role="sink", connector="kafka") == out_bytes
    assert sample(m, "cdcd_errors_total", role="sink", connector="kafka") == 0
    assert sample(m, "cdcd_errors_total", **src_labels) == 0
