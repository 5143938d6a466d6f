"""`cdcd validate` on transform expressions: hostile nesting is refused quickly with the limit and
its position, unknown functions and wrong argument counts are found without any schema, and
columns and argument types are checked against the schemas a source's options tell."""
import time

import cdcd_process as cdcd

PIPELINE = """source:
  type: values
  event-set.id: SINGLE_SPLIT_SINGLE_TABLE
transform:
  - source-table: default_namespace.default_schema.table1
    projection: {projection}
    filter: {filter}
sink:
  type: values
"""


def test_validate_refuses_deep_nesting_quickly_at_its_position(tmp_path):
    deep = "(" * 20000 + "col1" + ")" * 20000
    yaml = cdcd.write_pipeline(tmp_path, PIPELINE.format(projection=f"col1, {deep} AS x", filter="col1 <> ''"))
    started = time.monotonic()
    result = cdcd.run(["validate", yaml], timeout=30)
    assert time.monotonic() - started < 10
    assert result.returncode == 1, result.stderr  # not a crash (-11)
    # The 256th parenthesis (projection column 7 + 255) opens one level too many.
    assert f"{yaml}:6:278: error: syntax error in projection at column 262: " in result.stderr
    assert "expression nesting exceeds the limit of 256 levels" in result.stderr
    assert len(result.stderr) < 2000  # the 40 KB expression is not printed whole


def test_validate_reports_unknown_functions_and_argument_counts_without_a_schema(tmp_path):
    yaml = cdcd.write_pipeline(tmp_path, PIPELINE.format(projection="col1, UPPR(col1) AS x, SUBSTRING(col2) AS y",
                                                         filter="CHAR_LENGTH(col1, 2) > 0"))
    result = cdcd.run(["validate", yaml])
    assert result.returncode == 1, result.stderr
    err = result.stderr
    assert (f"{yaml}:6:23: error: error in projection at column 7: No match found for function signature "
            "UPPR(...); did you mean `UPPER`?") in err
    assert (f"{yaml}:6:40: error: error in projection at column 24: Invalid number of arguments to function "
            "'SUBSTRING'. Was expecting 2 to 3 arguments, got 1") in err
    assert (f"{yaml}:7:13: error: error in filter at column 1: Invalid number of arguments to function "
            "'CHAR_LENGTH'. Was expecting 1 arguments, got 2") in err


def test_validate_checks_columns_and_argument_types_against_a_values_event_set(tmp_path):
    # The values source's event set tells table1's schema (col1, col2 STRING), so an unknown
    # column and an argument of the wrong type are found before any event is read.
    yaml = cdcd.write_pipeline(tmp_path, PIPELINE.format(projection="col1, UPPER(nocol) AS x", filter="col1 <> ''"))
    result = cdcd.run(["validate", yaml])
    assert result.returncode == 1, result.stderr
    assert (f"{yaml}:6:29: error: transform projection of table default_namespace.default_schema.table1 "
            "at column 13: Column `nocol` not found in any table") in result.stderr

    yaml = cdcd.write_pipeline(tmp_path, PIPELINE.format(projection="col1, col2", filter="ABS(col2) > 1"))
    result = cdcd.run(["validate", yaml])
    assert result.returncode == 1, result.stderr
    assert (f"{yaml}:7:17: error: transform filter of table default_namespace.default_schema.table1 at "
            "column 5: Cannot apply 'ABS' to arguments of type ABS(STRING): argument 1 must be numeric") \
        in result.stderr


def test_validate_warns_of_an_equality_that_is_never_true_and_run_says_so_too(tmp_path):
    # Flink CDC's `=` is Java's equals: GENERATED's `id` is BIGINT and `5` an INT, so the filter
    # drops every row, in Flink CDC as here. It is valid, so validate passes, with a warning.
    yaml = cdcd.write_pipeline(tmp_path, """source:
  type: values
  event-set.id: GENERATED
  generator.rows: 10
transform:
  - source-table: default_namespace.default_schema.generated
    projection: \\*
    filter: id = 5
sink:
  type: values
""")
    warning = (f"{yaml}:8:13: transform filter of table default_namespace.default_schema.generated at "
               "column 1: `=` compares BIGINT with INT, which is never TRUE")
    result = cdcd.run(["validate", yaml])
    assert result.returncode == 0, result.stderr
    assert warning in result.stderr
    run = cdcd.run(["run", yaml, "--state-dir", tmp_path / "state"])
    assert run.returncode == 0, run.stderr
    assert warning in run.stderr
    assert "11 events in, 1 events out" in run.stderr  # the CreateTableEvent alone


def test_validate_finds_a_rule_that_a_later_schema_change_of_the_event_set_breaks(tmp_path):
    # table1 loses col2 later in the set: before, `run` printed the first rows and then failed
    # there; now validate (and the start of run) reports it.
    yaml = cdcd.write_pipeline(tmp_path, PIPELINE.format(projection="'*, UPPER(col1) || col2 AS x'",
                                                         filter="col1 <> ''"))
    result = cdcd.run(["validate", yaml])
    assert result.returncode == 1, result.stderr
    assert "at column 19: Column `col2` not found in any table in `*, UPPER(col1) || col2 AS x`" in result.stderr


def test_validate_accepts_a_rule_that_fits_every_schema_of_the_event_set(tmp_path):
    yaml = cdcd.write_pipeline(tmp_path, PIPELINE.format(projection="'*, UPPER(col1) AS x'",
                                                         filter="CHAR_LENGTH(col1) > 0"))
    result = cdcd.run(["validate", yaml])
    assert result.returncode == 0, result.stderr


def test_validate_checks_the_configured_dingtalk_workspaces_tables(tmp_path):
    yaml = cdcd.write_pipeline(tmp_path, """source:
  type: dingtalk-cdc
  app-key: k
  app-secret: s
  operator-id: op
  object-type: document
  workspace-id: ws1
transform:
  - source-table: ws1.documents
    projection: doc_id, title + 1 AS t
sink:
  type: values
""")
    result = cdcd.run(["validate", yaml])
    assert result.returncode == 1, result.stderr
    assert "transform projection of table ws1.documents at column 9: Cannot apply '+' to arguments" \
        in result.stderr


def test_validate_checks_the_oss_polling_buckets_table(tmp_path):
    yaml = cdcd.write_pipeline(tmp_path, """source:
  type: oss-cdc
  scan.incremental.mode: POLLING
  access-key-id: ak
  access-key-secret: sk
  oss-endpoint: http://127.0.0.1:1
  oss-region: cn-hangzhou
  oss-bucket: my-bucket
transform:
  - source-table: my-bucket
    projection: key, fileName * 2 AS twice
sink:
  type: values
""")
    result = cdcd.run(["validate", yaml])
    assert result.returncode == 1, result.stderr
    assert "transform projection of table my-bucket at column 6: Cannot apply '*' to arguments" in result.stderr
