"""An answer over the sink's 4 MiB limit (docs/reliability.md, "Limits") stops the pipeline with
the URL and the limit, after one request: it is not retried, and it is not read whole."""
import cdcd_process as cdcd
from vdb_pipelines import generated_source, pipeline_block, sink_block


def test_an_oversized_upsert_answer_stops_the_pipeline_clearly(emu, tmp_path):
    emu.inject_faults({"kind": "oversize", "size": 256 << 20, "count": 100, "match": "upsert"})
    y = generated_source(rows=10, payload=8) + sink_block(emu, **{"max-retries": 5}) + pipeline_block()
    r = cdcd.run(["run", cdcd.write_pipeline(tmp_path, y), "--state-dir", tmp_path / "state"], timeout=120)
    assert r.returncode == 1, r.stderr
    assert "HTTP response too large" in r.stderr
    assert "/api/vikingdb/data/upsert" in r.stderr
    assert "the body exceeds 4194304 bytes (4 MiB), the vikingdb sink's fixed limit on API answers" in r.stderr
    assert emu.counters()["requests"]["upsert"] == 1
