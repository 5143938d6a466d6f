# The kafka source on literal messages: formats, table ids, schema merge, startup modes,
# topic-pattern discovery, metadata, parse errors, consumer group commits.
import json
import re
import time

from conftest import read_jsonl, unique, wait_for

PIPE = """
source:
  type: kafka
  properties.bootstrap.servers: {bootstrap}
{source}
sink:
{sink}
pipeline:
  name: {name}
  parallelism: 1
  schema.change.behavior: evolve
  execution.checkpointing.interval: {interval}
"""


def pipeline(kafka_broker, source, out=None, sink=None, interval="1s"):
    sink = sink or f"  type: file\n  path: {out}"
    return PIPE.format(bootstrap=kafka_broker.bootstrap, source=source, sink=sink, name=unique("p"),
                       interval=interval)


lines = read_jsonl


def after_ids(path):
    return [d["after"]["id"] for d in lines(path) if d["after"]]


DBZ = [
    '{"before":null,"after":{"id":1,"name":"a","price":1.5},"op":"c","source":{"db":"app","table":"orders"}}',
    '{"schema":{"type":"struct","fields":[]},"payload":{"before":{"id":1,"name":"a","price":1.5},'
    '"after":{"id":1,"name":"b","price":12.25,"ts":"2023-01-01 00:00:00.123"},"op":"u","source":{"db":"app","table":"orders"}}}',
    '{"before":{"id":1,"name":"b"},"after":null,"op":"d","source":{"db":"app","table":"orders"}}',
    '{"before":null,"after":{"sku":"x"},"op":"r","source":{"db":"app","table":"items"}}',
]


def test_debezium_json_dynamic_table_id_and_schema_merge(kafka_broker, cdcd, tmp_path):
    topic = unique("dbz")
    kafka_broker.create_topic(topic)
    kafka_broker.produce(topic, DBZ)
    out = tmp_path / "out.jsonl"
    src = (f"  topic: {topic}\n  value.format: debezium-json\n  table-id.dynamic.from: value\n"
           "  table-id.dynamic.fields: source.db,source.table\n  scan.startup.mode: earliest-offset\n"
           "  scan.bounded.mode: latest-offset")
    cdcd(pipeline(kafka_broker, src, out)).run()
    got = lines(out)
    assert got[0] == {"before": None, "after": {"id": 1, "name": "a", "price": 1.5},
                      "op": "c", "source": {"db": "app", "table": "orders"}}
    # price widened DECIMAL(2,1) → DECIMAL(4,2), ts added as a nullable column
    assert open(out).read().splitlines()[1] == (
        '{"before":{"id":1,"name":"a","price":1.50,"ts":null},"after":{"id":1,"name":"b","price":12.25,'
        '"ts":"2023-01-01 00:00:00.123"},"op":"u","source":{"db":"app","table":"orders"}}')
    assert got[2]["op"] == "d" and got[2]["before"] == {"id": 1, "name": "b", "price": None, "ts": None}
    assert got[3] == {"before": None, "after": {"sku": "x"}, "op": "c", "source": {"db": "app", "table": "items"}}


def test_canal_json_rows_and_old(kafka_broker, cdcd, tmp_path):
    topic = unique("canal")
    kafka_broker.create_topic(topic)
    kafka_broker.produce(topic, [
        '{"data":[{"id":1,"v":"a"},{"id":2,"v":"b"}],"old":null,"type":"INSERT","database":"db","table":"t","pkNames":["id"],"isDdl":false}',
        '{"data":[{"id":1,"v":"c"}],"old":[{"v":"a"}],"type":"UPDATE","database":"db","table":"t","pkNames":["id"],"isDdl":false}',
        '{"data":null,"type":"ALTER","database":"db","table":"t","isDdl":true,"sql":"alter table t"}',
        '{"data":[{"id":2,"v":"b"}],"old":null,"type":"DELETE","database":"db","table":"t","pkNames":["id"],"isDdl":false}',
    ])
    out = tmp_path / "out.jsonl"
    src = (f"  topic: {topic}\n  value.format: canal-json\n  table-id.dynamic.from: value\n"
           "  table-id.dynamic.fields: database,table\n  scan.startup.mode: earliest-offset\n  scan.bounded.mode: latest-offset")
    cdcd(pipeline(kafka_broker, src, sink=f"  type: file\n  path: {out}\n  format: canal-json")).run()
    assert open(out).read().splitlines() == [
        '{"old":null,"data":[{"id":1,"v":"a"}],"type":"INSERT","database":"db","table":"t","pkNames":["id"]}',
        '{"old":null,"data":[{"id":2,"v":"b"}],"type":"INSERT","database":"db","table":"t","pkNames":["id"]}',
        '{"old":[{"id":1,"v":"a"}],"data":[{"id":1,"v":"c"}],"type":"UPDATE","database":"db","table":"t","pkNames":["id"]}',
        '{"old":null,"data":[{"id":2,"v":"b"}],"type":"DELETE","database":"db","table":"t","pkNames":["id"]}',
    ]


