# Kafka source options through the binary: metadata.list as transform columns, the rate limit,
# the canal-json format options and Flink's spelling of the partition discovery interval.
import json
from datetime import datetime
import subprocess
import time

from conftest import CDCD, read_jsonl, unique, wait_for

PIPE = """
source:
  type: kafka
  properties.bootstrap.servers: {bootstrap}
{source}
sink:
{sink}
{transform}
pipeline:
  name: {name}
  parallelism: 1
  schema.change.behavior: evolve
  execution.checkpointing.interval: 1s
"""

BOUNDED = "  scan.startup.mode: earliest-offset\n  scan.bounded.mode: latest-offset\n"


def pipeline(kafka_broker, source, out, transform=""):
    return PIPE.format(bootstrap=kafka_broker.bootstrap, source=source,
                       sink=f"  type: file\n  path: {out}", transform=transform, name=unique("p"))


def rows(path):
    return [line["after"] for line in read_jsonl(path)]


def validate(tmp_path, text):
    path = tmp_path / "validate.yaml"
    path.write_text(text)
    return subprocess.run([CDCD, "validate", str(path)], capture_output=True, text=True, timeout=60)


def test_metadata_list_columns_in_a_transform_projection(kafka_broker, cdcd, tmp_path):
    topic = unique("meta")
    kafka_broker.create_topic(topic, partitions=2)
    produced = kafka_broker.produce(topic, [("k1", '{"id":1}')], headers={"h": "x"})
    produced += kafka_broker.produce(topic, ['{"id":2}'])  # no key: NULL
    out = tmp_path / "out.jsonl"
    src = (f"  topic: {topic}\n  value.format: json\n  table-id.fixed.name: db.t\n{BOUNDED}"
           "  metadata.list: topic,partition,offset,timestamp,timestamp-type,key,headers\n")
    transform = ("transform:\n  - source-table: db.t\n"
                 "    projection: \"*, topic, partition, offset, timestamp, `timestamp-type` AS tt, "
                 "key, headers, CAST(offset + 1 AS BIGINT) AS next_offset\"\n")
    started_ms = int(time.time() * 1000) - 60_000
    cdcd(pipeline(kafka_broker, src, out, transform)).run()
    got = sorted(rows(out), key=lambda r: r["id"])
    assert [(r["id"], r["topic"], r["partition"], r["offset"]) for r in got] == [
        (1, topic, produced[0][0], produced[0][1]), (2, topic, produced[1][0], produced[1][1])]
    assert all(r["next_offset"] == r["offset"] + 1 for r in got)  # typed BIGINT, not a string
    assert got[0]["tt"] == "CreateTime" and got[0]["key"] == "k1" and got[1]["key"] is None
    assert json.loads(got[0]["headers"]) == {"h": "x"} and json.loads(got[1]["headers"]) == {}
    # TIMESTAMP_LTZ(3): rendered as a date-time of the produce time
    assert got[0]["timestamp"][:4] == time.strftime("%Y", time.gmtime(started_ms / 1000))


def test_metadata_column_not_in_metadata_list_is_not_a_column(kafka_broker, cdcd, tmp_path):
    topic = _ids_topic(kafka_broker, 1)
    src = (f"  topic: {topic}\n  value.format: json\n  table-id.fixed.name: db.t\n{BOUNDED}"
           "  metadata.list: topic\n")
    transform = "transform:\n  - source-table: db.t\n    projection: \"*, offset\"\n"
    p = cdcd(pipeline(kafka_broker, src, tmp_path / "o", transform)).run(check=False)
    assert p.returncode != 0 and "offset" in p.stderr, p.stderr[-2000:]


def _ids_topic(kafka_broker, n):
    topic = unique("ids")
    kafka_broker.create_topic(topic)
    kafka_broker.produce(topic, [json.dumps({"id": i}) for i in range(n)])
    return topic


