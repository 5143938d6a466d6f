"""Auto-created collections: vector, sparse vector, lists and every scalar type of the spec's type
table, written with the pipeline's local-time-zone; and validation of existing collections."""
import textwrap

from vdb_pipelines import GENERATED, dump, generated_source, pipeline_block, run_pipeline, sink_block

ALL_TYPES = textwrap.dedent("""\
    transform:
      - source-table: default_namespace.default_schema.generated
        projection: >-
          id, CAST(id AS VARCHAR(20)) AS name, CAST('c' AS CHAR(1)) AS ch, id % 2 = CAST(0 AS BIGINT) AS even,
          CAST(version AS TINYINT) AS ti, CAST(version AS SMALLINT) AS si, version AS i,
          CAST(id AS DECIMAL(12, 0)) AS d0, CAST(id AS DECIMAL(10, 2)) / 4 AS d2,
          CAST(id AS FLOAT) / 2 AS f, CAST(id AS DOUBLE) / 8 AS db,
          CAST('2025-08-01' AS DATE) AS dt, CAST('2025-08-01 12:34:56.789' AS TIMESTAMP(3)) AS ts,
          ARRAY[CAST(id AS FLOAT), 1.5, -2.0, 0.25] AS emb,
          MAP['tok', CAST(id AS DOUBLE), 'other', 0.5] AS sp,
          ARRAY['a', payload] AS tags, ARRAY[id, id * 10] AS nums,
          MAP['k', version] AS meta, payload
    """)


def test_auto_create_with_every_mapped_type(emu, tmp_path):
    y = (generated_source(rows=30, updates=1, payload=8) + ALL_TYPES +
         sink_block(emu, **{"vikingdb.field.emb.type": "vector", "vikingdb.field.emb.dim": 4,
                            "vikingdb.field.sp.type": "sparse_vector",
                            "vikingdb.field.tags.type": "list_string"}) + pipeline_block())
    r = run_pipeline(tmp_path, y)
    assert r.returncode == 0, r.stderr
    info = emu.collection(GENERATED)
    types = {f["FieldName"]: (f["FieldType"], f.get("Dim")) for f in info["Fields"]}
    assert info["PrimaryKey"] == "id"
    assert types == {
        "id": ("int64", None), "name": ("string", None), "ch": ("string", None), "even": ("bool", None),
        "ti": ("int64", None), "si": ("int64", None), "i": ("int64", None), "d0": ("int64", None),
        "d2": ("float32", None), "f": ("float32", None), "db": ("float32", None),
        "dt": ("date_time", None), "ts": ("date_time", None), "emb": ("vector", 4),
        "sp": ("sparse_vector", None), "tags": ("list<string>", None), "nums": ("list<int64>", None),
        "meta": ("string", None), "payload": ("string", None)}
    rows = {r["id"]: r for r in emu.rows(GENERATED, vectors=True)["rows"]}
    assert len(rows) == 30
    row = rows[6]
    f = row["fields"]
    assert f["name"] == "6" and f["ch"] == "c" and f["even"] is True
    assert f["ti"] == 1 and f["si"] == 1 and f["i"] == 1 and f["d0"] == 6
    assert abs(f["d2"] - 1.5) < 1e-9 and f["f"] == 3.0 and f["db"] == 0.75
    # pipeline.local-time-zone is Asia/Shanghai
    assert f["dt"] == "2025-08-01T00:00:00+08:00"
    assert f["ts"] == "2025-08-01T12:34:56.789+08:00"
    assert f["tags"] == ["a", "6-1-xxxx"] and f["nums"] == [6, 60]
    assert f["meta"] == '{"k":1}'
    assert row["vector"] == [6.0, 1.5, -2.0, 0.25]
    assert f["sp"] == {"tok": 6.0, "other": 0.5}


def test_vector_without_dim_fails_at_create_table(emu, tmp_path):
    y = (generated_source(rows=3) + ALL_TYPES + sink_block(emu) + pipeline_block())
    r = run_pipeline(tmp_path, y)
    assert r.returncode != 0
    assert "column `emb`: vector field needs vikingdb.field.emb.dim to create the collection" in r.stderr
    assert emu.collections() == []


def test_existing_compatible_collection_is_used_without_create(emu, tmp_path):
    emu.create_collection(GENERATED, fields=[
        {"FieldName": "id", "FieldType": "int64", "IsPrimaryKey": True},
        {"FieldName": "version", "FieldType": "int64"},
        {"FieldName": "payload", "FieldType": "text"},
        {"FieldName": "extra", "FieldType": "string", "DefaultValue": "dflt"}])
    y = generated_source(rows=10) + sink_block(emu, **{"auto-create-table": False}) + pipeline_block()
    r = run_pipeline(tmp_path, y)
    assert r.returncode == 0, r.stderr
    assert "CreateVikingdbCollection" not in emu.counters()["requests"]
    rows = dump(emu, GENERATED)
    assert len(rows) == 10 and rows[3]["extra"] == "dflt" and rows[3]["payload"].startswith("3-0-")


def test_incompatible_collection_lists_every_mismatch(emu, tmp_path):
    emu.create_collection(GENERATED, fields=[
        {"FieldName": "key", "FieldType": "string", "IsPrimaryKey": True},
        {"FieldName": "id", "FieldType": "string"},
        {"FieldName": "version", "FieldType": "bool"},
        {"FieldName": "emb", "FieldType": "vector", "Dim": 8}])
    y = generated_source(rows=10) + sink_block(emu) + pipeline_block()
    r = run_pipeline(tmp_path, y)
    assert r.returncode != 0
    err = r.stderr
    assert f"existing collection '{GENERATED}' is not compatible with table " \
           "default_namespace.default_schema.generated (5 mismatches)" in err
    assert "field `id`: the collection has type string" in err
    assert "field `version`: the collection has type bool" in err
    assert "column `payload` (string) has no field in the collection" in err
    assert "primary key: the collection's is `key`, the table's is `id`" in err
    assert "field `emb` (vector) needs a value in every upsert" in err
    assert emu.rows(GENERATED)["count"] == 0


def test_missing_collection_without_auto_create_fails(emu, tmp_path):
    y = generated_source(rows=3) + sink_block(emu, **{"auto-create-table": False}) + pipeline_block()
    r = run_pipeline(tmp_path, y)
    assert r.returncode != 0
    assert f"collection '{GENERATED}' (table default_namespace.default_schema.generated) does not exist " \
           "and auto-create-table is false" in r.stderr


def test_collection_name_template_project_and_resource_id(emu, tmp_path):
    y = (generated_source(rows=5) +
         sink_block(emu, **{"collection-name-template": "cdc_${table}", "project-name": "proj1"}) +
         pipeline_block())
    r = run_pipeline(tmp_path, y)
    assert r.returncode == 0, r.stderr
    assert [(c["ProjectName"], c["CollectionName"]) for c in emu.collections()] == [("proj1", "cdc_generated")]
    assert emu.rows("cdc_generated", project_name="proj1")["count"] == 5
    rid = emu.collections()[0]["ResourceId"]
    y2 = (generated_source(rows=8) +
          sink_block(emu, **{"collection-name-template": "cdc_${table}", "project-name": "proj1",
                             "resource-id": rid}) + pipeline_block(name="second"))
    r = run_pipeline(tmp_path, y2, state="state2")
    assert r.returncode == 0, r.stderr
    assert emu.rows("cdc_generated", project_name="proj1")["count"] == 8
