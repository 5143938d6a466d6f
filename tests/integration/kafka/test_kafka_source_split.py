# The kafka source split among the writers' threads (pipeline.parallelism 2): each reader has a
# consumer of its own for its share of the partitions, the schemas they infer together evolve
# once, every row reaches the writers after the schema it was built on (and none after a newer
# one), each key's changes stay in order, and a kill -9 loses and repeats nothing. With a
# transform, each reader transforms its own rows by those schemas, and dead-letters the rows its
# operator fails on once across a kill -9.
import json

from conftest import read_jsonl, unique, wait_for

PIPE = """
source:
  type: kafka
  properties.bootstrap.servers: {bootstrap}
  topic: {topic}
  value.format: debezium-json
  table-id.dynamic.from: value
  table-id.dynamic.fields: source.db,source.table
  scan.startup.mode: earliest-offset{bounded}
sink:
  type: file
  path: {out}
pipeline:
  name: {name}
  parallelism: 2
  schema.change.behavior: evolve
  execution.checkpointing.interval: 200ms
"""

PARTITIONS = 4


def pipeline(kafka_broker, topic, out, bounded=True, name=None):
    return PIPE.format(bootstrap=kafka_broker.bootstrap, topic=topic, out=out, name=name or unique("split"),
                       bounded="\n  scan.bounded.mode: latest-offset" if bounded else "")


def change(table, op, before, after):
    return json.dumps({"before": before, "after": after, "op": op,
                       "source": {"db": "app", "table": table}})


FIELDS = 8


