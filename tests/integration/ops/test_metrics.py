"""/metrics of a running pipeline: valid Prometheus exposition, counters that move, the figures
an operator needs (records, checkpoints, channels, process), the pipeline name as a label."""
import math
import signal
import time

from prometheus_client.parser import text_string_to_metric_families

import cdcd_process as cdcd
import opslib


def scrape(port):
    status, body = opslib.get(port, "/metrics")
    assert status == 200, body
    families = {f.name: f for f in text_string_to_metric_families(body)}  # raises on invalid text
    return families, body


def value(families, family, **labels):
    """The sample of `family` whose labels include `labels` (summing when several match)."""
    samples = [s for f in families.values() for s in f.samples
               if s.name == family and all(s.labels.get(k) == v for k, v in labels.items())]
    assert samples, f"no sample {family}{labels}"
    return sum(s.value for s in samples)


def test_metrics_move_and_parse_as_prometheus_exposition(tmp_path):
    port = opslib.free_port()
    proc = opslib.start_with_admin(tmp_path, opslib.generated("metrics-test", rate=200_000), port)
    try:
        opslib.wait_ready(port, proc)
        time.sleep(0.5)  # a checkpoint or two
        first, text = scrape(port)
        time.sleep(1.5)
        second, _ = scrape(port)

        # Every sample carries the pipeline name.
        for family in second.values():
            for sample in family.samples:
                assert sample.labels.get("pipeline") == "metrics-test", sample
        assert "# TYPE cdcd_records_out_total counter" in text

        src = dict(role="source", connector="values")
        snk = dict(role="sink", connector="values")
        out1, out2 = value(first, "cdcd_records_out_total", **src), value(second, "cdcd_records_out_total", **src)
        assert 0 < out1 < out2, (out1, out2)
        assert value(second, "cdcd_records_in_total", **snk) > value(first, "cdcd_records_in_total", **snk)
        assert value(second, "cdcd_batches_total", **src) > value(first, "cdcd_batches_total", **src)
        # 200k events/s over 1.5 s: at least half of that in the window.
        assert out2 - out1 > 100_000

        # Checkpoints every 200 ms.
        assert value(second, "cdcd_checkpoints_total") > value(first, "cdcd_checkpoints_total") >= 1
        assert value(second, "cdcd_checkpoint_last_id") >= value(second, "cdcd_checkpoints_total")
        assert value(second, "cdcd_checkpoint_last_size_bytes") > 0
        assert 0 <= value(second, "cdcd_checkpoint_last_age_seconds") < 5
        assert 0 < value(second, "cdcd_checkpoint_last_duration_seconds") < 5
        assert value(second, "cdcd_checkpoint_duration_seconds_count") == value(second, "cdcd_checkpoints_total")
        assert value(second, "cdcd_restores_total") == 0
        assert value(second, "cdcd_ready") == 1

        # Channels, with their capacity.
        for channel in ("source", "writer/0"):
            occupancy = value(second, "cdcd_channel_occupancy", channel=channel)
            assert 0 <= occupancy <= value(second, "cdcd_channel_capacity", channel=channel) + 1

        # Progress of the generator run, as metrics.
        done = value(second, "cdcd_progress_items_done", connector="values", phase="generate")
        assert done > value(first, "cdcd_progress_items_done", connector="values", phase="generate")
        assert value(second, "cdcd_progress_items_total", connector="values", phase="generate") == 10_000_000

        # The process.
        rss = value(second, "cdcd_process_resident_memory_bytes")
        assert 1 << 20 < rss < 1 << 31
        assert value(second, "cdcd_process_cpu_seconds_total") > value(first, "cdcd_process_cpu_seconds_total")
        assert value(second, "cdcd_process_open_fds") > 3
        assert not math.isnan(value(second, "cdcd_process_start_time_seconds"))
    finally:
        proc.send_signal(signal.SIGTERM)
        assert cdcd.wait_exit(proc, timeout=30) == 0


def test_restore_is_counted_and_the_checkpoint_figures_survive_a_restart(tmp_path):
    port = opslib.free_port()
    yaml_text = opslib.generated("restore-test", rate=50_000)
    proc = opslib.start_with_admin(tmp_path, yaml_text, port)
    opslib.wait_ready(port, proc)
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    assert cdcd.wait_exit(proc, timeout=30) == 0

    proc = opslib.start_with_admin(tmp_path, yaml_text, port)
    try:
        opslib.wait_ready(port, proc)
        families, _ = scrape(port)
        assert value(families, "cdcd_restores_total") == 1
        assert value(families, "cdcd_checkpoint_last_id") >= 1
        assert value(families, "cdcd_checkpoint_last_timestamp_seconds") > 0
    finally:
        proc.send_signal(signal.SIGTERM)
        assert cdcd.wait_exit(proc, timeout=30) == 0


