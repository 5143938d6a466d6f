# The kafka sink writes exactly what Flink CDC's Kafka sink writes (reference §6.2–6.5), fed by
# Flink's values source (SINGLE_SPLIT_SINGLE_TABLE: table1(col1 STRING PK, col2 STRING), inserts,
# schema changes, update, delete).
import json

import pytest
from confluent_kafka import KafkaException

from conftest import GENERATED_EXACTLY_ONCE, java_partition, unique, wait_for

VALUES = """
source:
  type: values
  event-set.id: SINGLE_SPLIT_SINGLE_TABLE
sink:
  type: kafka
  properties.bootstrap.servers: {bootstrap}
{sink}
pipeline:
  name: {name}
  parallelism: 1
  schema.change.behavior: evolve
"""

# Flink CDC's KafkaDataSinkITCase / DebeziumJsonSerializationSchemaTest expectations for this set.
DEBEZIUM = [
    '{"before":null,"after":{"col1":"1","col2":"1"},"op":"c","source":{"db":"default_schema","table":"table1"}}',
    '{"before":null,"after":{"col1":"2","col2":"2"},"op":"c","source":{"db":"default_schema","table":"table1"}}',
    '{"before":null,"after":{"col1":"3","col2":"3"},"op":"c","source":{"db":"default_schema","table":"table1"}}',
    '{"before":{"col1":"1","newCol3":"1"},"after":null,"op":"d","source":{"db":"default_schema","table":"table1"}}',
    '{"before":{"col1":"2","newCol3":""},"after":{"col1":"2","newCol3":"x"},"op":"u","source":{"db":"default_schema","table":"table1"}}',
]
CANAL = [
    '{"old":null,"data":[{"col1":"1","col2":"1"}],"type":"INSERT","database":"default_schema","table":"table1","pkNames":["col1"]}',
    '{"old":null,"data":[{"col1":"2","col2":"2"}],"type":"INSERT","database":"default_schema","table":"table1","pkNames":["col1"]}',
    '{"old":null,"data":[{"col1":"3","col2":"3"}],"type":"INSERT","database":"default_schema","table":"table1","pkNames":["col1"]}',
    '{"old":null,"data":[{"col1":"1","newCol3":"1"}],"type":"DELETE","database":"default_schema","table":"table1","pkNames":["col1"]}',
    '{"old":[{"col1":"2","newCol3":""}],"data":[{"col1":"2","newCol3":"x"}],"type":"UPDATE","database":"default_schema","table":"table1","pkNames":["col1"]}',
]
TABLE = "default_namespace.default_schema.table1"
KEYS = [f'{{"TableId":"{TABLE}","col1":"{k}"}}' for k in ["1", "2", "3", "1", "2"]]


def run(kafka_broker, cdcd, sink: str):
    name = unique("sink")
    c = cdcd(VALUES.format(bootstrap=kafka_broker.bootstrap, sink=sink, name=name))
    c.run()
    return c


def values(records):
    return [r.value.decode() for r in records]


def test_debezium_json_bytes_keys_and_partition_zero(kafka_broker, cdcd):
    topic = unique("dbz")
    kafka_broker.create_topic(topic, partitions=3)
    run(kafka_broker, cdcd, f"  topic: {topic}")
    recs = kafka_broker.consume_all(topic)
    assert values(recs) == DEBEZIUM
    assert [r.key.decode() for r in recs] == KEYS
    assert {r.partition for r in recs} == {0}  # all-to-zero (default)
    assert all(not r.headers for r in recs)


def test_debezium_json_with_schema(kafka_broker, cdcd):
    topic = unique("dbzs")
    kafka_broker.create_topic(topic)
    run(kafka_broker, cdcd, f"  topic: {topic}\n  debezium-json.include-schema.enabled: true")
    first = kafka_broker.consume_all(topic)[0].value.decode()
    assert first == (
        '{"schema":{"type":"struct","fields":['
        '{"type":"struct","fields":[{"type":"string","optional":true,"field":"col1"},'
        '{"type":"string","optional":true,"field":"col2"}],"optional":true,"field":"before"},'
        '{"type":"struct","fields":[{"type":"string","optional":true,"field":"col1"},'
        '{"type":"string","optional":true,"field":"col2"}],"optional":true,"field":"after"}],'
        '"optional":false},"payload":' + DEBEZIUM[0] + "}"
    )


