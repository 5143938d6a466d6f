"""oss-cdc's own series on /metrics while it runs against the OSS and MNS emulators: requests by
operation and status (matching what the emulators counted), retries, errors, the records rate
limiter, bytes and records read."""
import socket

import cdcd_process as cdcd
from metrics_scrape import label_values, requests_by_endpoint, scrape, total
from oss_helpers import Daemon, pipeline

SRC = dict(role="source", connector="oss-cdc")
OPERATIONS = {"ListObjectsV2", "GetObject", "BatchReceiveMessage", "BatchDeleteMessage", "DeleteMessage",
              "ChangeMessageVisibility"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_oss_and_mns_requests_retries_and_limiter_waits_are_exposed(emu, tmp_path):
    emu.create_bucket("b1")
    emu.mns.create_queue("q1", visibility_timeout=30)
    emu.add_notification("b1", "q1")
    emu.put_objects("b1", [{"key": f"data/{i}", "content": "x" * 10} for i in range(8)])
    emu.inject_fault("ListObjectsV2", "error", count=1, status=503)
    emu.mns.inject_fault("BatchReceiveMessage", "error", count=1, status=503)
    port = free_port()
    yaml = pipeline(emu, **{"scan.startup.mode": "INITIAL", "oss-endpoint": emu.endpoint,
                            "oss-region": "cn-hangzhou", "oss-bucket": "b1", "path": "data/",
                            "mns.endpoint": emu.mns.url, "mns.region": "cn-hangzhou", "mns.queue-name": "q1",
                            "mns.polling-wait-time": "1s"})
    d = Daemon(tmp_path, yaml + f"  admin.address: 127.0.0.1:{port}\n").start()
    try:
        assert d.wait_events(lambda ev: len(ev) >= 8, 30), d.stderr()
        emu.put_objects("b1", [{"key": "data/new", "content": "y"}], notify=True)
        assert d.wait_events(lambda ev: len(ev) >= 9, 30), d.stderr()
        # The message is deleted once the checkpoint after it completes.
        assert cdcd.wait_for(lambda: emu.mns.messages("q1") == [], 20)

        oss_before, mns_before = emu.counters(), emu.mns.counters()
        samples, body = scrape(port)
        oss_after, mns_after = emu.counters(), emu.mns.counters()
        seen = requests_by_endpoint(samples, **SRC)
        assert set(seen) <= OPERATIONS and {"ListObjectsV2", "BatchReceiveMessage"} <= set(seen), seen
        # The snapshot listed once, after one 503 that was retried; nothing lists any more.
        assert seen["ListObjectsV2"] == {"503": 1, "200": oss_after["ListObjectsV2"] - 1}
        assert oss_before["ListObjectsV2"] == oss_after["ListObjectsV2"]
        # Receives are long polls: cdcd counts one when answered, the emulator when received.
        receives = sum(seen["BatchReceiveMessage"].values())
        assert mns_before["BatchReceiveMessage"] - 1 <= receives <= mns_after["BatchReceiveMessage"]
        assert seen["BatchReceiveMessage"].get("503") == 1
        deletes = sum(sum(seen.get(op, {}).values()) for op in ("BatchDeleteMessage", "DeleteMessage"))
        assert deletes >= 1 and deletes == sum(mns_after.get(op, 0) for op in ("BatchDeleteMessage", "DeleteMessage"))
        assert label_values(samples, "cdcd_http_request_duration_seconds_count", "endpoint", **SRC) == set(seen)

        assert total(samples, "cdcd_errors_total", **SRC) >= 2
        assert total(samples, "cdcd_retries_total", **SRC) >= 2
        assert total(samples, "cdcd_records_in_total", **SRC) == 9
        assert total(samples, "cdcd_records_out_total", **SRC) >= 9
        assert total(samples, "cdcd_bytes_in_total", **SRC) > 500
        assert emu.access_key_secret not in body
        # The snapshot's progress (total unknown while listing), as metrics and in the log.
        progress = dict(connector="oss-cdc", phase="snapshot")
        assert total(samples, "cdcd_progress_items_done", **progress) == 8
        assert total(samples, "cdcd_progress_items_total", **progress) == 0
        assert "oss-cdc snapshot: done, 8 items" in d.stderr()
    finally:
        assert d.stop() == 0


def test_the_records_rate_limit_waits_are_exposed(emu, tmp_path):
    emu.create_bucket("b1")
    emu.put_objects("b1", [{"key": f"k/{i:03}", "content": "z"} for i in range(30)])
    port = free_port()
    # 10 records/s with a burst of 10 and pages of 5: the 30 records take about 2 s of waiting.
    yaml = pipeline(emu, **{"scan.startup.mode": "LATEST_OFFSET", "oss-endpoint": emu.endpoint,
                            "oss-region": "cn-hangzhou", "oss-bucket": "b1", "scan.incremental.mode": "POLLING",
                            "polling.interval": "100ms",
                            "scan.rate-limit.records-per-second": 10})
    d = Daemon(tmp_path, yaml + f"  admin.address: 127.0.0.1:{port}\n").start()
    try:
        assert cdcd.wait_for(lambda: emu.counters().get("ListObjectsV2", 0) >= 1, 20), d.stderr()
        emu.put_objects("b1", [{"key": f"n/{i:03}", "content": "z"} for i in range(30)])
        assert d.wait_events(lambda ev: len(ev) >= 30, 30), d.stderr()
        samples, _ = scrape(port)
        assert total(samples, "cdcd_rate_limiter_wait_seconds_count", limiter="records", **SRC) >= 1
        assert total(samples, "cdcd_rate_limiter_wait_seconds_sum", limiter="records", **SRC) > 0.5
        assert total(samples, "cdcd_records_in_total", **SRC) == 30
        # Scan progress: the baseline listed 30 objects; a later scan expects the 30 it tracks.
        assert total(samples, "cdcd_progress_items_done", connector="oss-cdc", phase="baseline scan") == 30
        assert total(samples, "cdcd_progress_items_total", connector="oss-cdc", phase="scan") >= 30
    finally:
        assert d.stop() == 0