def test_json_fixed_table_id_key_table_id_and_metadata(kafka_broker, cdcd, tmp_path):
    topic = unique("json")
    kafka_broker.create_topic(topic)
    kafka_broker.produce(topic, [("{\"tbl\":\"people\"}", '{"id":7,"tags":[1,2],"nested":{"a":1}}')],
                         headers={"h": "x"})
    src = (f"  topic: {topic}\n  value.format: json\n  table-id.fixed.name: ods.people\n"
           "  scan.startup.mode: earliest-offset\n  scan.bounded.mode: latest-offset\n"
           "  metadata.list: topic,partition,offset,key,headers,timestamp-type")
    p = cdcd(pipeline(kafka_broker, src, sink="  type: values\n  print.enabled: true")).run()
    assert "CreateTableEvent{tableId=ods.people, schema=columns={`id` BIGINT,`tags` STRING,`nested` STRING}" in p.stdout
    assert '[7, [1,2], {"a":1}]' in p.stdout
    assert f"topic={topic}" in p.stdout and "partition=0" in p.stdout and "offset=0" in p.stdout
    assert 'headers={"h":"x"}' in p.stdout and "timestamp-type=CreateTime" in p.stdout
    src = (f"  topic: {topic}\n  value.format: json\n  table-id.dynamic.from: key\n  table-id.dynamic.fields: tbl\n"
           "  scan.startup.mode: earliest-offset\n  scan.bounded.mode: latest-offset")
    p = cdcd(pipeline(kafka_broker, src, sink="  type: values\n  print.enabled: true")).run()
    assert "CreateTableEvent{tableId=people," in p.stdout


def _ids_topic(kafka_broker, n, start=0, partitions=1):
    topic = unique("ids")
    kafka_broker.create_topic(topic, partitions=partitions)
    kafka_broker.produce(topic, [json.dumps({"id": i}) for i in range(start, start + n)])
    return topic


def _json_src(topic, extra):
    return f"  topic: {topic}\n  value.format: json\n  table-id.fixed.name: db.t\n{extra}"


def test_startup_earliest_specific_group_timestamp(kafka_broker, cdcd, tmp_path):
    topic = _ids_topic(kafka_broker, 5)
    time.sleep(1.1)
    ts = int(time.time() * 1000)
    kafka_broker.produce(topic, [json.dumps({"id": i}) for i in range(5, 8)])
    bounded = "  scan.bounded.mode: latest-offset\n"
    cases = {
        "  scan.startup.mode: earliest-offset\n": list(range(8)),
        "  scan.startup.mode: specific-offsets\n  scan.startup.specific-offsets: partition:0,offset:6\n"
        f"  properties.group.id: {unique('g')}\n": [6, 7],
        f"  scan.startup.mode: timestamp\n  scan.startup.timestamp-millis: {ts}\n": [5, 6, 7],
    }
    group = unique("g")
    kafka_broker.commit_offsets(group, topic, {0: 3})
    cases[f"  scan.startup.mode: group-offsets\n  properties.group.id: {group}\n"] = [3, 4, 5, 6, 7]
    for i, (mode, expected) in enumerate(cases.items()):
        out = tmp_path / f"out{i}.jsonl"
        cdcd(pipeline(kafka_broker, _json_src(topic, mode + bounded), out)).run()
        assert after_ids(out) == expected, mode


def test_group_offsets_fall_back_to_auto_offset_reset(kafka_broker, cdcd, tmp_path):
    topic = _ids_topic(kafka_broker, 3)
    out = tmp_path / "out.jsonl"
    src = _json_src(topic, f"  properties.group.id: {unique('g')}\n  properties.auto.offset.reset: earliest\n"
                           "  scan.bounded.mode: latest-offset\n")
    cdcd(pipeline(kafka_broker, src, out)).run()
    assert after_ids(out) == [0, 1, 2]


