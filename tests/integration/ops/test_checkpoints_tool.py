"""`cdcd checkpoints list|show|export`: what is stored, with each source's state decoded when the
pipeline file is given, raw otherwise; never a secret."""
import json
import os
import signal

import cdcd_process as cdcd
import opslib

ROWS = 5000


def run_bounded(tmp_path, name="ckpt", extra_pipeline=""):
    yaml = cdcd.write_pipeline(tmp_path, opslib.generated(name, rows=ROWS, bounded=True, interval="10min",
                                                          extra_pipeline=extra_pipeline))
    result = cdcd.run(["run", yaml, "--state-dir", tmp_path / "state"])
    assert result.returncode == 0, result.stderr
    return yaml


def test_show_decodes_the_generator_position_with_the_pipeline_file(tmp_path):
    yaml = run_bounded(tmp_path)
    shown = cdcd.run(["checkpoints", "show", "--state-dir", tmp_path / "state", "--pipeline-file", yaml])
    assert shown.returncode == 0, shown.stderr
    c = json.loads(shown.stdout)
    assert c["pipeline"] == "ckpt"
    assert c["id"] >= 1
    assert c["fingerprint"] == {"source.type": "values", "sink.type": "values", "pipeline.parallelism": "1"}
    assert c["parts"]["source"]["state"] == {"event_set": "GENERATED", "position": ROWS, "total": ROWS}
    raw = '{"connector":"values-source","version":1,"state":{"position":%d}}' % ROWS
    assert c["parts"]["source"]["bytes"] == len(raw)
    # The schema registry's state is JSON and shown as such.
    assert c["parts"]["schema"]["state"]["upstream"][0]["table"] == "generated"
    assert c["size_bytes"] > 0 and c["created"].endswith("Z")


def test_list_and_export_without_the_pipeline_file(tmp_path):
    run_bounded(tmp_path, "first")
    run_bounded(tmp_path, "second")
    listed = cdcd.run(["checkpoints", "list", "--state-dir", tmp_path / "state"])
    assert listed.returncode == 0, listed.stderr
    rows = listed.stdout.splitlines()
    assert rows[0].split()[:2] == ["PIPELINE", "ID"]
    assert sorted(r.split()[0] for r in rows[1:]) == ["first", "second"]
    assert all("source:" in r for r in rows[1:])

    exported = cdcd.run(["checkpoints", "export", "--state-dir", tmp_path / "state", "--pipeline", "second"])
    assert exported.returncode == 0, exported.stderr
    checkpoints = json.loads(exported.stdout)
    assert [c["pipeline"] for c in checkpoints] == ["second"]
    # No pipeline file: the raw state, JSON in the connector state envelope
    # (pipeline/connector/connector_state.h).
    raw = {"connector": "values-source", "version": 1, "state": {"position": ROWS}}
    assert checkpoints[0]["parts"]["source"] == {"bytes": len(json.dumps(raw, separators=(",", ":"))),
                                                 "state": raw}

    ambiguous = cdcd.run(["checkpoints", "show", "--state-dir", tmp_path / "state"])
    assert ambiguous.returncode == 1
    assert "needs --pipeline NAME (stored: first, second)" in ambiguous.stderr
    missing = cdcd.run(["checkpoints", "show", "--state-dir", tmp_path / "state", "--pipeline", "first", "--id", "999"])
    assert missing.returncode == 1 and "no checkpoint 999" in missing.stderr
    bad = cdcd.run(["checkpoints", "frobnicate", "--state-dir", tmp_path / "state"])
    assert bad.returncode == 1 and "list, show or export" in bad.stderr


def test_secrets_never_appear(tmp_path):
    secret = "s3cr3t-pipeline-token"
    # A secret used in the YAML (here, oddly, in the pipeline name, so that it is stored).
    yaml = cdcd.write_pipeline(tmp_path, opslib.generated("${secret_values.name}", rows=100, bounded=True,
                                                          interval="10min"))
    env = dict(os.environ, CDCD_SECRET_NAME=secret)
    assert cdcd.run(["run", yaml, "--state-dir", tmp_path / "state"], env=env).returncode == 0
    for action in ("list", "show", "export"):
        out = cdcd.run(["checkpoints", action, "--state-dir", tmp_path / "state", "--pipeline-file", yaml], env=env)
        assert out.returncode == 0, out.stderr
        assert secret not in out.stdout + out.stderr
        assert "******" in out.stdout


def metric(port, name):
    status, body = opslib.get(port, "/metrics")
    assert status == 200, body
    for line in body.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"{name} not in /metrics")


def test_the_tool_reads_the_state_directory_of_a_running_daemon(tmp_path):
    secret = "s3cr3t-running-daemon"
    rate = 2000
    port = opslib.free_port()
    env = dict(os.environ, CDCD_SECRET_NAME=secret)
    proc = opslib.start_with_admin(tmp_path, opslib.generated("${secret_values.name}", rate=rate, interval="100ms"),
                                   port, env=env)
    yaml = tmp_path / "pipeline.yaml"
    try:
        opslib.wait_ready(port, proc)
        assert cdcd.wait_for(lambda: metric(port, "cdcd_checkpoint_last_id") >= 3, 20)
        positions = []
        for _ in range(3):
            before = metric(port, "cdcd_checkpoint_last_id")
            shown = cdcd.run(["checkpoints", "show", "--state-dir", tmp_path / "state", "--pipeline-file", yaml],
                             env=env)
            after = metric(port, "cdcd_checkpoint_last_id")
            assert shown.returncode == 0, shown.stderr
            assert secret not in shown.stdout + shown.stderr
            c = json.loads(shown.stdout)
            assert c["pipeline"] == "******"
            # The newest checkpoint durable when the tool opened the directory: at least the one
            # the daemon had completed before the tool started, at most the one after.
            assert before <= c["id"] <= after, (before, c["id"], after)
            state = c["parts"]["source"]["state"]
            assert state["event_set"] == "GENERATED" and state["total"] == 10_000_000
            positions.append(state["position"])
            assert cdcd.wait_for(lambda: metric(port, "cdcd_checkpoint_last_id") > after, 20)
        # The generator advances at `rate` rows/s: positions grow and stay plausible.
        assert 0 < positions[0] < positions[1] < positions[2] < 10_000_000, positions
        for action in ("list", "export"):
            out = cdcd.run(["checkpoints", action, "--state-dir", tmp_path / "state"], env=env)
            assert out.returncode == 0, out.stderr
            assert "lock" not in out.stderr.lower()
            assert out.stdout.strip()
        exported = json.loads(cdcd.run(["checkpoints", "export", "--state-dir", tmp_path / "state",
                                        "--pipeline-file", yaml], env=env).stdout)
        assert [c["pipeline"] for c in exported] == ["******"] * len(exported)
        ids = [c["id"] for c in exported]
        assert ids == sorted(ids) and 1 <= len(ids) <= 3
        assert proc.poll() is None, "the daemon must keep running while the tool reads"
    finally:
        proc.send_signal(signal.SIGTERM)
        assert cdcd.wait_exit(proc, timeout=30) == 0
    # After the drain the tool sees the final checkpoint.
    final = json.loads(cdcd.run(["checkpoints", "show", "--state-dir", tmp_path / "state", "--pipeline-file", yaml],
                                env=env).stdout)
    assert final["id"] >= ids[-1]
    assert final["parts"]["source"]["state"]["position"] >= positions[-1]
