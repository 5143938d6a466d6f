# The kafka source's limits through the binary and a real broker: a message over a limit (too
# wide, too deep, too large, one table too many) follows bad-record.policy — dead-lettered or
# skipped while the pipeline goes on, or failing it with the topic, partition and offset.
import json

from conftest import unique
from test_kafka_source import after_ids, pipeline

LIMITS = ("  scan.max-columns-per-table: 3\n  scan.max-json-depth: 6\n"
          "  scan.max-message-size: 1kb\n  scan.max-tables: 1\n")


def dbz(table, after):
    return json.dumps({"before": None, "after": after, "op": "c",
                       "source": {"db": "app", "table": table}})


# (message, the limit it is over)
MESSAGES = [
    (dbz("t", {"id": 1, "v": "a"}), None),
    (dbz("t", {"id": 2, "v": "b", "w": 1, "x": 2}), "scan.max-columns-per-table"),
    (dbz("t", {"id": 3, "v": [[[[[1]]]]]}), "scan.max-json-depth"),  # level 2 + 5 = 7
    (dbz("t", {"id": 4, "v": "x" * 2000}), "scan.max-message-size"),
    (dbz("u", {"id": 5}), "scan.max-tables"),
    (dbz("t", {"id": 6, "v": [[[[1]]]], "w": 1}), None),  # level 2 + 4 = 6, 3 columns
]


def limited_pipeline(kafka_broker, out, policy_lines=""):
    topic = unique("limits")
    kafka_broker.create_topic(topic)
    kafka_broker.produce(topic, [m for m, _ in MESSAGES])
    src = (f"  topic: {topic}\n  value.format: debezium-json\n  table-id.dynamic.from: value\n"
           "  table-id.dynamic.fields: source.db,source.table\n  scan.startup.mode: earliest-offset\n"
           "  scan.bounded.mode: latest-offset\n" + LIMITS)
    yaml = pipeline(kafka_broker, src, out).replace("pipeline:\n", "pipeline:\n" + policy_lines)
    return topic, yaml


def test_messages_over_a_limit_are_dead_lettered_and_the_pipeline_goes_on(kafka_broker, cdcd,
                                                                        tmp_path):
    out, dead = tmp_path / "out.jsonl", tmp_path / "dead.jsonl"
    topic, yaml = limited_pipeline(
        kafka_broker, out,
        f"  bad-record.policy: dead-letter\n  bad-record.dead-letter.path: {dead}\n")
    c = cdcd(yaml)
    p = c.run(check=False)
    assert p.returncode == 0, p.stderr[-3000:]
    assert after_ids(out) == [1, 6]
    records = [json.loads(x) for x in dead.read_text().splitlines()]
    over = [(i, limit) for i, (_, limit) in enumerate(MESSAGES) if limit]
    assert len(records) == len(over)
    for r, (offset, limit) in zip(records, over):
        assert (r["stage"], r["connector"], r["reason"]) == ("source", "kafka", "limit-exceeded")
        assert r["position"] == f"topic {topic}, partition 0, offset {offset}"
        assert f"raise {limit}" in r["error"], r["error"]
        assert r["record"] == MESSAGES[offset][0]
    assert records[0]["error"].startswith("table app.t would have more than 3 columns")
    assert records[1]["error"].startswith("table app.t: field 'v' nests JSON")
    assert records[3]["error"].startswith("table app.u would be one more than the 1 tables")
    # A restart from the final checkpoint writes none of them again.
    again = c.run(check=False)
    assert again.returncode == 0, again.stderr[-3000:]
    assert len(dead.read_text().splitlines()) == len(over) and after_ids(out) == [1, 6]


def test_messages_over_a_limit_are_skipped_under_the_skip_policy(kafka_broker, cdcd, tmp_path):
    out = tmp_path / "out.jsonl"
    _, yaml = limited_pipeline(kafka_broker, out, "  bad-record.policy: skip\n")
    p = cdcd(yaml).run(check=False)
    assert p.returncode == 0, p.stderr[-3000:]
    assert after_ids(out) == [1, 6]


def test_a_message_over_a_limit_fails_the_pipeline_by_default(kafka_broker, cdcd, tmp_path):
    out = tmp_path / "out.jsonl"
    topic, yaml = limited_pipeline(kafka_broker, out)
    c = cdcd(yaml)
    p = c.run(check=False)
    assert p.returncode != 0
    assert f"the message at topic {topic}, partition 0, offset 1 is over a limit" in p.stderr, \
        p.stderr[-3000:]
    assert "table app.t would have more than 3 columns" in p.stderr
    assert "raise scan.max-columns-per-table" in p.stderr
    # A restart fails at the same message: nothing is lost or skipped silently.
    again = c.run(check=False)
    assert again.returncode != 0 and "offset 1 is over a limit" in again.stderr