def test_admin_endpoint_is_off_unless_configured_and_can_come_from_the_yaml(tmp_path):
    port = opslib.free_port()
    yaml_text = opslib.generated("yaml-admin", rate=1000, extra_pipeline=f"  admin.address: 127.0.0.1:{port}\n")
    yaml = cdcd.write_pipeline(tmp_path, yaml_text)
    proc = cdcd.start(["run", yaml, "--state-dir", tmp_path / "s"], stderr=cdcd.subprocess.PIPE, text=True)
    try:
        opslib.wait_ready(port, proc)
        assert opslib.get(port, "/healthz") == (200, "ok\n")
        assert opslib.get(port, "/nothing-here")[0] == 404
    finally:
        proc.send_signal(signal.SIGTERM)
        assert cdcd.wait_exit(proc, timeout=30) == 0
    assert f"admin endpoint listening on http://127.0.0.1:{port}" in proc.stderr.read()

    quiet = cdcd.start(["run", cdcd.write_pipeline(tmp_path, opslib.generated("no-admin", rate=1000), "q.yaml"),
                        "--state-dir", tmp_path / "q"], stderr=cdcd.subprocess.PIPE, text=True)
    time.sleep(1.0)
    quiet.send_signal(signal.SIGTERM)
    assert cdcd.wait_exit(quiet, timeout=30) == 0
    assert "admin endpoint" not in quiet.stderr.read()


def test_bad_admin_address_is_an_error_before_the_pipeline_starts(tmp_path):
    yaml = cdcd.write_pipeline(tmp_path, opslib.generated("bad-admin", rows=10, bounded=True))
    result = cdcd.run(["run", yaml, "--state-dir", tmp_path / "s", "--admin-address", "localhost:99999"])
    assert result.returncode == 1
    assert "invalid admin address 'localhost:99999'" in result.stderr


def test_validate_checks_the_admin_address_of_the_pipeline(tmp_path):
    good = cdcd.write_pipeline(tmp_path, opslib.generated("v", rows=10, bounded=True,
                                                          extra_pipeline="  admin.address: 8081\n"), "good.yaml")
    assert cdcd.run(["validate", good]).returncode == 0
    bad = cdcd.write_pipeline(tmp_path, opslib.generated("v", rows=10, bounded=True,
                                                         extra_pipeline="  admin.address: ::1:8081\n"), "bad.yaml")
    result = cdcd.run(["validate", bad])
    assert result.returncode == 1
    assert "an IPv6 host needs brackets" in result.stderr


def wait_metric(port, family, target, timeout=30.0, **labels):
    """Scrapes until `family{labels}` reaches `target`; the last families."""
    last = {}

    def reached():
        nonlocal last
        last, _ = scrape(port)
        samples = [s for f in last.values() for s in f.samples
                   if s.name == family and all(s.labels.get(k) == v for k, v in labels.items())]
        return bool(samples) and sum(s.value for s in samples) >= target
    assert cdcd.wait_for(reached, timeout, interval=0.1), f"{family}{labels} never reached {target}"
    return last


def test_sinks_count_the_bytes_they_write(tmp_path):
    rows = 3000
    out_path = tmp_path / "out.jsonl"
    port = opslib.free_port()
    proc = opslib.start_with_admin(
        tmp_path, opslib.generated("file-bytes", rows=rows, sink="file", sink_options=f"  path: {out_path}"), port)
    try:
        opslib.wait_ready(port, proc)
        snk = dict(role="sink", connector="file")
        # Every row is written once the next checkpoint flushes the writer.
        families = wait_metric(port, "cdcd_records_out_total", rows, **snk)
        assert value(families, "cdcd_records_out_total", **snk) == rows
        assert value(families, "cdcd_bytes_out_total", **snk) == out_path.stat().st_size
        assert len(out_path.read_text().splitlines()) == rows
    finally:
        proc.send_signal(signal.SIGTERM)
        assert cdcd.wait_exit(proc, timeout=30) == 0

    # The values sink counts bytes only when it prints; events either way.
    for printing in (True, False):
        stdout_path = tmp_path / f"stdout-{printing}.txt"
        port = opslib.free_port()
        with open(stdout_path, "w") as stdout:
            proc = opslib.start_with_admin(
                tmp_path,
                opslib.generated(f"values-bytes-{printing}", rows=rows,
                                 sink_options=f"  print.enabled: {str(printing).lower()}"),
                port, extra_args=("--reset-state",), stdout=stdout)
            try:
                opslib.wait_ready(port, proc)
                snk = dict(role="sink", connector="values")
                # rows data changes and the CreateTableEvent.
                families = wait_metric(port, "cdcd_records_out_total", rows + 1, **snk)
                assert value(families, "cdcd_records_out_total", **snk) == rows + 1
                # Printed at the latest by the next checkpoint's flush.
                families = wait_metric(port, "cdcd_checkpoints_total",
                                       value(families, "cdcd_checkpoints_total") + 2)
                printed = stdout_path.stat().st_size
                assert value(families, "cdcd_bytes_out_total", **snk) == printed
                assert (printed > rows * 10) if printing else (printed == 0)
            finally:
                proc.send_signal(signal.SIGTERM)
                assert cdcd.wait_exit(proc, timeout=30) == 0
