"""One regex dialect: `cdcd validate` refuses a Java construct RE2 cannot run with the same message
whichever option it is written in (route `source-table`, a REGEXP_ function, the Kafka sink's
topic mapping, the Kafka source's `topic-pattern` and canal-json filter), each at its own line
(docs/regex.md). Before, route `source-table` had a translator of its own and said "lookahead/
lookbehind assertions are not supported (RE2 has none)", `topic-pattern` "look-around groups are
not supported"."""
import cdcd_process as cdcd

REFUSAL = ("unsupported regular expression 'orders(?=_v2)': lookahead/lookbehind '(?=' at index 6 "
           "is not supported: RE2, which cdcd matches with, cannot run it")

ROUTE_AND_KAFKA_SINK = """source:
  type: values
  event-set.id: SINGLE_SPLIT_SINGLE_TABLE
route:
  - source-table: orders(?=_v2)
    sink-table: app.orders
sink:
  type: kafka
  properties.bootstrap.servers: 127.0.0.1:9
  sink.tableId-to-topic.mapping: app.orders(?=_v2):orders
"""

TRANSFORM = """source:
  type: values
  event-set.id: SINGLE_SPLIT_SINGLE_TABLE
transform:
  - source-table: default_namespace.default_schema.table1
    projection: col1, REGEXP_COUNT(col1, 'orders(?=_v2)') AS n
sink:
  type: values
"""

KAFKA_SOURCE = """source:
  type: kafka
  properties.bootstrap.servers: 127.0.0.1:9
  topic-pattern: orders(?=_v2)
  value.format: canal-json
  canal-json.table.include: orders(?=_v2)
  properties.group.id: g
  table-id.fixed.name: app.orders
sink:
  type: values
"""


def validate_errors(tmp_path, name, text):
    yaml = cdcd.write_pipeline(tmp_path, text, name)
    result = cdcd.run(["validate", yaml])
    assert result.returncode == 1, result.stderr
    return yaml, result.stderr.splitlines()


def error_at(lines, yaml, line):
    found = [s for s in lines if s.startswith(f"{yaml}:{line}:")]
    assert len(found) == 1, lines
    return found[0]


def test_the_same_refusal_from_every_regex_option(tmp_path):
    yaml, lines = validate_errors(tmp_path, "route.yaml", ROUTE_AND_KAFKA_SINK)
    assert error_at(lines, yaml, 5) == f"{yaml}:5:5: error: route source-table 'orders(?=_v2)': {REFUSAL}"
    assert error_at(lines, yaml, 10) == (
        f"{yaml}:10:3: error: sink.tableId-to-topic.mapping: selector 'app.orders(?=_v2)': "
        f"invalid table selector 'app.orders(?=_v2)': {REFUSAL}")

    yaml, lines = validate_errors(tmp_path, "transform.yaml", TRANSFORM)
    assert error_at(lines, yaml, 6) == (
        f"{yaml}:6:42: error: transform projection of table default_namespace.default_schema.table1 "
        f"at column 26: {REFUSAL} in `col1, REGEXP_COUNT(col1, 'orders(?=_v2)') AS n`")

    yaml, lines = validate_errors(tmp_path, "kafka.yaml", KAFKA_SOURCE)
    assert error_at(lines, yaml, 4) == f"{yaml}:4:3: error: `topic-pattern`: {REFUSAL}"
    assert error_at(lines, yaml, 6) == f"{yaml}:6:3: error: `canal-json.table.include`: {REFUSAL}"
    assert len(lines) == 2, lines