def test_latest_offset_reads_only_new_messages(kafka_broker, cdcd, tmp_path):
    topic = _ids_topic(kafka_broker, 3)
    out = tmp_path / "out.jsonl"
    c = cdcd(pipeline(kafka_broker, _json_src(topic, "  scan.startup.mode: latest-offset\n"), out))
    c.start()
    wait_for(lambda: "reading" in c.log_text(), 60, "assignment")
    kafka_broker.produce(topic, [json.dumps({"id": 100}), json.dumps({"id": 101})])
    wait_for(lambda: len(after_ids(out)) >= 2 or None, 60, "new messages")
    assert c.stop() == 0
    assert after_ids(out) == [100, 101]


def test_topic_pattern_picks_up_new_topic(kafka_broker, cdcd, tmp_path):
    prefix = unique("pat")
    kafka_broker.create_topic(prefix + "_a")
    kafka_broker.produce(prefix + "_a", [json.dumps({"id": 1})])
    out = tmp_path / "out.jsonl"
    src = (f"  topic-pattern: {prefix}_.*\n  value.format: json\n  table-id.fixed.name: db.t\n"
           "  scan.startup.mode: earliest-offset\n  scan.partition-discovery.interval: 500ms\n")
    c = cdcd(pipeline(kafka_broker, src, out))
    c.start()
    wait_for(lambda: after_ids(out) == [1], 60, "first topic")
    kafka_broker.create_topic(prefix + "_b", partitions=2)
    kafka_broker.produce(prefix + "_b", [json.dumps({"id": 2}), json.dumps({"id": 3})])
    wait_for(lambda: sorted(after_ids(out)) == [1, 2, 3], 60, "topic created mid-run")
    assert c.stop() == 0


def test_offsets_committed_to_group_only_after_checkpoints(kafka_broker, cdcd, tmp_path):
    topic = _ids_topic(kafka_broker, 4)
    group = unique("g")
    out = tmp_path / "out.jsonl"
    src = _json_src(topic, f"  properties.group.id: {group}\n  scan.startup.mode: earliest-offset\n")
    c = cdcd(pipeline(kafka_broker, src, out, interval="10 min"))
    c.start()
    wait_for(lambda: "reading" in c.log_text(), 60, "assignment")
    time.sleep(4)  # the messages are read, but no checkpoint has completed
    assert kafka_broker.committed_offsets(group, topic).get(0) is None
    assert c.stop() == 0  # SIGTERM: final checkpoint, then commit
    assert after_ids(out) == [0, 1, 2, 3]
    wait_for(lambda: kafka_broker.committed_offsets(group, topic).get(0) == 4, 30, "commit")
    # with checkpoints every second the commit follows while running
    kafka_broker.produce(topic, [json.dumps({"id": 4})])
    c2 = cdcd(pipeline(kafka_broker, src, tmp_path / "out2.jsonl", interval="1s"))
    c2.start()
    wait_for(lambda: kafka_broker.committed_offsets(group, topic).get(0) == 5, 60, "commit after a checkpoint")
    assert c2.stop() == 0


def test_poison_message_fails_or_is_skipped(kafka_broker, cdcd, tmp_path):
    topic = unique("poison")
    kafka_broker.create_topic(topic)
    kafka_broker.produce(topic, ['{"id":1}', '{"id":', '{"id":3}'])
    out = tmp_path / "out.jsonl"
    src = _json_src(topic, "  scan.startup.mode: earliest-offset\n  scan.bounded.mode: latest-offset\n")
    p = cdcd(pipeline(kafka_broker, src, out)).run(check=False)
    assert p.returncode != 0
    assert re.search(rf"topic {topic}, partition 0, offset 1", p.stderr), p.stderr[-2000:]
    out2 = tmp_path / "out2.jsonl"
    p = cdcd(pipeline(kafka_broker, src + "  ignore-parse-errors: true\n", out2)).run()
    assert after_ids(out2) == [1, 3]
    assert "skipped" in p.stderr