def test_canal_json_csv_key_and_headers(kafka_broker, cdcd):
    topic = unique("canal")
    kafka_broker.create_topic(topic)
    run(kafka_broker, cdcd, f"  topic: {topic}\n  value.format: canal-json\n  key.format: csv\n"
                            "  sink.add-tableId-to-header-enabled: true\n  sink.custom-header: \"k1:v1;k2:v2\"")
    recs = kafka_broker.consume_all(topic)
    assert values(recs) == CANAL
    assert [r.key.decode() for r in recs] == [f'"{TABLE}",{k}' for k in ["1", "2", "3", "1", "2"]]
    assert recs[0].headers == [("k1", b"v1"), ("k2", b"v2"), ("namespace", b"default_namespace"),
                               ("schemaName", b"default_schema"), ("tableName", b"table1")]


def test_hash_by_key_places_records_like_java(kafka_broker, cdcd):
    topic = unique("hash")
    kafka_broker.create_topic(topic, partitions=7)
    run(kafka_broker, cdcd, f"  topic: {topic}\n  partition.strategy: hash-by-key")
    recs = kafka_broker.consume_all(topic)
    assert len(recs) == 5
    for r in recs:
        assert r.partition == java_partition(r.key, 7), r.key
    assert len({r.partition for r in recs}) > 1


def test_topic_from_table_id_and_mapping(kafka_broker, cdcd):
    # No `topic`: the table id names the topic; a mapping entry overrides it.
    kafka_broker.create_topic(TABLE) if TABLE not in kafka_broker.list_topics() else None
    before = len(kafka_broker.consume_all(TABLE))
    run(kafka_broker, cdcd, "")
    assert values(kafka_broker.consume_all(TABLE))[before:] == DEBEZIUM
    mapped = unique("mapped")
    kafka_broker.create_topic(mapped)
    run(kafka_broker, cdcd, f"  sink.tableId-to-topic.mapping: other.t:x;default_namespace.default_schema.\\.*:{mapped}")
    assert values(kafka_broker.consume_all(mapped)) == DEBEZIUM


def test_missing_topic_fails_and_is_not_created(kafka_broker, cdcd):
    topic = unique("absent")
    # librdkafka takes a topic the broker does not know for absent only after
    # topic.metadata.propagation.max.ms (30 s by default): 1 s here.
    c = cdcd(VALUES.format(bootstrap=kafka_broker.bootstrap, name=unique("absent"),
                           sink=f"  topic: {topic}\n  properties.message.timeout.ms: 5000\n"
                                "  properties.topic.metadata.propagation.max.ms: 1000"))
    p = c.run(check=False, timeout=120)
    assert p.returncode != 0
    assert topic in p.stderr
    assert topic not in kafka_broker.list_topics()


def test_exactly_once_commits_transactions(kafka_broker, cdcd):
    topic = unique("eos")
    kafka_broker.create_topic(topic)
    run(kafka_broker, cdcd, f"  topic: {topic}\n  sink.delivery-guarantee: exactly-once")
    assert values(kafka_broker.consume_all(topic, isolation="read_committed")) == DEBEZIUM


def test_bad_options_are_rejected_with_the_key(kafka_broker, cdcd):
    c = cdcd(VALUES.format(bootstrap=kafka_broker.bootstrap, name="bad",
                           sink="  sink.custom-header: \"a:1,b:2\"\n  properties.ssl.truststore.location: /x.jks"))
    p = c.run(check=False)
    assert p.returncode != 0
    assert "sink.custom-header" in p.stderr and "properties.ssl.truststore.location" in p.stderr


