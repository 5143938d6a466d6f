"""pipeline.parallelism above 1: the file sink's writers run on threads of their own when the
process may use more than one CPU, and share the pipeline's loop when it may not (taskset) or when
the sink's writers share state (values); the output is the same either way."""
import os
import shutil
import subprocess

import pytest

import cdcd_process as cdcd

ROWS = 5_000


def pipeline(sink):
    return f"""source:
  type: values
  event-set.id: GENERATED
  generator.rows: {ROWS}
  generator.updates-per-row: 1
{sink}pipeline:
  parallelism: 2
  execution.checkpointing.interval: 100ms
"""


def file_sink(out):
    return f"sink:\n  type: file\n  path: {out}\n"


def run(tmp_path, yaml, pin_to_one_cpu=False):
    prefix = [shutil.which("taskset"), "-c", "0"] if pin_to_one_cpu else []
    proc = subprocess.run(prefix + [cdcd.cdcd_bin(), "run", str(yaml), "--state-dir", str(tmp_path / "state")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stderr


def lines(out):
    return sorted(line for i in range(2) for line in (out.parent / f"{out.name}.{i}").read_text().splitlines())


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")
def test_file_sink_writers_run_on_threads_of_their_own_unless_pinned_to_one_cpu(tmp_path):
    threaded, pinned = tmp_path / "threaded", tmp_path / "pinned"
    threaded.mkdir()
    pinned.mkdir()
    log = run(threaded, cdcd.write_pipeline(threaded, pipeline(file_sink(threaded / "out.jsonl"))))
    assert "sink writers: 2 on threads of their own" in log
    log = run(pinned, cdcd.write_pipeline(pinned, pipeline(file_sink(pinned / "out.jsonl"))),
              pin_to_one_cpu=True)
    assert "sink writers: 2 on the pipeline's event loop (1 CPU available)" in log
    got = lines(threaded / "out.jsonl")
    assert len(got) == 2 * ROWS
    assert got == lines(pinned / "out.jsonl")


def test_values_sink_writers_share_the_loop(tmp_path):
    yaml = cdcd.write_pipeline(tmp_path, pipeline("sink:\n  type: values\n  print.enabled: false\n"))
    log = run(tmp_path, yaml)
    assert "sink writers: 2 on the pipeline's event loop (sink `values` shares state between its writers)" in log