def test_option_rules_are_checked_at_validate_time(kafka_broker, cdcd, tmp_path):
    import subprocess
    from conftest import CDCD
    bad = [
        ("  topic: a\n  topic-pattern: b.*\n  value.format: json\n  table-id.fixed.name: t\n", "topic-pattern"),
        ("  topic: a\n  value.format: json\n  table-id.dynamic.from: value\n  table-id.dynamic.fields: a,b,c,d\n", "1 to 3"),
        ("  topic: a\n  value.format: json\n  table-id.fixed.name: t\n  table-id.dynamic.from: value\n", "cannot be combined"),
        ("  topic: a\n  value.format: json\n  table-id.fixed.name: t\n  scan.startup.mode: timestamp\n", "timestamp-millis"),
        ("  topic: a\n  value.format: json\n  table-id.fixed.name: t\n  scan.startup.mode: earliest-offset\n"
         "  properties.sasl.jaas.config: com.sun.security.auth.module.Krb5LoginModule required;\n", "properties.sasl.jaas.config"),
    ]
    for src, needle in bad:
        path = tmp_path / "v.yaml"
        path.write_text(pipeline(kafka_broker, src, tmp_path / "o"))
        p = subprocess.run([CDCD, "validate", str(path)], capture_output=True, text=True)
        assert p.returncode != 0 and needle in (p.stdout + p.stderr), (needle, p.stdout + p.stderr)


def _admin_port_cmd(c, port):
    c.cmd = lambda: [*type(c).cmd(c), "--admin-address", f"127.0.0.1:{port}"]


def test_truncated_debezium_message_fails_cleanly_or_is_skipped(kafka_broker, cdcd, tmp_path):
    # The table id is read from the value, so the truncated message is read twice (parse, then the
    # table id for the error): that second read crashed on main (SIGSEGV).
    from test_kafka_metrics import free_port, sample, scrape
    topic = unique("trunc")
    kafka_broker.create_topic(topic)
    good = '{"before":null,"after":{"id":%d},"op":"c","source":{"db":"app","table":"t"}}'
    kafka_broker.produce(topic, [good % 1, '{"before":null', good % 3])
    src = (f"  topic: {topic}\n  value.format: debezium-json\n  table-id.dynamic.from: value\n"
           "  table-id.dynamic.fields: source.db,source.table\n  scan.startup.mode: earliest-offset\n")
    out = tmp_path / "out.jsonl"
    c = cdcd(pipeline(kafka_broker, src + "  scan.bounded.mode: latest-offset\n", out))
    for attempt in range(2):  # the fail policy: a restart stops again at the same message
        p = c.run(check=False)
        assert p.returncode == 1, (attempt, p.returncode, p.stderr[-2000:])
        assert re.search(rf"topic {topic}, partition 0, offset 1: the message value is not valid JSON: "
                         r"\S", p.stderr), p.stderr[-2000:]
        assert 3 not in after_ids(out)

    port = free_port()
    out2 = tmp_path / "out2.jsonl"
    c2 = cdcd(pipeline(kafka_broker, src + "  ignore-parse-errors: true\n", out2))
    _admin_port_cmd(c2, port)
    c2.start()
    wait_for(lambda: after_ids(out2) == [1, 3], 60, "the messages around the bad one")
    m = wait_for(lambda: scrape(port), 30, "metrics")
    assert sample(m, "cdcd_kafka_unparsable_messages_total", topic=topic, partition="0") == 1
    assert c2.stop() == 0
    assert "skipped unparsable message at topic %s, partition 0, offset 1" % topic in c2.log_text()


