"""Riding out outages and quotas: a few seconds of 5xx is waited out at the default backoff (a
request's 3 retries wait 2.5-5, 5-10 and 10-20 s), a request-rate quota slows the sink down
instead of failing it (throttled answers are no failures), and where max-retries ends the
pipeline the error says so."""
import re
import signal
import subprocess
import time

import cdcd_process as cdcd
from vdb_pipelines import GENERATED, dump, expected_generated, generated_source, pipeline_block, run_pipeline, sink_block


def as_state(rows):
    return {int(k): (v["version"], v["payload"]) for k, v in rows.items()}


def upsert_answers(emu, status):
    return emu.counters()["responses"].get("upsert", {}).get(str(status), 0)


def test_a_few_seconds_of_5xx_are_ridden_out_at_the_default_backoff(emu, tmp_path):
    # Every upsert fails until the outage ends, 3 s after the first failed one.
    emu.inject_faults({"kind": "error", "status": 503, "code": "ServiceUnavailable", "count": 1_000_000,
                       "match": "upsert"})
    y = generated_source(rows=300, payload=8) + sink_block(emu) + pipeline_block()
    path = cdcd.write_pipeline(tmp_path, y)
    proc = cdcd.start(["run", path, "--state-dir", tmp_path / "state"], stdout=cdcd.subprocess.DEVNULL,
                      stderr=cdcd.subprocess.PIPE, text=True)
    try:
        assert cdcd.wait_for(lambda: proc.poll() is not None or upsert_answers(emu, 503) > 0, 30)
        time.sleep(3)
        emu.clear_faults()
        stderr = proc.communicate(timeout=60)[1]
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, stderr
    assert as_state(dump(emu, GENERATED)) == expected_generated(300, 0, 0, 8)
    c = emu.counters()
    assert c["responses"]["upsert"]["503"] >= 1
    # No loss and no duplicates: every row was accepted exactly once, nothing replayed.
    assert c["rows_upserted"] == 300


def test_a_request_rate_quota_slows_the_sink_down_instead_of_failing_it(emu, tmp_path):
    emu.throttle(qps=2, match="upsert", burst=1)
    # 20 batches of 10 at 2 requests/s, with the default max-retries (3).
    y = generated_source(rows=200, payload=8) + sink_block(emu, **{"sink.bulk-flush.batch-size": 10}) + pipeline_block()
    r = run_pipeline(tmp_path, y, timeout=120)
    assert r.returncode == 0, r.stderr
    assert as_state(dump(emu, GENERATED)) == expected_generated(200, 0, 0, 8)
    c = emu.counters()
    assert c["rows_upserted"] == 200
    throttled = c["throttled"]
    assert throttled >= 2
    assert c["responses"]["upsert"]["429"] == throttled
    # Logged at a bounded rate (one line per 30 s at most), not once per throttled answer.
    lines = [line for line in r.stderr.splitlines() if "VikingDB data-plane is throttling" in line]
    assert len(lines) == 1, r.stderr
    assert "HTTP 429 RequestLimitExceeded" in lines[0] and "not counted against max-retries" in lines[0]
    assert re.search(r"sending at most [0-9.]+ requests/s", lines[0])


def test_60_consecutive_503s_end_at_max_retries_with_a_clear_error(emu, tmp_path):
    # One request (5 rows, one batch) meets 60 503s in a row: at the default max-retries (3) it
    # fails at its 4th attempt. A short backoff keeps the test quick; the count is what matters.
    emu.inject_faults({"kind": "error", "status": 503, "code": "ServiceUnavailable", "count": 60, "match": "upsert"})
    fast = {"retry.initial-backoff": "20ms", "retry.max-backoff": "40ms"}
    r = run_pipeline(tmp_path, generated_source(rows=5) + sink_block(emu, **fast) + pipeline_block())
    assert r.returncode != 0
    assert (f"VikingDB upsert into collection '{GENERATED}' failed for primary key 1 … 5 (5 records): "
            "HTTP 503 ServiceUnavailable: Injected fault from the emulator. "
            "(max-retries: 3 exhausted: 4 attempts over ") in r.stderr
    assert emu.counters()["requests"]["upsert"] == 4
    assert [f["remaining"] for f in emu.control("GET", "faults")["faults"]] == [56]


def test_60_consecutive_503s_are_ridden_out_with_max_retries_60(emu, tmp_path):
    emu.inject_faults({"kind": "error", "status": 503, "code": "ServiceUnavailable", "count": 60, "match": "upsert"})
    opts = {"max-retries": 60, "retry.initial-backoff": "20ms", "retry.max-backoff": "40ms"}
    r = run_pipeline(tmp_path, generated_source(rows=5) + sink_block(emu, **opts) + pipeline_block())
    assert r.returncode == 0, r.stderr
    assert len(dump(emu, GENERATED)) == 5
    c = emu.counters()
    assert c["responses"]["upsert"] == {"503": 60, "200": 1}
    assert c["rows_upserted"] == 5


def test_sigterm_while_every_request_is_throttled_exits_and_loses_nothing(emu, tmp_path):
    # A drain ends the sink's throttled waits (ConnectorContext::stopping): the daemon exits long
    # before pipeline.shutdown.timeout (120 s here), without a final checkpoint; a restart resumes
    # from the last checkpoint and delivers every row.
    rows = 6000
    y = (generated_source(rows=rows, payload=8, rate=400) + sink_block(emu) +
         pipeline_block(name="vdb-term", checkpoint="300ms", extra="  shutdown.timeout: 120s\n"))
    path = cdcd.write_pipeline(tmp_path, y)
    state, log = tmp_path / "state", tmp_path / "first.log"
    with open(log, "w") as err:
        proc = cdcd.start(["run", path, "--state-dir", state], stdout=subprocess.DEVNULL, stderr=err)
        try:
            assert cdcd.wait_for(lambda: emu.rows(GENERATED)["count"] >= 500 if emu.collections()
                                 else False, timeout=60)
            emu.inject_faults({"kind": "throttle", "count": 1_000_000, "match": "upsert"})
            assert cdcd.wait_for(lambda: emu.counters()["faults_injected"] >= 3, timeout=30), log.read_text()[-3000:]
            proc.send_signal(signal.SIGTERM)
            code = cdcd.wait_exit(proc, timeout=20)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    first = log.read_text()
    assert code != 0, first[-3000:]
    assert "the pipeline is stopping" in first and not re.search(r"final checkpoint \d+ written", first)
    assert emu.rows(GENERATED)["count"] < rows
    emu.clear_faults()
    again = cdcd.run(["run", path, "--state-dir", state], timeout=300)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "restored checkpoint" in again.stderr
    got = {int(k): (v["version"], v["payload"]) for k, v in dump(emu, GENERATED).items()}
    assert got == expected_generated(rows, 0, 0, 8)
