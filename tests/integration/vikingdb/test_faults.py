"""Retries through injected 5xx, connection resets and throttling; no retry on a 4xx, whose error
names the record's primary key and the server's message. A short retry.initial-backoff keeps
these quick (test_outages.py runs at the default)."""
import json

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


def textwrap_transform(too_long="id = CAST(37 AS BIGINT)"):
    return ("transform:\n  - source-table: default_namespace.default_schema.generated\n"
            f"    projection: id, version, IF({too_long}, RPAD(payload, 200, 'y'), payload) AS payload\n")


def test_records_refused_for_their_data_are_dead_lettered_and_the_rest_delivered(emu, tmp_path):
    # bad-record.policy dead-letter: rows 37 and 45 are each too long; their batch is split until
    # just those two are left, which go to the dead-letter file; all 58 others are upserted.
    emu.configure(string_max_bytes=100)
    dead = tmp_path / "dead.jsonl"
    y = (generated_source(rows=60, payload=8) +
         textwrap_transform("id = CAST(37 AS BIGINT) OR id = CAST(45 AS BIGINT)") +
         sink_block(emu, **{"max-retries": 5}) +
         pipeline_block(extra=f"  bad-record.policy: dead-letter\n  bad-record.dead-letter.path: {dead}\n"))
    r = run_pipeline(tmp_path, y)
    assert r.returncode == 0, r.stderr[-3000:]
    rows = dump(emu, GENERATED)
    assert sorted(int(k) for k in rows) == [i for i in range(1, 61) if i not in (37, 45)]
    records = [json.loads(x) for x in dead.read_text().splitlines()]
    assert [(d["stage"], d["connector"], d["reason"]) for d in records] == [("sink", "vikingdb", "rejected")] * 2
    assert sorted(d["position"] for d in records) == [
        f"collection '{GENERATED}' upsert of primary key 37", f"collection '{GENERATED}' upsert of primary key 45"]
    assert all(d["error"].startswith("HTTP 400 InvalidParameter: ") and "exceeds 100 bytes" in d["error"]
               for d in records)
    sent = {json.loads(d["record"])["id"]: json.loads(d["record"]) for d in records}
    assert sorted(sent) == [37, 45] and sent[37]["payload"].startswith("37-0-") and len(sent[37]["payload"]) == 200
    c = emu.counters()
    assert c["responses"]["upsert"].get("500") is None and c["faults_injected"] == 0


def test_records_refused_for_their_data_are_skipped_under_skip(emu, tmp_path):
    emu.configure(string_max_bytes=100)
    y = (generated_source(rows=60, payload=8) + textwrap_transform() + sink_block(emu) +
         pipeline_block(extra="  bad-record.policy: skip\n"))
    r = run_pipeline(tmp_path, y)
    assert r.returncode == 0, r.stderr[-3000:]
    assert sorted(int(k) for k in dump(emu, GENERATED)) == [i for i in range(1, 61) if i != 37]
    assert f"collection '{GENERATED}' upsert of primary key 37" in r.stderr


def test_credentials_refused_are_no_bad_record_even_under_skip(emu, tmp_path):
    # An unknown API key is the sink's problem, not the record's: the pipeline fails, nothing is
    # skipped.
    y = generated_source(rows=10) + sink_block(emu, **{"api-key": "wrong"}) + pipeline_block(
        extra="  bad-record.policy: skip\n")
    r = run_pipeline(tmp_path, y)
    assert r.returncode != 0
    assert "HTTP 401 Unauthorized" in r.stderr and "bad record" not in r.stderr