def test_offset_out_of_range_fails_unless_a_reset_policy_is_set(kafka_broker, cdcd, tmp_path):
    # The checkpoint holds offset 10; delete-records then removes offsets below 15. librdkafka on
    # its own would jump to the end of the log and carry on, silently losing 10..19.
    from confluent_kafka import TopicPartition
    from test_kafka_metrics import free_port, sample, scrape
    topic = _ids_topic(kafka_broker, 10)
    out = tmp_path / "out.jsonl"
    yaml = pipeline(kafka_broker, _json_src(topic, "  scan.startup.mode: earliest-offset\n"), out)
    c = cdcd(yaml)
    c.start()
    wait_for(lambda: len(after_ids(out)) == 10, 60, "the first 10 messages")
    assert c.stop() == 0  # the final checkpoint holds offset 10
    kafka_broker.produce(topic, [json.dumps({"id": i}) for i in range(10, 20)])
    futures = kafka_broker.admin().delete_records([TopicPartition(topic, 0, 15)])
    for f in futures.values():
        f.result(30)

    for attempt in range(2):  # fails again on a restart: the checkpoint does not move
        p = c.run(check=False, timeout=60)
        assert p.returncode == 1, (attempt, p.returncode, p.stderr[-3000:])
        assert re.search(rf"topic {topic}, partition 0 at its checkpointed offset 10: .*the earliest "
                         r"available offset is 15\b.*properties\.auto\.offset\.reset", p.stderr), p.stderr[-3000:]
    assert after_ids(out) == list(range(10))

    # With a policy: it applies, the gap is logged and counted.
    port = free_port()
    c.yaml.write_text(yaml.replace("  scan.startup.mode", "  properties.auto.offset.reset: earliest\n"
                                                          "  scan.startup.mode"))
    _admin_port_cmd(c, port)
    c.start()
    wait_for(lambda: len(after_ids(out)) == 15, 60, "the records from offset 15 on")
    m = wait_for(lambda: scrape(port), 30, "metrics")
    labels = dict(topic=topic, partition="0")
    assert sample(m, "cdcd_kafka_offset_resets_total", **labels) == 1
    assert sample(m, "cdcd_kafka_offset_reset_skipped_records_total", **labels) == 5
    assert c.stop() == 0
    assert after_ids(out) == list(range(10)) + list(range(15, 20))
    assert re.search(r"checkpointed offset 10 is out of range.*moves it to 15, skipping 5 record",
                     c.log_text()), c.log_text()[-3000:]


def test_librdkafka_logs_go_through_the_cdcd_logger(kafka_broker, cdcd, tmp_path):
    # acks is a producer setting: the consumer's librdkafka warns about it (CONFWARN). That line
    # must follow --log-format json and --log-file, not go to stderr in librdkafka's own format.
    topic = _ids_topic(kafka_broker, 1)
    out, log = tmp_path / "out.jsonl", tmp_path / "cdcd.json.log"
    src = _json_src(topic, "  properties.acks: \"1\"\n  scan.startup.mode: earliest-offset\n"
                           "  scan.bounded.mode: latest-offset\n")
    c = cdcd(pipeline(kafka_broker, src, out))
    c.cmd = lambda: [*type(c).cmd(c), "--log-format", "json", "--log-file", str(log)]
    p = c.run()
    assert "CONFWARN" not in p.stderr, p.stderr[-2000:]
    lines = [json.loads(x) for x in log.read_text().splitlines() if "CONFWARN" in x]
    assert lines and lines[0]["level"] == "warning", log.read_text()[-2000:]
    assert lines[0]["message"].startswith("librdkafka rdkafka#consumer-")


def test_bad_record_policy_dead_letters_unparsable_messages_once(kafka_broker, cdcd, tmp_path):
    # ignore-parse-errors false and bad-record.policy dead-letter: the bad message goes to the
    # dead-letter file with its topic, partition and offset, the good ones to the sink; a restart
    # from the final checkpoint writes neither again.
    topic = unique("dlq")
    kafka_broker.create_topic(topic)
    good = '{"before":null,"after":{"id":%d},"op":"c","source":{"db":"app","table":"t"}}'
    kafka_broker.produce(topic, [good % 1, '{"before":null', good % 3, 'not json', good % 5])
    src = (f"  topic: {topic}\n  value.format: debezium-json\n  table-id.dynamic.from: value\n"
           "  table-id.dynamic.fields: source.db,source.table\n  scan.startup.mode: earliest-offset\n"
           "  scan.bounded.mode: latest-offset\n")
    out, dead = tmp_path / "out.jsonl", tmp_path / "dead.jsonl"
    yaml = pipeline(kafka_broker, src, out).replace(
        "pipeline:\n", f"pipeline:\n  bad-record.policy: dead-letter\n  bad-record.dead-letter.path: {dead}\n")
    c = cdcd(yaml)
    p = c.run(check=False)
    assert p.returncode == 0, p.stderr[-2000:]
    assert after_ids(out) == [1, 3, 5]
    records = [json.loads(x) for x in dead.read_text().splitlines()]
    assert [(r["stage"], r["connector"], r["reason"], r["record"]) for r in records] == [
        ("source", "kafka", "parse-error", '{"before":null'),
        ("source", "kafka", "parse-error", "not json")]
    assert records[0]["position"] == f"topic {topic}, partition 0, offset 1"
    assert "not valid JSON" in records[0]["error"]
    again = c.run(check=False)
    assert again.returncode == 0, again.stderr[-2000:]
    assert len(dead.read_text().splitlines()) == 2 and after_ids(out) == [1, 3, 5]
