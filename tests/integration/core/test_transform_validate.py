"""`cdcd validate` on transform expressions: hostile nesting is refused quickly with the limit and
its position, and unknown functions and wrong argument counts are found without any schema."""
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