def test_exactly_once_refuses_the_default_pipeline_name_without_a_prefix(kafka_broker, cdcd):
    # Transactional ids derive from the name: two such pipelines would fence each other forever.
    topic = unique("eos_default")
    kafka_broker.create_topic(topic)
    default_name = VALUES.replace("  name: {name}\n", "")
    c = cdcd(default_name.format(bootstrap=kafka_broker.bootstrap,
                                 sink=f"  topic: {topic}\n  sink.delivery-guarantee: exactly-once"))
    p = c.run(check=False)
    assert p.returncode != 0
    assert "Set sink.transactional-id-prefix (or pipeline.name)" in p.stderr, p.stderr[-2000:]
    prefix = unique("txn")
    cdcd(default_name.format(bootstrap=kafka_broker.bootstrap,
                             sink=f"  topic: {topic}\n  sink.delivery-guarantee: exactly-once\n"
                                  f"  sink.transactional-id-prefix: {prefix}")).run()
    assert values(kafka_broker.consume_all(topic, isolation="read_committed")) == DEBEZIUM
    assert f"{prefix}-eos" in {g.group_id for g in kafka_broker.admin().list_consumer_groups().result(30).valid}


def test_validate_reports_exactly_once_without_transactional_names_at_its_line(tmp_path):
    # `cdcd validate` sees the pipeline block too, so it reports what the start would refuse,
    # at the line of sink.delivery-guarantee; a prefix or a pipeline name of its own passes.
    import subprocess
    from conftest import CDCD
    default_name = VALUES.replace("  name: {name}\n", "")
    eos = "  topic: t\n  sink.delivery-guarantee: exactly-once"
    path = tmp_path / "eos.yaml"
    path.write_text(default_name.format(bootstrap="127.0.0.1:9", sink=eos))
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "delivery-guarantee" in text)
    p = subprocess.run([CDCD, "validate", str(path)], capture_output=True, text=True)
    out = p.stdout + p.stderr
    assert p.returncode != 0, out
    assert f"{path}:{line}:" in out and "Set sink.transactional-id-prefix (or pipeline.name)" in out, out
    for ok in (default_name.format(bootstrap="127.0.0.1:9", sink=eos + "\n  sink.transactional-id-prefix: p1"),
               VALUES.format(bootstrap="127.0.0.1:9", sink=eos, name="orders-relay")):
        path.write_text(ok)
        p = subprocess.run([CDCD, "validate", str(path)], capture_output=True, text=True)
        assert p.returncode == 0, p.stdout + p.stderr