def evolving_orders(first, count):
    """Inserts, then updates that add a field, of keys first..first+count-1, then inserts of as
    many keys again that add fields f0..f7 one after another, each an integer at first and then
    a decimal (a wider type); each key's messages in the partition of its key. Every reader meets
    every change, many rows apart."""
    messages = []

    def put(i, text):
        messages.append({"value": text, "key": str(i), "partition": i % PARTITIONS})

    for i in range(first, first + count):
        put(i, change("orders", "c", None, {"id": i, "name": f"n{i}"}))
    for i in range(first, first + count):
        put(i, change("orders", "u", {"id": i, "name": f"n{i}"}, {"id": i, "name": f"m{i}", "qty": i}))
    step = count // FIELDS
    for i in range(first + count, first + count + step * FIELDS):
        k = (i - first - count) // step
        after = {"id": i, "name": f"n{i}", "qty": 1}
        for f in range(k + 1):
            after[f"f{f}"] = i if f == k and (i - first - count) % step < step // 2 else i + 0.25
        put(i, change("orders", "c", None, after))
    for i in range(first, first + count // 4):
        put(i, change("items", "c", None, {"sku": f"s{i}", "n": i}))
    return messages


def outputs(out):
    return [read_jsonl(f"{out}.{w}") for w in range(2)]


def check_rows(lines, messages):
    """Every message once, its fields as sent (a column added after it is null or absent), each
    key's changes in the order sent."""
    sent = {}
    for m in messages:
        d = json.loads(m["value"])
        image = d["after"] or d["before"]
        key = (d["source"]["table"], image.get("id", image.get("sku")))
        sent.setdefault(key, []).append(d)
    got = {}
    for d in lines:
        image = d["after"] or d["before"]
        key = (d["source"]["table"], image.get("id", image.get("sku")))
        got.setdefault(key, []).append(d)
    assert sorted(got) == sorted(sent)
    for key, changes in sent.items():
        written = got[key]
        assert [d["op"] for d in written] == [d["op"] for d in changes], key
        for want, have in zip(changes, written):
            for side in ("before", "after"):
                if want[side] is None:
                    assert have[side] is None, (key, have)
                    continue
                for field, value in have[side].items():
                    if field in want[side]:
                        if field.startswith("f"):  # a decimal column written as text or number
                            assert float(value) == float(want[side][field]), (key, side, field, have)
                        else:
                            assert value == want[side][field], (key, side, field, have)
                    else:
                        assert value is None, (key, side, field, have)
                for field in want[side]:
                    assert field in have[side], (key, side, field, have)


def test_partitions_are_read_on_the_writers_threads_with_one_evolving_schema(kafka_broker, cdcd, tmp_path):
    topic = unique("split")
    kafka_broker.create_topic(topic, partitions=PARTITIONS)
    messages = evolving_orders(0, 2000)
    kafka_broker.produce(topic, messages)
    out = tmp_path / "out.jsonl"
    run = cdcd(pipeline(kafka_broker, topic, out))
    p = run.run(timeout=180)
    assert "kafka source: 2 consumers, each reading its share of the partitions" in p.stderr
    assert "source readers: 2 on the sink writers' threads" in p.stderr
    per_writer = outputs(out)
    assert all(per_writer), "both writers wrote"
    check_rows(per_writer[0] + per_writer[1], messages)


# A projection that keeps every column and computes one more (orders only: items pass as they are).
TRANSFORM = r"""transform:
  - source-table: app.orders
    projection: \*, UPPER(name) AS name_upper
"""


def without_name_upper(lines):
    """The orders' computed column checked and taken out, for check_rows."""
    for d in lines:
        for side in ("before", "after"):
            if d["source"]["table"] == "orders" and d[side] is not None:
                assert d[side].pop("name_upper") == d[side]["name"].upper(), d
    return lines


def test_with_a_transform_each_reader_transforms_its_rows_by_the_evolving_schema(
        kafka_broker, cdcd, tmp_path):
    # Each reader's operator transforms the rows it routes itself, by the schemas the readers
    # infer together: every schema change reaches it before the rows built on it.
    topic = unique("split_transform")
    kafka_broker.create_topic(topic, partitions=PARTITIONS)
    messages = evolving_orders(0, 2000)
    kafka_broker.produce(topic, messages)
    out = tmp_path / "out.jsonl"
    p = cdcd(pipeline(kafka_broker, topic, out).replace("sink:", TRANSFORM + "sink:", 1)).run(timeout=180)
    assert "source readers: 2 on the sink writers' threads" in p.stderr
    assert "transform: on each source reader's thread too" in p.stderr
    per_writer = outputs(out)
    assert all(per_writer), "both writers wrote"
    check_rows(without_name_upper(per_writer[0] + per_writer[1]), messages)


def killed_and_resumed(kafka_broker, cdcd, tmp_path, name, bad_every, transform=""):
    """evolving_orders(0, 6000) with a message that is not JSON every `bad_every`, read by split
    readers under dead-letter (through `transform`), killed with -9 mid-stream; then new keys
    with a field no earlier message had (the restored readers change the schema again), read to
    the end from the checkpoint. Returns every message sent, the output, the dead letters and
    the first run."""
    topic = unique(name)
    kafka_broker.create_topic(topic, partitions=PARTITIONS)
    first = evolving_orders(0, 6000)
    sent = []
    for i, m in enumerate(first):
        sent.append(m)
        if i % bad_every == bad_every // 2:
            sent.append({"value": f"not json {i}", "partition": i // bad_every % PARTITIONS})
    kafka_broker.produce(topic, sent)
    out, dead = tmp_path / "out.jsonl", tmp_path / "dead.jsonl"
    name = unique(name)

    def yaml(bounded):
        return pipeline(kafka_broker, topic, out, bounded=bounded, name=name).replace(
            "sink:", transform + "sink:", 1).replace(
            "pipeline:\n", f"pipeline:\n  bad-record.policy: dead-letter\n  bad-record.dead-letter.path: {dead}\n")

    run = cdcd(yaml(False))
    run.start()
    wait_for(lambda: sum(len(o) for o in outputs(out)) >= 4000, timeout=120, what="output mid-stream")
    run.kill9()
    second = evolving_orders(100_000, 3000)
    for m in second[:3000]:
        d = json.loads(m["value"])
        d["after"]["region"] = "eu"
        m["value"] = json.dumps(d)
    kafka_broker.produce(topic, second)
    again = cdcd(yaml(True))
    again.state = run.state
    again.run(timeout=180)
    per_writer = outputs(out)
    records = [json.loads(x) for x in dead.read_text().splitlines()]
    return sent + second, per_writer[0] + per_writer[1], records, run


def not_json(messages):
    return sorted(m["value"] for m in messages if m["value"].startswith("not json"))


def test_a_kill_9_of_a_split_source_loses_and_repeats_nothing(kafka_broker, cdcd, tmp_path):
    # Bad messages among them, in every partition: each dead-lettered once across the kill.
    sent, lines, dead_letters, _ = killed_and_resumed(kafka_broker, cdcd, tmp_path, "split_kill", 600)
    check_rows(lines, [m for m in sent if not m["value"].startswith("not json")])
    assert sorted(r["record"] for r in dead_letters) == not_json(sent)


# Orders whose id % 100 is 7 fail the division: a bad record of the transform.
FAILING_TRANSFORM = r"""transform:
  - source-table: app.orders
    projection: \*, 1000 / (id % 100 - 7) AS q
"""


def without_q(lines):
    """The orders' computed column checked (Java's integer division) and taken out."""
    for d in lines:
        for side in ("before", "after"):
            if d["source"]["table"] == "orders" and d[side] is not None:
                divisor = d[side]["id"] % 100 - 7
                quotient = abs(1000) // abs(divisor) * (1 if divisor > 0 else -1)
                assert d[side].pop("q") == quotient, d
    return lines


def test_a_kill_9_of_readers_that_transform_dead_letters_each_bad_row_once(kafka_broker, cdcd, tmp_path):
    # Each reader transforms its rows and dead-letters those its operator fails on, cut with its
    # offsets at each barrier: across the kill, every good change is written once, in order, and
    # every bad one (of the transform, and messages that are not JSON) is dead-lettered once.
    sent, lines, records, run = killed_and_resumed(kafka_broker, cdcd, tmp_path, "split_transform_kill",
                                                   900, FAILING_TRANSFORM)
    assert "transform: on each source reader's thread too" in run.log_text()

    def fails(m):
        d = json.loads(m["value"])
        return d["source"]["table"] == "orders" and (d["after"] or d["before"])["id"] % 100 == 7

    good = [m for m in sent if not m["value"].startswith("not json")]
    check_rows(without_q(lines), [m for m in good if not fails(m)])
    assert sorted(r["record"] for r in records if r["stage"] == "source") == not_json(sent)
    transform_ids = sorted(json.loads(r["record"])["row"]["id"] for r in records if r["stage"] == "transform")
    assert transform_ids == sorted(json.loads(m["value"])["after"]["id"] for m in good if fails(m))
    assert all("/ by zero" in r["error"] for r in records if r["stage"] == "transform")


def test_split_readers_dead_letter_bad_messages_once(kafka_broker, cdcd, tmp_path):
    # Bad messages in several partitions: each is dead-lettered once, with its position, in the
    # checkpoint whose offsets pass it; a rerun from the final checkpoint repeats nothing.
    topic = unique("split_dlq")
    kafka_broker.create_topic(topic, partitions=PARTITIONS)
    good = '{"before":null,"after":{"id":%d},"op":"c","source":{"db":"app","table":"t"}}'
    messages, bad, sent = [], [], []
    for i in range(400):
        text = f"not json {i}" if i % 50 == 7 else good % i
        (bad if i % 50 == 7 else messages).append(text)
        sent.append({"value": text, "partition": i % PARTITIONS})
    kafka_broker.produce(topic, sent)
    out, dead = tmp_path / "out.jsonl", tmp_path / "dead.jsonl"
    yaml = pipeline(kafka_broker, topic, out).replace(
        "pipeline:\n", f"pipeline:\n  bad-record.policy: dead-letter\n  bad-record.dead-letter.path: {dead}\n")
    run = cdcd(yaml)
    p = run.run(timeout=120)
    assert "kafka source: 2 consumers" in p.stderr
    ids = sorted(d["after"]["id"] for o in outputs(out) for d in o)
    assert ids == sorted(json.loads(m)["after"]["id"] for m in messages)
    records = [json.loads(x) for x in dead.read_text().splitlines()]
    assert sorted(r["record"] for r in records) == sorted(bad)
    assert all(r["stage"] == "source" and r["reason"] == "parse-error" for r in records)
    for r in records:
        i = int(r["record"].split()[-1])
        assert r["position"] == f"topic {topic}, partition {i % PARTITIONS}, offset {i // PARTITIONS}"
    again = run.run(timeout=120)
    assert len(dead.read_text().splitlines()) == len(bad)
    assert sorted(d["after"]["id"] for o in outputs(out) for d in o) == ids


def test_a_reader_without_partitions_ends_with_the_others(kafka_broker, cdcd, tmp_path):
    # One partition, two readers: the second has nothing to read and ends at once (bounded).
    topic = unique("split_one")
    kafka_broker.create_topic(topic, partitions=1)
    messages = [{"value": change("orders", "c", None, {"id": i, "name": f"n{i}"}), "partition": 0}
                for i in range(300)]
    kafka_broker.produce(topic, messages)
    out = tmp_path / "out.jsonl"
    cdcd(pipeline(kafka_broker, topic, out)).run(timeout=120)
    per_writer = outputs(out)
    check_rows(per_writer[0] + per_writer[1], messages)


def test_dead_letters_join_the_checkpoint_whose_offsets_pass_them(kafka_broker, cdcd, tmp_path):
    # Every message is read before the first checkpoint (at 3 s), whose offsets pass them all:
    # its dead letters must be in it. Killed right after it, the restart reads none of the bad
    # messages again, so a dead letter left for the next checkpoint would be lost.
    from test_kafka_metrics import free_port, sample, scrape

    topic = unique("split_dlq_kill")
    kafka_broker.create_topic(topic, partitions=PARTITIONS)
    good = '{"before":null,"after":{"id":%d},"op":"c","source":{"db":"app","table":"t"}}'
    sent = [{"value": f"not json {i}" if i % 100 == 7 else good % i, "partition": i % PARTITIONS}
            for i in range(2000)]
    kafka_broker.produce(topic, sent)
    out, dead = tmp_path / "out.jsonl", tmp_path / "dead.jsonl"
    name = unique("split_dlq_kill")

    def yaml(bounded):
        return pipeline(kafka_broker, topic, out, bounded=bounded, name=name).replace(
            "pipeline:\n", f"pipeline:\n  bad-record.policy: dead-letter\n  bad-record.dead-letter.path: {dead}\n"
        ).replace("execution.checkpointing.interval: 200ms", "execution.checkpointing.interval: 3s")

    run = cdcd(yaml(False))
    port = free_port()
    run.cmd = lambda: [*type(run).cmd(run), "--admin-address", f"127.0.0.1:{port}"]
    run.start()

    def first_checkpoint():
        metrics = scrape(port)
        return metrics and sample(metrics, "cdcd_checkpoint_last_id") >= 1

    wait_for(first_checkpoint, timeout=60, what="the first checkpoint", interval=0.05)
    run.kill9()
    again = cdcd(yaml(True))
    again.state = run.state
    again.run(timeout=120)
    bad = sorted(m["value"] for m in sent if m["value"].startswith("not json"))
    assert sorted(json.loads(x)["record"] for x in dead.read_text().splitlines()) == bad


def test_split_readers_commit_every_partition_to_the_group(kafka_broker, cdcd, tmp_path):
    # The offsets of all four partitions, read by two consumers, reach the consumer group once a
    # checkpoint has them (here the final one, at SIGTERM).
    topic = unique("split_commit")
    kafka_broker.create_topic(topic, partitions=PARTITIONS)
    messages = evolving_orders(0, 400)
    kafka_broker.produce(topic, messages)
    group = unique("g")
    out = tmp_path / "out.jsonl"
    run = cdcd(pipeline(kafka_broker, topic, out, bounded=False).replace(
        "  scan.startup.mode: earliest-offset",
        f"  scan.startup.mode: earliest-offset\n  properties.group.id: {group}"))
    run.start()
    wait_for(lambda: sum(len(o) for o in outputs(out)) >= len(messages), timeout=60, what="all rows")
    assert run.stop() == 0
    ends = kafka_broker.end_offsets(topic)
    wait_for(lambda: kafka_broker.committed_offsets(group, topic) == ends, timeout=30, what="commits")
    assert "kafka source: 2 consumers" in run.log_text()


def test_partitions_added_mid_run_are_shared_out_and_resumed(kafka_broker, cdcd, tmp_path):
    # A topic grows from 2 to 6 partitions while the split source runs: each new partition is
    # found by the reader whose share it is, read from its start, and its offset is in the
    # checkpoint, so a restart after SIGTERM neither repeats nor loses any of its messages.
    from confluent_kafka.admin import NewPartitions

    topic = unique("split_grow")
    kafka_broker.create_topic(topic, partitions=2)
    good = '{"before":null,"after":{"id":%d},"op":"c","source":{"db":"app","table":"t"}}'

    def produce(ids, partitions):
        kafka_broker.produce(topic, [{"value": good % i, "partition": i % partitions} for i in ids])

    produce(range(0, 200), 2)
    out = tmp_path / "out.jsonl"
    name = unique("split_grow")
    yaml = pipeline(kafka_broker, topic, out, bounded=False, name=name).replace(
        "  scan.startup.mode: earliest-offset",
        "  scan.startup.mode: earliest-offset\n  scan.partition-discovery.interval: 300ms")

    def ids():
        return sorted(d["after"]["id"] for o in outputs(out) for d in o)

    run = cdcd(yaml)
    run.start()
    wait_for(lambda: ids() == list(range(200)), timeout=60, what="the first 200 rows")
    for f in kafka_broker.admin().create_partitions([NewPartitions(topic, 6)]).values():
        f.result(timeout=30)

    def six_partitions_with_leaders():
        d = kafka_broker.describe_topic(topic)
        return len(d) == 6 and all(p["leader"] >= 0 for p in d.values())

    wait_for(six_partitions_with_leaders, timeout=30, what="6 partitions with leaders")
    produce(range(200, 800), 6)
    wait_for(lambda: ids() == list(range(800)), timeout=60, what="rows of the new partitions")
    assert run.stop() == 0
    produce(range(800, 1100), 6)
    again = cdcd(yaml.replace("scan.startup.mode: earliest-offset",
                              "scan.startup.mode: earliest-offset\n  scan.bounded.mode: latest-offset"))
    again.state = run.state
    again.run(timeout=120)
    assert ids() == list(range(1100))
    assert "kafka source: 2 consumers" in run.log_text()
