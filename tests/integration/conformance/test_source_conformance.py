"""Every source (harnesses.SOURCES) through the binary: SIGTERM drains it with a final checkpoint
and exit 0; a restart restores that checkpoint and the source goes on where it stopped, so each
record reaches the sink exactly once; a record it cannot decode stops the pipeline under
bad-record.policy fail, naming its position, and under dead-letter is kept once with its position
while the good ones go on."""
import json

import pytest

import cdcd_process as cdcd
from harnesses import SOURCES, TOTAL
from pipeline_run import PipelineRun


def pipeline(source_block, out, name, extra=""):
    return (f"{source_block}sink:\n  type: file\n  path: {out}\n"
            f"pipeline:\n  name: {name}\n  execution.checkpointing.interval: 300ms\n{extra}")


def ids(h, path):
    """The ids of the rows the file sink wrote, in order."""
    if not path.exists():
        return []
    return [h.id_of(json.loads(line)["after"]) for line in path.read_text().splitlines() if line]


def lines(path):
    return path.read_text().splitlines() if path.exists() else []


@pytest.mark.parametrize("harness", SOURCES, ids=lambda h: h.type)
def test_sigterm_drains_with_a_final_checkpoint_and_a_restart_resumes_from_it(
        request, tmp_path, harness):
    h = harness(request)
    out = tmp_path / "out.jsonl"
    h.prepare()
    first = PipelineRun(tmp_path, pipeline(h.block(1), out, f"conformance-{h.type}"), "first")
    final = first.drain_once(lambda: h.first_half_delivered(ids(h, out)))
    listed = cdcd.run(["checkpoints", "list", "--state-dir", first.state])
    assert listed.returncode == 0 and f" {final} " in listed.stdout, listed.stdout + listed.stderr

    h.between_runs()
    second = PipelineRun(tmp_path, pipeline(h.block(2), out, f"conformance-{h.type}"), "second")
    try:
        second.start()
        assert cdcd.wait_for(lambda: len(ids(h, out)) >= TOTAL, timeout=30), second.log()
        code = cdcd.wait_exit(second.proc, 30) if h.ends_by_itself else second.terminate()
        assert code == 0, second.log()
    finally:
        second.kill()
    assert second.restored_checkpoint() == final, second.log()
    delivered = ids(h, out)
    assert sorted(delivered) == list(range(1, TOTAL + 1)), "a record was lost or written twice"


@pytest.mark.parametrize("harness", [h for h in SOURCES if h.bad_record], ids=lambda h: h.type)
def test_an_undecodable_record_stops_the_pipeline_under_fail_and_is_dead_lettered_once_under_dead_letter(
        request, tmp_path, harness):
    h = harness(request)
    out, dead = tmp_path / "out.jsonl", tmp_path / "dead.jsonl"
    block, position, good = h.bad_record()

    # fail (the default): the pipeline stops, naming the record's position.
    (tmp_path / "fail").mkdir()
    failed = PipelineRun(tmp_path / "fail", pipeline(block, tmp_path / "fail.jsonl",
                                                     f"conformance-fail-{h.type}"), "fail")
    assert failed.run() == 1, failed.log()
    assert position in failed.log(), failed.log()

    # dead-letter: kept once with its position, the good records go on.
    policy = f"  bad-record.policy: dead-letter\n  bad-record.dead-letter.path: {dead}\n"
    run = PipelineRun(tmp_path, pipeline(block, out, f"conformance-bad-{h.type}", policy), "bad")
    try:
        run.start()
        # The dead-letter line is committed with the checkpoint after it.
        assert cdcd.wait_for(lambda: ids(h, out) == good and lines(dead), timeout=30), run.log()
        assert run.terminate() == 0, run.log()
    finally:
        run.kill()
    assert ids(h, out) == good
    records = [json.loads(line) for line in lines(dead)]
    assert [(r["stage"], r["connector"], r["reason"], r["position"]) for r in records] == [
        ("source", h.type, "parse-error", position)]