@pytest.mark.parametrize("interval,timeout_property,refused", [
    ("15min", None, True),            # cdcd's transaction.timeout.ms is 15 min
    ("20s", "20000", True),
    ("10min", None, False),
    ("20s", "60000", False),
])
def test_exactly_once_refuses_a_checkpoint_interval_no_shorter_than_the_transaction_timeout(
        tmp_path, interval, timeout_property, refused):
    # The broker aborts a transaction open longer than transaction.timeout.ms: with checkpoints
    # that far apart, no transaction would ever commit, and each restart would fail the same way.
    import subprocess
    from conftest import CDCD
    sink = "  topic: t\n  sink.delivery-guarantee: exactly-once\n  sink.transactional-id-prefix: p1"
    if timeout_property:
        sink += f"\n  properties.transaction.timeout.ms: {timeout_property}"
    text = VALUES.format(bootstrap="127.0.0.1:9", sink=sink, name="eos-interval")
    text += f"  execution.checkpointing.interval: {interval}\n"
    path = tmp_path / "eos.yaml"
    path.write_text(text)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "delivery-guarantee" in t)
    p = subprocess.run([CDCD, "validate", str(path)], capture_output=True, text=True)
    out = p.stdout + p.stderr
    if not refused:
        assert p.returncode == 0, out
        return
    assert p.returncode != 0, out
    assert f"{path}:{line}:" in out, out
    assert "execution.checkpointing.interval" in out and "transaction.timeout.ms" in out, out
    # `cdcd run` refuses it the same way, before it contacts the broker.
    p = subprocess.run([CDCD, "run", str(path), "--state-dir", str(tmp_path / "state")],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode != 0 and "transaction.timeout.ms" in p.stderr, p.stderr[-2000:]

GENERATED_TO_KAFKA = """
source:
  type: values
  event-set.id: GENERATED
  generator.rows: 20
  generator.payload-bytes: 8
transform:
  - source-table: default_namespace.default_schema.generated
    projection: id, version, IF(id = CAST(5 AS BIGINT), RPAD(payload, 20000, 'y'), payload) AS payload
sink:
  type: kafka
  properties.bootstrap.servers: {bootstrap}
  topic: {topic}
{sink}
pipeline:
  name: {name}
  parallelism: 1
{pipeline}"""


def test_a_full_producer_queue_stops_a_batch_part_way_and_every_record_goes_once_in_order(kafka_broker, cdcd):
    # A writer enqueues a batch's records with one call; a queue of 100 records fills part way
    # through each batch, and the writer resumes at the first record left out.
    topic = unique("full")
    kafka_broker.create_topic(topic)
    rows = 5000
    c = cdcd(GENERATED_TO_KAFKA.replace("generator.rows: 20", f"generator.rows: {rows}").format(
        bootstrap=kafka_broker.bootstrap, topic=topic, name=unique("full"), pipeline="",
        sink="  properties.queue.buffering.max.messages: 100"))
    p = c.run(check=False)
    assert p.returncode == 0, p.stderr[-3000:]
    assert delivered_ids(kafka_broker, topic) == list(range(1, rows + 1))


def run_with_policy(kafka_broker, cdcd, tmp_path, topic, sink, policy, timeout=120):
    """GENERATED_TO_KAFKA into `topic` under bad-record.policy `policy` (dead letters to
    tmp_path/dead.jsonl): (topic, dead-letter path, the finished process)."""
    dead = tmp_path / "dead.jsonl"
    pipeline = f"  bad-record.policy: {policy}\n"
    if policy == "dead-letter":
        pipeline += f"  bad-record.dead-letter.path: {dead}\n"
    c = cdcd(GENERATED_TO_KAFKA.format(bootstrap=kafka_broker.bootstrap, topic=topic, sink=sink,
                                       name=unique(topic), pipeline=pipeline))
    return topic, dead, c.run(check=False, timeout=timeout)


def oversized_record_run(kafka_broker, cdcd, tmp_path, policy, delivery, client_limit=True):
    """Row 5 (about 20 kB) among 19 small rows, into a topic with max.message.bytes 10000."""
    topic = unique("big")
    kafka_broker.create_topic(topic, config={"max.message.bytes": 10000})
    sink = f"  sink.delivery-guarantee: {delivery}"
    if client_limit:
        sink += "\n  properties.max.request.size: 10000"
    return run_with_policy(kafka_broker, cdcd, tmp_path, topic, sink, policy)


def delivered_ids(kafka_broker, topic):
    return [json.loads(v)["after"]["id"] for v in values(kafka_broker.consume_all(topic, isolation="read_committed"))]


@pytest.mark.parametrize("delivery", ["at-least-once", "exactly-once"])
def test_a_record_larger_than_max_request_size_stops_the_pipeline_under_fail(kafka_broker, cdcd, tmp_path, delivery):
    topic, _, p = oversized_record_run(kafka_broker, cdcd, tmp_path, "fail", delivery)
    assert p.returncode != 0
    assert f"topic {topic}, key " in p.stderr and '"id":5' in p.stderr, p.stderr[-2000:]
    assert "sink table default_namespace.default_schema.generated" in p.stderr
    assert "bytes (key and value)" in p.stderr


@pytest.mark.parametrize("delivery", ["at-least-once", "exactly-once"])
@pytest.mark.parametrize("policy", ["skip", "dead-letter"])
def test_a_record_larger_than_max_request_size_goes_to_the_policy_and_the_rest_is_written(
        kafka_broker, cdcd, tmp_path, policy, delivery):
    topic, dead, p = oversized_record_run(kafka_broker, cdcd, tmp_path, policy, delivery)
    assert p.returncode == 0, p.stderr[-3000:]
    assert delivered_ids(kafka_broker, topic) == [i for i in range(1, 21) if i != 5]
    if policy == "dead-letter":
        records = [json.loads(x) for x in dead.read_text().splitlines()]
        assert len(records) == 1 and records[0]["stage"] == "sink" and records[0]["reason"] == "rejected"
        assert records[0]["position"].startswith(f"topic {topic}, key ") and '"id":5' in records[0]["position"]
        assert json.loads(records[0]["record"])["after"]["id"] == 5
        assert "Broker: Message size too large" in records[0]["error"] or "too large" in records[0]["error"]


def queue_bound_run(kafka_broker, cdcd, tmp_path, policy, delivery, headers=False):
    """Row 5 (about 20 kB) among 19 small rows, through a producer whose queue holds 8 KiB:
    librdkafka would answer 'queue full' for that record however long the writer waited.
    With headers, records are produced one by one instead of in batches."""
    topic = unique("queue")
    kafka_broker.create_topic(topic)
    sink = (f"  sink.delivery-guarantee: {delivery}\n  properties.max.request.size: 100000\n"
            "  properties.buffer.memory: 8192")
    if headers:
        sink += "\n  sink.add-tableId-to-header-enabled: true"
    return run_with_policy(kafka_broker, cdcd, tmp_path, topic, sink, policy, timeout=60)


@pytest.mark.parametrize("delivery,headers", [("at-least-once", False), ("exactly-once", False),
                                              ("at-least-once", True)])
def test_a_record_larger_than_the_producer_queue_goes_to_the_policy_instead_of_waiting_forever(
        kafka_broker, cdcd, tmp_path, delivery, headers):
    topic, dead, p = queue_bound_run(kafka_broker, cdcd, tmp_path, "dead-letter", delivery, headers)
    assert p.returncode == 0, p.stderr[-3000:]
    assert delivered_ids(kafka_broker, topic) == [i for i in range(1, 21) if i != 5]
    records = [json.loads(x) for x in dead.read_text().splitlines()]
    assert len(records) == 1 and records[0]["stage"] == "sink" and records[0]["reason"] == "rejected"
    assert json.loads(records[0]["record"])["after"]["id"] == 5
    assert "larger than the producer's queue" in records[0]["error"], records[0]["error"]
    assert "buffer.memory" in records[0]["error"]


def test_a_record_larger_than_the_producer_queue_stops_the_pipeline_under_fail(kafka_broker, cdcd, tmp_path):
    topic, _, p = queue_bound_run(kafka_broker, cdcd, tmp_path, "fail", "at-least-once")
    assert p.returncode != 0
    assert f"topic {topic}, key " in p.stderr and '"id":5' in p.stderr, p.stderr[-2000:]
    assert "larger than the producer's queue" in p.stderr


def test_a_record_max_request_size_allows_is_written_whatever_the_default_queue_holds(kafka_broker, cdcd):
    # The producer's queue holds 12 MiB by default; max.request.size lets a 13 MB record through,
    # so the queue grows to hold it instead of answering "queue full" for ever.
    topic = unique("large")
    kafka_broker.create_topic(topic, config={"max.message.bytes": 20000000})
    c = cdcd(GENERATED_TO_KAFKA.replace("RPAD(payload, 20000, 'y')", "RPAD(payload, 13000000, 'y')").format(
        bootstrap=kafka_broker.bootstrap, topic=topic, name=unique("large"), pipeline="",
        sink="  properties.max.request.size: 20000000"))
    p = c.run(check=False, timeout=90)
    assert p.returncode == 0, p.stderr[-3000:]
    records = [json.loads(v) for v in values(kafka_broker.consume_all(topic))]
    assert [r["after"]["id"] for r in records] == list(range(1, 21))
    assert len(records[4]["after"]["payload"]) == 13000000


def test_a_broker_rejection_in_a_delivery_report_fails_even_under_skip_naming_key_and_size(kafka_broker, cdcd, tmp_path):
    # Without a client-side limit the topic's max.message.bytes refuses the record's batch in the
    # delivery report, which cannot tell it from records batched with it: never skipped.
    topic, _, p = oversized_record_run(kafka_broker, cdcd, tmp_path, "skip", "at-least-once", client_limit=False)
    assert p.returncode != 0
    assert f"delivery failed: {topic} [0]" in p.stderr and "record key " in p.stderr and " bytes)" in p.stderr, \
        p.stderr[-2000:]


def test_a_restart_reads_the_commit_markers_once_for_the_writers_sharing_them(kafka_broker, cdcd):
    # The writers of an exactly-once sink share its transactions. A restart from a checkpoint
    # that lists a pending transaction (a final checkpoint does: its commit follows it) asks
    # whether it committed once for all of them: it was one marker consumer, and one log line,
    # per writer.
    topic = unique("eos_markers")
    kafka_broker.create_topic(topic, partitions=2)
    c = cdcd(GENERATED_EXACTLY_ONCE.format(rows=100_000_000, rate=0, bootstrap=kafka_broker.bootstrap, topic=topic,
                                         name=unique("markers"), extra="\n  parallelism: 2"))

    def committed():
        try:
            return sum(kafka_broker.end_offsets(topic, isolation="read_committed").values())
        except KafkaException:  # the new topic's leader not known yet
            return 0

    c.start()
    wait_for(lambda: committed() > 0, 60, "a first committed transaction", interval=0.2)
    assert c.stop() == 0, c.log_text()[-3000:]
    c.start()
    wait_for(lambda: c.log_text().count(" running: ") >= 2 or c.proc.poll() is not None, 60, "the restart")
    assert c.stop() == 0, c.log_text()[-3000:]
    log = c.log_text()
    answers = log.count("pending at checkpoint") + log.count("was not committed before cdcd stopped")
    assert answers == 1, log[-3000:]


def last_producer_statistics(log):
    """The last statistics JSON a producer logged (properties.statistics.interval.ms)."""
    lines = [line for line in log.splitlines() if "STATS: " in line and "#producer-" in line]
    assert lines, log[-3000:]
    return json.loads(lines[-1].split("STATS: ", 1)[1])


def test_an_idempotent_producer_waits_for_its_produce_responses_without_spinning(kafka_broker, cdcd):
    # The sink's producer is idempotent: librdkafka sends a partition's next produce request
    # only once the last one is answered. Its broker thread used to poll() with a zero timeout
    # all that while (scripts/librdkafka_patches/): 148,000-174,000 wakeups for 240 requests
    # of 1,000,000 records here, against about 490 with the patch. The statistics the
    # producer logs (properties.statistics.interval.ms) count both.
    topic = unique("nospin")
    kafka_broker.create_topic(topic)
    rows = 300_000
    c = cdcd(GENERATED_TO_KAFKA.replace("generator.rows: 20", f"generator.rows: {rows}")
             .replace("generator.payload-bytes: 8", "generator.payload-bytes: 64").format(
                 bootstrap=kafka_broker.bootstrap, topic=topic, name=unique("nospin"), pipeline="",
                 sink="  properties.statistics.interval.ms: 20"))
    p = c.run(check=False)
    assert p.returncode == 0, p.stderr[-3000:]
    stats = last_producer_statistics(p.stderr)
    broker = next(b for b in stats["brokers"].values() if b["nodeid"] >= 0 and b["tx"] > 0)
    assert stats["txmsgs"] > 0 and broker["tx"] > 0, stats
    # Each request needs a few wakeups (the batch, the response, a timer); a spin makes
    # hundreds per request.
    assert broker["wakeups"] <= 10 * broker["tx"] + 200, (broker["wakeups"], broker["tx"], stats["txmsgs"])