def _instant(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def test_rate_limit_bounds_records_per_second(kafka_broker, cdcd, tmp_path):
    topic = _ids_topic(kafka_broker, 60)
    out = tmp_path / "out.jsonl"
    src = (f"  topic: {topic}\n  value.format: json\n  table-id.fixed.name: db.t\n{BOUNDED}"
           "  scan.rate-limit.records-per-second: 20\n")
    # NOW() is one instant per event, taken as the transform sees it
    transform = "transform:\n  - source-table: db.t\n    projection: \"*, NOW() AS seen\"\n"
    cdcd(pipeline(kafka_broker, src, out, transform)).run()
    got = rows(out)
    assert sorted(r["id"] for r in got) == list(range(60))
    seen = [_instant(r["seen"]) for r in got]
    # 20 go at once (the bucket holds a second's worth), the other 40 at 20/s: 2 s from the first
    # to the last. Unlimited, the 60 messages pass within milliseconds.
    spread = max(seen) - min(seen)
    assert 1.5 <= spread < 20, spread
    # and no second holds more than a second's worth plus the bucket
    assert max(sum(1 for t in seen if s <= t < s + 1) for s in seen) <= 40


def test_rate_limit_must_be_positive(kafka_broker, tmp_path):
    for bad in ("0", "-5", "abc"):
        src = ("  topic: t\n  value.format: json\n  table-id.fixed.name: db.t\n"
               f"  scan.startup.mode: earliest-offset\n  scan.rate-limit.records-per-second: {bad}\n")
        p = validate(tmp_path, pipeline(kafka_broker, src, tmp_path / "o"))
        assert p.returncode != 0, bad
        assert "scan.rate-limit.records-per-second" in p.stdout + p.stderr, bad


CANAL = [
    '{"data":[{"id":1}],"type":"INSERT","database":"app","table":"orders","isDdl":false}',
    '{"data":[{"id":2}],"type":"INSERT","database":"app","table":"order_items","isDdl":false}',
    '{"data":[{"id":3}],"type":"INSERT","database":"crm","table":"orders","isDdl":false}',
    '{"data":[{"id":4}],"type":"INSERT","database":"app_v2","table":"orders","isDdl":false}',
    'not json',
    '{"data":[{"id":5}],"type":"INSERT","database":"app","table":"orders","isDdl":false}',
]


def test_canal_json_database_and_table_include_and_ignore_parse_errors(kafka_broker, cdcd, tmp_path):
    topic = unique("canal")
    kafka_broker.create_topic(topic)
    kafka_broker.produce(topic, CANAL)
    out = tmp_path / "out.jsonl"
    src = (f"  topic: {topic}\n  value.format: canal-json\n  table-id.dynamic.from: value\n"
           f"  table-id.dynamic.fields: database,table\n{BOUNDED}"
           "  canal-json.database.include: app\n  canal-json.table.include: order.*\n"
           "  canal-json.ignore-parse-errors: true\n")
    cdcd(pipeline(kafka_broker, src, out)).run()
    # `app` matches whole: app_v2 and crm are skipped; both tables match order.*
    assert sorted(r["id"] for r in rows(out)) == [1, 2, 5]
    # without canal-json.ignore-parse-errors the message that is not JSON stops the pipeline
    src = src.replace("  canal-json.ignore-parse-errors: true\n", "")
    p = cdcd(pipeline(kafka_broker, src, tmp_path / "out2.jsonl")).run(check=False)
    assert p.returncode != 0 and "cannot parse the message" in p.stderr


def test_canal_json_options_refused_for_other_formats_and_bad_regex(kafka_broker, tmp_path):
    base = "  topic: t\n  table-id.fixed.name: db.t\n  scan.startup.mode: earliest-offset\n"
    cases = [
        ("  value.format: json\n  canal-json.database.include: app\n", "canal-json.database.include"),
        ("  value.format: json\n  canal-json.ignore-parse-errors: true\n", "canal-json.ignore-parse-errors"),
        ("  value.format: canal-json\n  canal-json.table.include: \"(unclosed\"\n", "canal-json.table.include"),
        ("  value.format: canal-json\n  canal-json.map-null-key.mode: FAIL\n", "canal-json.map-null-key.mode"),
    ]
    for extra, key in cases:
        p = validate(tmp_path, pipeline(kafka_broker, base + extra, tmp_path / "o"))
        assert p.returncode != 0 and key in p.stdout + p.stderr, (extra, p.stdout + p.stderr)


def test_flink_topic_partition_discovery_interval_is_honoured(kafka_broker, cdcd, tmp_path):
    prefix = unique("disc")
    kafka_broker.create_topic(prefix + "_a")
    kafka_broker.produce(prefix + "_a", [json.dumps({"id": 1})])
    out = tmp_path / "out.jsonl"
    src = (f"  topic-pattern: {prefix}_.*\n  value.format: json\n  table-id.fixed.name: db.t\n"
           "  scan.startup.mode: earliest-offset\n  scan.topic-partition-discovery.interval: 1s\n")
    c = cdcd(pipeline(kafka_broker, src, out))
    c.start()
    wait_for(lambda: [r["id"] for r in rows(out)] == [1], 60, "first topic")
    kafka_broker.create_topic(prefix + "_b", partitions=2)
    kafka_broker.produce(prefix + "_b", [json.dumps({"id": 2}), json.dumps({"id": 3})])
    # the default interval (scan.partition-discovery.interval) is 5 minutes
    wait_for(lambda: sorted(r["id"] for r in rows(out)) == [1, 2, 3], 20, "topic created mid-run")
    assert c.stop() == 0


def test_both_discovery_interval_spellings_are_refused(kafka_broker, tmp_path):
    src = ("  topic: t\n  value.format: json\n  table-id.fixed.name: db.t\n  scan.startup.mode: earliest-offset\n"
           "  scan.topic-partition-discovery.interval: 1s\n  scan.partition-discovery.interval: 2s\n")
    p = validate(tmp_path, pipeline(kafka_broker, src, tmp_path / "o"))
    assert p.returncode != 0 and "scan.topic-partition-discovery.interval" in p.stdout + p.stderr


def test_consumer_properties_cdcd_reads_are_validated(kafka_broker, tmp_path):
    base = "  topic: t\n  value.format: json\n  table-id.fixed.name: db.t\n  scan.startup.mode: earliest-offset\n"
    for extra, says in [("  properties.max.poll.records: 2000000000\n", "must be between 1 and 1048576"),
                        ("  properties.partition.discovery.interval.ms: 5min\n", "is not a whole number")]:
        p = validate(tmp_path, pipeline(kafka_broker, base + extra, tmp_path / "o"))
        assert p.returncode != 0 and says in p.stdout + p.stderr, p.stdout + p.stderr


def test_sink_options_of_a_format_not_in_use_are_refused(tmp_path):
    text = ("source:\n  type: values\nsink:\n  type: kafka\n  properties.bootstrap.servers: 127.0.0.1:9\n"
            "  value.format: debezium-json\n  canal-json.encode.ignore-null-fields: true\n")
    p = validate(tmp_path, text)
    assert p.returncode != 0
    assert ("`canal-json.encode.ignore-null-fields` applies only to value.format canal-json, "
            "and value.format is debezium-json") in p.stdout + p.stderr
    p = validate(tmp_path, text.replace("debezium-json", "canal-json"))
    assert p.returncode == 0, p.stdout + p.stderr
