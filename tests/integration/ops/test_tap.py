"""`cdcd tap` against a running daemon: JSON lines at each point, the table filter, the limit and
the rate, sensitive columns hidden, tapping switched off (403), bad requests (400), an unreachable
daemon, a pipeline whose output is the same with taps attached, and taps of a source split into
readers that route their own rows."""
import json
import os
import subprocess
import time

import pytest

import cdcd_process as cdcd
import opslib
from generated_changes import output_files

ROWS = 40_000


def tapped_pipeline(name, out, rate=5_000, extra="", transform=True):
    transform_block = """transform:
  - source-table: \\.*.\\.*.\\.*
    projection: \\*, UPPER(SUBSTR(payload, 1, 3)) AS shout
""" if transform else ""
    return f"""
source:
  type: values
  event-set.id: GENERATED
  generator.rows: {ROWS}
  generator.rate: {rate}
{transform_block}route:
  - source-table: \\.*.\\.*.generated
    sink-table: ods.orders
sink:
  type: file
  path: {out}
pipeline:
  name: {name}
  execution.checkpointing.interval: 200ms
  tap.sensitive-columns: "*.payload, ods.orders.shout"
{extra}"""


def tap(port, *args, timeout=30):
    return cdcd.run(["tap", str(port), *args], timeout=timeout)


