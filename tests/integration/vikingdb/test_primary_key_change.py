"""An UPDATE that changes the primary key deletes the old key first at parallelism 1 and is
refused at parallelism 2 unless sink.ignore-update-before (COMPLEX_COLUMN_NAME_TABLE's last
UPDATE changes `class` from class2 to new-class2)."""
import textwrap

from vdb_pipelines import TABLE1, dump, pipeline_block, run_pipeline, sink_block

SOURCE = textwrap.dedent("""\
    source:
      type: values
      event-set.id: COMPLEX_COLUMN_NAME_TABLE
    transform:
      - source-table: default_namespace.default_schema.table1
        projection: class, `foo-bar` AS foo_bar
    """)


def test_pk_change_deletes_old_key_at_parallelism_1(emu, tmp_path):
    r = run_pipeline(tmp_path, SOURCE + sink_block(emu) + pipeline_block())
    assert r.returncode == 0, r.stderr
    assert dump(emu, TABLE1) == {"class0": {"class": "class0", "foo_bar": 0},
                                 "new-class2": {"class": "new-class2", "foo_bar": 20}}


def test_pk_change_is_refused_at_parallelism_2(emu, tmp_path):
    r = run_pipeline(tmp_path, SOURCE + sink_block(emu) + pipeline_block(parallelism=2))
    assert r.returncode != 0
    assert ('an UPDATE changes the primary key from "class2" to "new-class2", which needs sink parallelism 1'
            in r.stderr)


def test_pk_change_with_ignore_update_before_keeps_the_old_key(emu, tmp_path):
    r = run_pipeline(tmp_path, SOURCE + sink_block(emu, **{"sink.ignore-update-before": True}) +
                     pipeline_block(parallelism=2))
    assert r.returncode == 0, r.stderr
    assert set(dump(emu, TABLE1)) == {"class0", "class2", "new-class2"}
