"""`cdcd test PIPELINE.yaml`: a pipeline's test cases (input events, the events expected out) run
through its real transform, route and schema evolution, with no source or sink connected; exit 0
only when every case passes, a diff of the events when one does not."""
import shutil

import cdcd_process as cdcd

EXAMPLES = cdcd.REPO / "examples"

PIPELINE = """source:
  type: kafka
  properties.bootstrap.servers: 127.0.0.1:9
  properties.group.id: g
  topic: orders
  value.format: debezium-json
  table-id.dynamic.from: value
  table-id.dynamic.fields: source.db,source.table
transform:
  - source-table: shop.orders
    projection: id, amount * 100 AS cents
    filter: amount > 0
  - source-table: shop.ratios
    projection: id, 10 / d AS ratio
sink:
  type: kafka
  properties.bootstrap.servers: 127.0.0.1:9
pipeline:
  name: orders
{pipeline}
"""

CREATE = """      - create: shop.orders
        columns: [id INT NOT NULL, 'amount DECIMAL(10, 2)']
        primary-keys: [id]
"""


def write(tmp_path, tests, pipeline=""):
    path = tmp_path / "orders.yaml"
    path.write_text(PIPELINE.format(pipeline=pipeline))
    (tmp_path / "orders.tests.yaml").write_text("tests:\n" + tests)
    return path


def test_the_examples_pass(tmp_path):
    # orders-relay.yaml's cases are in orders-relay.tests.yaml beside it; quickstart.yaml's in its
    # own `tests:` list, which `cdcd run` ignores.
    for example in ("orders-relay.yaml", "quickstart.yaml"):
        p = cdcd.run(["test", EXAMPLES / example])
        assert p.returncode == 0, p.stdout + p.stderr
        assert " 0 failed" in p.stdout and "  FAIL" not in p.stdout, p.stdout
    shutil.copy(EXAMPLES / "quickstart.yaml", tmp_path)
    p = cdcd.run(["run", tmp_path / "quickstart.yaml", "--state-dir", tmp_path / "state"])
    assert p.returncode == 0 and "quickstart.members" in p.stdout, p.stderr


def test_the_readme_example_is_the_one_under_test():
    readme = (cdcd.REPO / "README.md").read_text()
    example = (EXAMPLES / "orders-relay.yaml").read_text()
    body = "".join(line + "\n" for line in example.splitlines() if not line.startswith("#"))
    assert "```yaml\n" + body + "```" in readme


def test_a_mismatch_prints_the_diff_and_exits_1(tmp_path):
    path = write(tmp_path, """  - name: cents
    input:
""" + CREATE + """      - insert: shop.orders
        after: {id: 1, amount: 1.25}
      - insert: shop.orders
        after: {id: 2, amount: 0}
    expect:
      - create: shop.orders
        columns: ['id INT NOT NULL', 'cents DECIMAL(14, 2)']
        primary-keys: [id]
      - insert: shop.orders
        after: {id: 1, cents: 125}
      - insert: shop.orders
        after: {id: 2, cents: 0}
""")
    p = cdcd.run(["test", path])
    assert p.returncode == 1, p.stdout + p.stderr
    out = p.stdout
    assert "  FAIL  cents (" in out and "orders.tests.yaml:2:5)" in out, out
    # The filter dropped id 2; cents' type is DECIMAL(14, 2) nowhere but in the expectation.
    assert "- DataChangeEvent{tableId=shop.orders, before=[], after=[2, 0.00], op=INSERT, meta=()}" in out, out
    assert "\n        - CreateTableEvent{tableId=shop.orders, schema=columns={`id` INT NOT NULL,`cents` DECIMAL(14, 2)}" in out
    assert "\n        + CreateTableEvent{tableId=shop.orders, schema=columns={`id` INT NOT NULL,`cents` DECIMAL(" in out
    assert "\n          DataChangeEvent{tableId=shop.orders, before=[], after=[1, 125.00], op=INSERT" in out, out
    assert out.rstrip().endswith("0 passed, 1 failed")


def test_an_expected_error_passes_and_a_skipped_row_is_noted(tmp_path):
    ratios = """      - create: shop.ratios
        columns: [id INT NOT NULL, d INT]
        primary-keys: [id]
      - insert: shop.ratios
        after: {id: 1, d: 0}
"""
    path = write(tmp_path, "  - name: zero divisor\n    input:\n" + ratios + "    expect-error: 10 / d\n")
    p = cdcd.run(["test", path])
    assert p.returncode == 0, p.stdout + p.stderr
    path = write(tmp_path, "  - name: zero divisor skipped\n    input:\n" + ratios +
                 "    expect:\n      - create: shop.ratios\n        columns: [id INT NOT NULL, ratio INT]\n"
                 "        primary-keys: [id]\n", pipeline="  bad-record.policy: skip")
    p = cdcd.run(["test", path])
    assert p.returncode == 0, p.stdout + p.stderr
    assert "note: bad record skipped (eval-error, pipeline.bad-record.policy skip)" in p.stdout, p.stdout


def test_mistakes_in_the_cases_are_reported_at_their_line(tmp_path):
    path = write(tmp_path, """  - name: bad
    input:
      - upsert: shop.orders
    expect: []
  - input: []
""")
    p = cdcd.run(["test", path])
    assert p.returncode == 1
    assert "orders.tests.yaml:4:9: error: an event needs one of the keys create, insert" in p.stdout, p.stdout
    assert "orders.tests.yaml:6:5: error: a test case needs a name" in p.stdout, p.stdout
    path = write(tmp_path, "  - name: bad value\n    input:\n" + CREATE +
                 "      - insert: shop.orders\n        after: {id: 1, amount: lots}\n    expect: []\n")
    p = cdcd.run(["test", path])
    assert p.returncode == 1
    assert ("the case is wrong: " + str(tmp_path / "orders.tests.yaml") +
            ":8:24: 'lots' is not a value of column 'amount' of shop.orders (DECIMAL(10, 2))") in p.stdout, p.stdout


def test_without_cases_it_says_where_they_may_be(tmp_path):
    path = tmp_path / "orders.yaml"
    path.write_text(PIPELINE.format(pipeline=""))
    p = cdcd.run(["test", path])
    assert p.returncode == 1
    assert f"no test cases for {path}: add a `tests:` list to it, write {tmp_path / 'orders.tests.yaml'}" in p.stderr
    p = cdcd.run(["test", path, "--tests", tmp_path / "missing.yaml"])
    assert p.returncode == 1 and "missing.yaml" in p.stdout + p.stderr


def test_a_pipeline_with_errors_is_not_tested(tmp_path):
    path = tmp_path / "orders.yaml"
    path.write_text(PIPELINE.format(pipeline="  parallelism: lots"))
    (tmp_path / "orders.tests.yaml").write_text("tests: []\n")
    p = cdcd.run(["test", path])
    assert p.returncode == 1 and "orders.yaml:20:3: error: option `parallelism`" in p.stderr and "parallelism" in p.stderr, p.stderr
