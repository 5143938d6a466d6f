"""A host clock more than 15 minutes from VikingDB's: every request signed with the access key
(X-Date) is refused (400 InvalidTimestamp). The pipeline fails, naming the cause and the cure
rather than only VikingDB's words, and loses nothing: once the clock is right, the restart
delivers every row."""
from vdb_pipelines import GENERATED, dump, expected_generated, generated_source, pipeline_block, run_pipeline, sink_block


def test_a_skewed_clock_fails_the_pipeline_naming_it_and_the_restart_delivers_everything(emu, tmp_path):
    # The access key alone: every request, the data plane's too, is signed with the time.
    y = generated_source(rows=200, payload=8) + sink_block(emu, **{"api-key": None}) + pipeline_block()
    emu.configure(clock_offset_seconds=3600)  # the server an hour ahead: every request an hour old
    try:
        r = run_pipeline(tmp_path, y, timeout=120)
    finally:
        emu.configure(clock_offset_seconds=0)
    assert r.returncode != 0
    assert "InvalidTimestamp" in r.stderr, r.stderr[-3000:]
    assert "this host's clock is more than 15 minutes from VikingDB's" in r.stderr, r.stderr[-3000:]
    assert "bad record" not in r.stderr  # the host's problem, not a record's
    r = run_pipeline(tmp_path, y, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    assert {int(k): (v["version"], v["payload"]) for k, v in dump(emu, GENERATED).items()} == \
        expected_generated(200, 0, 0, 8)
