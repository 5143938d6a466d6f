"""Every sink (harnesses.SINKS) through the binary, fed by the `values` source's GENERATED rows:
SIGTERM drains it with a final checkpoint and exit 0; a restart restores that checkpoint (every
writer's part) and the rows reach the sink once each, none lost; a record the sink rejects
is kept once under bad-record.policy dead-letter while the others are written, and stops the
pipeline under fail, with an error that names it."""
import json

import pytest

import cdcd_process as cdcd
from harnesses import SINKS, TOTAL, generated
from pipeline_run import PipelineRun


def pipeline(blocks, name, extra=""):
    return (f"{blocks}pipeline:\n  name: {name}\n  execution.checkpointing.interval: 300ms\n"
            f"{extra}")


@pytest.mark.parametrize("harness", SINKS, ids=lambda h: h.type)
def test_sigterm_drains_with_a_final_checkpoint_and_a_restart_resumes_from_it(
        request, tmp_path, harness):
    h = harness(request, tmp_path)
    name = f"conformance-{h.type}"
    first = PipelineRun(tmp_path, pipeline(generated(rate=20, bounded=False) + h.block(), name),
                        "first")
    runs = [first]
    final = first.drain_once(lambda: len(h.delivered(runs)) >= 5)
    shown = cdcd.run(["checkpoints", "show", "--state-dir", first.state, "--pipeline", name])
    assert shown.returncode == 0 and "sink/0" in shown.stdout, shown.stdout + shown.stderr

    second = PipelineRun(tmp_path, pipeline(generated() + h.block(), name), "second")
    runs.append(second)
    assert second.run() == 0, second.log()
    assert second.restored_checkpoint() == final, second.log()
    delivered = h.delivered(runs)
    if h.duplicates_visible:
        assert sorted(delivered) == list(range(1, TOTAL + 1)), "a row was lost or written twice"
    else:
        assert sorted(set(delivered)) == list(range(1, TOTAL + 1)), "a row was lost"


@pytest.mark.parametrize("harness", [h for h in SINKS if h.bad_record], ids=lambda h: h.type)
def test_a_rejected_record_is_dead_lettered_once_under_dead_letter_and_stops_the_pipeline_under_fail(
        request, tmp_path, harness):
    h = harness(request, tmp_path)
    dead = tmp_path / "dead.jsonl"
    blocks, rejected = h.bad_record()
    policy = f"  bad-record.policy: dead-letter\n  bad-record.dead-letter.path: {dead}\n"
    run = PipelineRun(tmp_path, pipeline(blocks, f"conformance-bad-{h.type}", policy), "bad")
    assert run.run() == 0, run.log()
    assert sorted(h.delivered([run])) == [i for i in range(1, 11) if i != rejected]
    records = [json.loads(line) for line in dead.read_text().splitlines()]
    assert [(r["stage"], r["connector"], r["reason"]) for r in records] == [
        ("sink", h.type, "rejected")]
    assert h.record_id(records[0]["record"]) == rejected

    # fail (the default): the same record stops the pipeline, and the error names it.
    (tmp_path / "fail").mkdir()
    failed = PipelineRun(tmp_path / "fail", pipeline(blocks, f"conformance-fail-{h.type}"), "fail")
    assert failed.run() == 1, failed.log()
    for words in h.failure_names(rejected):
        assert words in failed.log(), failed.log()