def lines_of(out):
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_tap_streams_each_point_filtered_limited_and_redacted_and_leaves_the_output_alone(tmp_path):
    port = opslib.free_port()
    out = tmp_path / "out.jsonl"
    proc = opslib.start_with_admin(tmp_path, tapped_pipeline("tap-demo", out), port)
    try:
        opslib.wait_ready(port, proc)
        # A tap without a limit, from start to end: it ends by itself, 0, when the daemon does.
        follower = cdcd.start(["tap", str(port), "--point", "sink", "--rate", "50"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)

        source = tap(port, "--point", "source", "--limit", "5")
        assert source.returncode == 0, source.stderr
        rows = lines_of(source)
        assert len(rows) == 5
        for row in rows:
            assert row["point"] == "source"
            assert row["table"] == "default_namespace.default_schema.generated"
            assert row["op"] == "insert"
            assert set(row["after"]) == {"id", "version", "payload"}  # before the transform
            assert row["after"]["payload"] == "***"

        transform = tap(port, "--limit", "5")  # the transform point by default
        assert transform.returncode == 0, transform.stderr
        rows = lines_of(transform)
        assert len(rows) == 5
        for row in rows:
            assert row["point"] == "transform" and row["table"] == "ods.orders"  # routed
            assert row["after"]["payload"] == "***" and row["after"]["shout"] == "***"
            assert isinstance(row["after"]["id"], int) and row["after"]["version"] == 0
        assert "xxx" not in transform.stdout.lower()

        sink = tap(port, "--point", "sink", "--limit", "3")
        assert sink.returncode == 0, sink.stderr
        assert [r["writer"] for r in lines_of(sink)] == [0, 0, 0]

        # The table filter: a selector naming another table gets nothing while this one flows.
        other = cdcd.start(["tap", str(port), "--table", "ods.nope", "--limit", "1"], stdout=subprocess.PIPE,
                           text=True)
        matching = tap(port, "--point", "source", "--table", "\\.*.\\.*.gener\\.*", "--limit", "3")
        assert matching.returncode == 0 and len(lines_of(matching)) == 3
        time.sleep(1)
        assert other.poll() is None
        other.terminate()
        assert other.communicate(timeout=10)[0] == ""

        # The rate: 20 a second, a tenth of a second's worth at once.
        started = time.monotonic()
        slow = tap(port, "--rate", "20", "--limit", "22")
        assert slow.returncode == 0 and len(lines_of(slow)) == 22
        assert time.monotonic() - started >= 0.9

        # Bad requests are answered 400 naming the parameter.
        status, body = opslib.get(port, "/tap?rate=0")
        assert status == 400 and "parameter rate" in body
        status, body = opslib.get(port, "/tap?point=middle")
        assert status == 400 and "parameter point" in body
        metrics = opslib.get(port, "/metrics")[1]
        assert 'cdcd_tap_lines_sent_total{pipeline="tap-demo",point="transform"}' in metrics
        assert 'cdcd_taps_attached{pipeline="tap-demo",point="sink"} 1' in metrics  # the follower

        assert cdcd.wait_exit(proc, 60) == 0
        follower_out, follower_err = follower.communicate(timeout=10)
        assert follower.returncode == 0, follower_err
        assert all(json.loads(line)["point"] == "sink" for line in follower_out.splitlines())
        assert len(follower_out.splitlines()) >= 10
    finally:
        if proc.poll() is None:
            proc.terminate()
            cdcd.wait_exit(proc, 20)

    # Every row reached the file once, with its values: the taps took copies only.
    ids = []
    for line in out.read_text().splitlines():
        after = json.loads(line)["after"]
        assert after["payload"].startswith(f"{after['id']}-0-xx")
        assert after["shout"] == after["payload"][:3].upper()
        ids.append(after["id"])
    assert sorted(ids) == list(range(1, ROWS + 1))


def test_tapping_switched_off_answers_403_and_the_cli_says_why(tmp_path):
    port = opslib.free_port()
    yaml = tapped_pipeline("tap-off", tmp_path / "out.jsonl", extra="  tap.enabled: false\n")
    proc = opslib.start_with_admin(tmp_path, yaml, port)
    try:
        opslib.wait_ready(port, proc)
        status, body = opslib.get(port, "/tap")
        assert status == 403 and "pipeline.tap.enabled: false" in body
        refused = tap(port, "--limit", "1")
        assert refused.returncode == 1
        assert refused.stdout == ""
        assert "HTTP 403" in refused.stderr and "switched off" in refused.stderr
    finally:
        proc.terminate()
        cdcd.wait_exit(proc, 20)


def test_tap_of_no_daemon_exits_1_and_a_bad_sensitive_column_is_refused_at_validate(tmp_path):
    gone = tap(opslib.free_port(), "--limit", "1")
    assert gone.returncode == 1
    assert "cannot connect" in gone.stderr and "--admin-address" in gone.stderr
    bad = cdcd.write_pipeline(tmp_path, tapped_pipeline("tap-bad", tmp_path / "o.jsonl").replace(
        '"*.payload, ods.orders.shout"', "password"))
    checked = cdcd.run(["validate", bad])
    assert checked.returncode == 1
    assert "tap.sensitive-columns" in checked.stderr and "'password' must be TABLE.COLUMN" in checked.stderr


def test_tap_at_the_source_shows_rows_of_a_table_no_transform_selects_before_and_after_a_restart(tmp_path):
    # The transform selects another table, so its state does not hold this one's schema. (GENERATED
    # announces its table again after a restore; the restore of such schemas without that is
    # transform_operator_test's "upstream schemas" case.)
    yaml = f"""
source:
  type: values
  event-set.id: GENERATED
  generator.rows: 100000000
  generator.bounded: false
  generator.rate: 2000
transform:
  - source-table: other.db.t
    projection: \\*
sink:
  type: values
  print.enabled: false
pipeline:
  name: tap-restart
  execution.checkpointing.interval: 200ms
"""
    for attempt in ("first", "restarted"):
        port = opslib.free_port()
        proc = opslib.start_with_admin(tmp_path, yaml, port)
        try:
            opslib.wait_ready(port, proc)
            out = tap(port, "--point", "source", "--limit", "3", timeout=20)
            assert out.returncode == 0, (attempt, out.stderr)
            rows = lines_of(out)
            assert len(rows) == 3 and all(set(r["after"]) == {"id", "version", "payload"} for r in rows), attempt
        finally:
            proc.terminate()
            assert cdcd.wait_exit(proc, 20) == 0
        log = proc.stderr.read()
        assert ("restored checkpoint" in log) == (attempt == "restarted"), log


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="the source splits only on two CPUs")
def test_taps_see_a_split_source_whose_readers_route_their_own_rows(tmp_path):
    # At parallelism 2 the source's readers route their rows themselves and send them straight to
    # the writers; while a tap is attached they send them through the loop, where the taps are.
    out = tmp_path / "out.jsonl"
    yaml = tapped_pipeline("tap-readers", out, rate=8000, extra="  parallelism: 2\n",
                           transform=False)
    port = opslib.free_port()
    proc = opslib.start_with_admin(tmp_path, yaml, port)
    try:
        opslib.wait_ready(port, proc)
        time.sleep(0.5)  # the readers route their own rows by now
        source = tap(port, "--point", "source", "--limit", "20")
        assert source.returncode == 0, source.stderr
        rows = lines_of(source)
        assert len(rows) == 20
        assert {r["table"] for r in rows} == {"default_namespace.default_schema.generated"}
        sink = tap(port, "--point", "sink", "--limit", "20")
        assert sink.returncode == 0, sink.stderr
        rows = lines_of(sink)
        assert len(rows) == 20 and {r["table"] for r in rows} == {"ods.orders"}
        assert {r["writer"] for r in rows} <= {0, 1}
        assert cdcd.wait_exit(proc, 60) == 0
    finally:
        if proc.poll() is None:
            proc.terminate()
            cdcd.wait_exit(proc, 20)
    assert "source readers: 2 on the sink writers' threads" in proc.stderr.read()
    ids = []
    for path in output_files(out, 2):
        for line in path.read_text().splitlines():
            change = json.loads(line)
            assert change["source"]["db"] == "ods" and change["source"]["table"] == "orders"
            ids.append(change["after"]["id"])
    assert sorted(ids) == list(range(1, ROWS + 1))
