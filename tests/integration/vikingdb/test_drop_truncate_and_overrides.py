"""Spec 002 运行机制: TRUNCATE TABLE deletes every record of the collection, DROP TABLE deletes the
collection itself; and the `video`, `geo_point`, `date_time` and `list_int64` field-type overrides,
end to end through the binary."""
import textwrap

from vdb_pipelines import GENERATED, TABLE1, dump, generated_source, pipeline_block, run_pipeline, sink_block

TABLE2 = "default_namespace_default_schema_table2"


def test_truncate_empties_the_collection_and_drop_deletes_it(emu, tmp_path):
    # LENIENT (the default) drops DROP/TRUNCATE TABLE before the sink, as Flink CDC does.
    y = ("source:\n  type: values\n  event-set.id: TRUNCATE_AND_DROP_TABLES\n" + sink_block(emu) +
         pipeline_block() + "  schema.change.behavior: EVOLVE\n")
    r = run_pipeline(tmp_path, y)
    assert r.returncode == 0, r.stderr
    assert dump(emu, TABLE1) == {"3": {"col1": "3", "col2": "3"}}  # 1 and 2 went with the truncate
    assert [c["CollectionName"] for c in emu.collections()] == [TABLE1]
    requests = emu.counters()["requests"]
    assert requests["DeleteVikingdbCollection"] == 1
    assert "TRUNCATE TABLE default_namespace.default_schema.table1" in r.stderr
    assert f"DROP TABLE default_namespace.default_schema.table2: collection '{TABLE2}' deleted" in r.stderr


def test_lenient_keeps_the_collections(emu, tmp_path):
    y = ("source:\n  type: values\n  event-set.id: TRUNCATE_AND_DROP_TABLES\n" + sink_block(emu) +
         pipeline_block())
    r = run_pipeline(tmp_path, y)
    assert r.returncode == 0, r.stderr
    assert set(dump(emu, TABLE1)) == {"1", "2", "3"}
    assert sorted(c["CollectionName"] for c in emu.collections()) == [TABLE1, TABLE2]


OVERRIDES = textwrap.dedent("""\
    transform:
      - source-table: default_namespace.default_schema.generated
        projection: >-
          id, CONCAT('https://example.com/v/', CAST(id AS VARCHAR(20)), '.mp4') AS clip,
          CONCAT('116.', CAST(id AS VARCHAR(20)), ',39.9') AS loc,
          CONCAT('2025-08-0', CAST(id AS VARCHAR(20)), 'T10:00:00Z') AS seen,
          ARRAY[CAST(id AS INT), 7] AS codes
    """)


def test_video_geo_point_date_time_and_list_int64_overrides(emu, tmp_path):
    y = (generated_source(rows=3) + OVERRIDES +
         sink_block(emu, **{"vikingdb.field.clip.type": "video", "vikingdb.field.loc.type": "geo_point",
                            "vikingdb.field.seen.type": "date_time",
                            "vikingdb.field.codes.type": "list_int64"}) + pipeline_block())
    r = run_pipeline(tmp_path, y)
    assert r.returncode == 0, r.stderr
    types = {f["FieldName"]: f["FieldType"] for f in emu.collection(GENERATED)["Fields"]}
    assert types == {"id": "int64", "clip": "video", "loc": "geo_point", "seen": "date_time",
                     "codes": "list<int64>"}
    row = dump(emu, GENERATED)[2]
    assert row["clip"] == {"value": "https://example.com/v/2.mp4"}
    assert row["loc"] == "116.2,39.9"
    assert row["seen"] == "2025-08-02T10:00:00Z"
    assert row["codes"] == [2, 7]


def test_an_override_the_column_cannot_take_is_refused(emu, tmp_path):
    y = (generated_source(rows=3) + OVERRIDES +
         sink_block(emu, **{"vikingdb.field.codes.type": "geo_point"}) + pipeline_block())
    r = run_pipeline(tmp_path, y)
    assert r.returncode != 0
    assert "column `codes`: geo_point needs a CHAR/VARCHAR column, not ARRAY<INT>" in r.stderr
    assert emu.collections() == []
