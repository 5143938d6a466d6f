"""Schema changes other than CREATE / DROP / TRUNCATE TABLE fail the pipeline with an error
naming the table and the change."""
import textwrap

from vdb_pipelines import TABLE1, dump, pipeline_block, run_pipeline, sink_block


def source(event_set):
    return f"source:\n  type: values\n  event-set.id: {event_set}\n"


def test_add_column_fails_the_pipeline(emu, tmp_path):
    r = run_pipeline(tmp_path, source("SINGLE_SPLIT_SINGLE_TABLE") + sink_block(emu) + pipeline_block())
    assert r.returncode != 0
    assert "VikingDB sink does not support schema evolution" in r.stderr
    assert "on table default_namespace.default_schema.table1" in r.stderr
    assert f"(collection '{TABLE1}')" in r.stderr
    assert "AddColumnEvent" in r.stderr or "add" in r.stderr.lower()
    # The rows before the change were flushed first.
    assert set(dump(emu, TABLE1)) == {"1", "2", "3"}


def test_try_evolve_does_not_tolerate_it(emu, tmp_path):
    extra = "  schema.change.behavior: TRY_EVOLVE\n"
    y = source("SINGLE_SPLIT_SINGLE_TABLE") + sink_block(emu) + pipeline_block() + extra
    r = run_pipeline(tmp_path, y)
    assert r.returncode != 0
    assert "VikingDB sink does not support schema evolution" in r.stderr


def test_ignored_schema_changes_never_reach_the_sink(emu, tmp_path):
    y = source("SINGLE_SPLIT_SINGLE_TABLE") + sink_block(emu) + pipeline_block() + \
        "  schema.change.behavior: IGNORE\n"
    r = run_pipeline(tmp_path, y)
    assert r.returncode == 0, r.stderr
    assert dump(emu, TABLE1) == {"2": {"col1": "2", "col2": ""}, "3": {"col1": "3", "col2": "3"}}
