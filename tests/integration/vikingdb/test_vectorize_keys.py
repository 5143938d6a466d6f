"""Spec 002 字段级参数: `vikingdb.vectorize.<param>` configures the Vectorize of auto-created
collections (the dense model's parameters); a kind may also be given whole as the API's JSON."""
from vdb_pipelines import GENERATED, generated_source, pipeline_block, run_pipeline, sink_block


def test_the_specs_flat_vectorize_keys_configure_the_dense_model(emu, tmp_path):
    y = generated_source(rows=3) + sink_block(emu, **{
        "vikingdb.field.payload.type": "text",
        "vikingdb.vectorize.model-name": "bge-m3",
        "vikingdb.vectorize.text-field": "payload",
        "vikingdb.vectorize.dim": 8,
        "vikingdb.vectorize.sparse": '{"ModelName": "bge-m3", "TextField": "payload"}',
    }) + pipeline_block()
    r = run_pipeline(tmp_path, y)
    assert r.returncode == 0, r.stderr
    v = emu.collection(GENERATED)["Vectorize"]
    assert v["Dense"]["ModelName"] == "bge-m3" and v["Dense"]["TextField"] == "payload"
    assert v["Dense"]["Dim"] == 8
    assert v["Sparse"]["ModelName"] == "bge-m3"
    assert emu.rows(GENERATED)["count"] == 3
    assert emu.counters()["upsert_rows_histogram"] == {"1": 3}  # one record per request


def test_a_vectorize_object_that_is_not_json_is_refused(emu, tmp_path):
    y = generated_source(rows=3) + sink_block(emu, **{"vikingdb.vectorize.dense": "bge-m3"}) + pipeline_block()
    r = run_pipeline(tmp_path, y)
    assert r.returncode != 0
    assert "`vikingdb.vectorize.dense` must be a JSON object" in r.stderr
    assert emu.collections() == []
