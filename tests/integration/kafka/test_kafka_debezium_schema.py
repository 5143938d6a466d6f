# The kafka source's debezium-json with `debezium-json.schema-include: true`, through the binary
# against the real broker: column types come from the Kafka Connect schema each message carries
# (a FLOAT 3.14 stays FLOAT 3.14, a base64 Decimal comes out exact), and a value unlike its
# declared type is a parse error naming the field, topic, partition and offset.
import json
import re
from pathlib import Path

from conftest import unique
from test_kafka_source import lines, pipeline

TESTDATA = Path(__file__).resolve().parents[2] / "unit" / "sources" / "kafka" / "testdata"

FIELDS = [
    {"type": "int32", "optional": False, "field": "id"},
    {"type": "float", "optional": True, "field": "f"},
    {"type": "bytes", "optional": True, "name": "org.apache.kafka.connect.data.Decimal", "version": 1,
     "parameters": {"scale": "2", "connect.decimal.precision": "10"}, "field": "price"},
    {"type": "int32", "optional": True, "name": "io.debezium.time.Date", "version": 1, "field": "d"},
    {"type": "int64", "optional": True, "name": "io.debezium.time.MicroTimestamp", "version": 1, "field": "ts"},
    {"type": "string", "optional": True, "name": "io.debezium.time.ZonedTimestamp", "version": 1, "field": "zts"},
]


def message(fields, after, op="c", before=None):
    def image(name):
        return {"type": "struct", "fields": fields, "optional": True, "field": name}
    schema = {"type": "struct", "fields": [image("before"), image("after")], "optional": False}
    payload = {"before": before, "after": after, "op": op, "source": {"db": "app", "table": "orders"}}
    return json.dumps({"schema": schema, "payload": payload}, separators=(",", ":"))


# 12345 = 0x3039 ("MDk="); 2023-01-01 is epoch day 19358; 1672569000123456 µs is
# 2023-01-01 10:30:00.123456.
ROW1 = {"id": 1, "f": 3.14, "price": "MDk=", "d": 19358, "ts": 1672569000123456,
        "zts": "2023-01-01T10:30:00.123Z"}
ROW2 = {"id": 2, "f": 0.1, "price": "z8c=", "d": -1, "ts": 0, "zts": None, "note": "new"}

SRC = ("  topic: {topic}\n  value.format: debezium-json\n  debezium-json.schema-include: true\n"
       "  table-id.dynamic.from: value\n  table-id.dynamic.fields: source.db,source.table\n"
       "  scan.startup.mode: earliest-offset\n  scan.bounded.mode: latest-offset\n")


def _topic(kafka_broker, values):
    topic = unique("dbzschema")
    kafka_broker.create_topic(topic)
    kafka_broker.produce(topic, values)
    return topic


def test_schema_include_takes_types_from_the_connect_schema(kafka_broker, cdcd, tmp_path):
    captured = (TESTDATA / "debezium-data-schema-include.txt").read_text().splitlines()[0]
    topic = _topic(kafka_broker, [
        message(FIELDS, ROW1),
        message(FIELDS + [{"type": "string", "optional": True, "field": "note"}], ROW2),
        captured,  # real Debezium (MySQL): inventory.products, weight a DOUBLE
    ])
    src = SRC.format(topic=topic)

    p = cdcd(pipeline(kafka_broker, src, sink="  type: values\n  print.enabled: true")).run()
    assert ("CreateTableEvent{tableId=app.orders, schema=columns={`id` INT NOT NULL,`f` FLOAT,"
            "`price` DECIMAL(10, 2),`d` DATE,`ts` TIMESTAMP(6),`zts` TIMESTAMP_LTZ(3)}") in p.stdout, p.stdout
    assert "[1, 3.14, 123.45, 2023-01-01, 2023-01-01T10:30:00.123456, 2023-01-01T10:30:00.123]" in p.stdout
    assert "AddColumnEvent{tableId=app.orders, addedColumns=[ColumnWithPosition{column=`note` STRING" in p.stdout
    assert "[2, 0.1, -123.45, 1969-12-31, 1970-01-01T00:00, null, new]" in p.stdout, p.stdout
    assert ("CreateTableEvent{tableId=inventory.products, schema=columns={`id` INT NOT NULL,"
            "`name` STRING NOT NULL,`description` STRING,`weight` DOUBLE}") in p.stdout
    assert "[101, scooter, Small 2-wheel scooter, 3.140000104904175]" in p.stdout

    # The file sink writes the typed values back as debezium-json with their Connect schema.
    out = tmp_path / "out.jsonl"
    cdcd(pipeline(kafka_broker, src, sink=f"  type: file\n  path: {out}\n"
                  "  debezium-json.include-schema.enabled: true")).run()
    text = out.read_text().splitlines()
    assert len(text) == 3
    assert ('"after":{"id":1,"f":3.14,"price":123.45,"d":"2023-01-01",'
            '"ts":"2023-01-01 10:30:00.123456","zts":"2023-01-01 10:30:00.123Z"}') in text[0], text[0]
    fields = {f["field"]: f for f in json.loads(text[0])["schema"]["fields"][1]["fields"]}
    assert fields["f"]["type"] == "float"
    assert fields["price"]["name"] == "org.apache.kafka.connect.data.Decimal"
    assert fields["price"]["parameters"] == {"scale": "2", "connect.decimal.precision": "10"}
    assert fields["id"]["optional"] is False
    assert '"price":-123.45' in text[1] and '"note":"new"' in text[1]
    assert json.loads(text[2])["payload"]["after"]["weight"] == 3.140000104904175


def test_schema_include_value_unlike_its_type_names_field_topic_partition_offset(kafka_broker, cdcd, tmp_path):
    bad = message(FIELDS, dict(ROW1, id=2, price=True))
    topic = _topic(kafka_broker, [message(FIELDS, ROW1), bad, message(FIELDS, dict(ROW1, id=3))])
    src = SRC.format(topic=topic)
    out = tmp_path / "out.jsonl"
    p = cdcd(pipeline(kafka_broker, src, out)).run(check=False)
    assert p.returncode != 0
    assert re.search(
        rf"cannot parse the message at topic {topic}, partition 0, offset 1: field 'after.price' "
        r"\(declared bytes org.apache.kafka.connect.data.Decimal\): the value is a boolean, not a "
        r"base64 string or a number", p.stderr), p.stderr[-3000:]
    out2 = tmp_path / "out2.jsonl"
    p = cdcd(pipeline(kafka_broker, src + "  ignore-parse-errors: true\n", out2)).run()
    assert [d["after"]["id"] for d in lines(out2)] == [1, 3]
    assert f"skipped unparsable message at topic {topic}, partition 0, offset 1" in p.stderr
