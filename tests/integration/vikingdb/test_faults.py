"""Retries through injected 5xx, connection resets and throttling; no retry on a 4xx, whose error
names the record's primary key and the server's message. A short retry.initial-backoff keeps
these quick (test_outages.py runs at the default)."""
from vdb_pipelines import GENERATED, dump, expected_generated, generated_source, pipeline_block, run_pipeline, sink_block

FAST = {"retry.initial-backoff": "100ms"}


def as_state(rows):
    return {int(k): (v["version"], v["payload"]) for k, v in rows.items()}


def test_5xx_resets_and_throttling_are_retried(emu, tmp_path):
    emu.inject_faults({"kind": "error", "status": 503, "code": "ServiceUnavailable", "count": 2, "match": "upsert"},
                      {"kind": "throttle", "count": 2, "match": "upsert"},
                      {"kind": "reset", "count": 1, "match": "delete"},
                      {"kind": "error", "status": 500, "code": "InternalError", "count": 1,
                       "match": "CreateVikingdbCollection"})
    y = (generated_source(rows=600, updates=1, delete_every=4, payload=8) +
         sink_block(emu, **{"max-retries": 6}, **FAST) + pipeline_block())
    r = run_pipeline(tmp_path, y)
    assert r.returncode == 0, r.stderr
    assert as_state(dump(emu, GENERATED)) == expected_generated(600, 1, 4, 8)
    c = emu.counters()
    assert c["faults_injected"] == 6
    assert c["responses"]["upsert"]["503"] == 2 and c["responses"]["upsert"]["429"] == 2
    assert c["responses"]["CreateVikingdbCollection"]["500"] == 1


def test_rate_limited_server_is_waited_for(emu, tmp_path):
    emu.throttle(qps=15, match="upsert", burst=1)
    y = (generated_source(rows=200, payload=8) +
         sink_block(emu, **{"sink.bulk-flush.batch-size": 10, "max-retries": 10}) + pipeline_block())
    r = run_pipeline(tmp_path, y)
    assert r.returncode == 0, r.stderr
    assert len(dump(emu, GENERATED)) == 200
    assert emu.counters()["throttled"] > 0


def test_retries_run_out(emu, tmp_path):
    emu.inject_faults({"kind": "error", "status": 503, "code": "ServiceUnavailable", "count": 5, "match": "upsert"})
    y = generated_source(rows=5) + sink_block(emu, **{"max-retries": 2}, **FAST) + pipeline_block()
    r = run_pipeline(tmp_path, y)
    assert r.returncode != 0
    assert "HTTP 503 ServiceUnavailable" in r.stderr and "(max-retries: 2 exhausted: 3 attempts over" in r.stderr
    assert emu.counters()["requests"]["upsert"] == 3


def test_4xx_is_not_retried_and_names_the_record(emu, tmp_path):
    emu.configure(string_max_bytes=100)
    # Row 37's payload alone is too long: the rejected batch is split until the record is found.
    y = (generated_source(rows=60, payload=8) + textwrap_transform() + sink_block(emu, **{"max-retries": 5}) +
         pipeline_block())
    r = run_pipeline(tmp_path, y)
    assert r.returncode != 0
    assert f"VikingDB upsert into collection '{GENERATED}' failed for primary key 37: HTTP 400 InvalidParameter" in r.stderr
    assert "exceeds 100 bytes" in r.stderr
    c = emu.counters()
    assert c["responses"]["upsert"].get("500") is None
    assert c["responses"]["upsert"]["400"] <= 8  # one per bisection level, no retries


def textwrap_transform():
    return ("transform:\n  - source-table: default_namespace.default_schema.generated\n"
            "    projection: id, version, IF(id = CAST(37 AS BIGINT), RPAD(payload, 200, 'y'), payload) AS payload\n")
