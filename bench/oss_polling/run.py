#!/usr/bin/env python3
"""oss-cdc benchmark (not a test): POLLING over 1,000,000 objects in the OSS emulator, and MNS
consumption throughput. Writes bench/reports/oss.md and exits 0.

  python3 bench/oss_polling/run.py [--objects 1000000] [--messages 20000]

Measured in one run, side by side:
  * raw listing: a minimal Python client signs (V1) and pages ListObjectsV2 (1000 keys/page)
    over the whole bucket — the emulator's own speed, the floor for any client;
  * cdcd POLLING LATEST_OFFSET: time of the first (baseline) scan from cdcd's log;
  * steady state: CPU seconds cdcd spends per further scan (utime+stime from /proc between scans);
  * state size: the source part of the checkpoint (`cdcd checkpoints list`) / tracked objects,
    and the daemon's RSS;
  * MNS: events/s for N queued OSS notifications, mns.batch-size 16, batch delete.
"""
import argparse
import base64
import hashlib
import hmac
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from email.utils import formatdate

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests/integration"))
sys.path.insert(0, str(REPO / "tests/integration/oss"))
import cdcd_process as cdcd  # noqa: E402
from oss_helpers import OssEmulator, source_yaml  # noqa: E402

CLK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK


def raw_listing(emu, bucket: str) -> tuple[float, int, int]:
    """Pages the whole bucket with a minimal signed client; returns (seconds, objects, pages)."""
    token, objects, pages = "", 0, 0
    start = time.monotonic()
    while True:
        date = formatdate(usegmt=True)
        resource = f"/{bucket}/" + (f"?continuation-token={token}" if token else "")
        sig = base64.b64encode(hmac.new(emu.access_key_secret.encode(), f"GET\n\n\n{date}\n{resource}".encode(),
                                        hashlib.sha1).digest()).decode()
        q = "list-type=2&max-keys=1000&encoding-type=url" + (f"&continuation-token={urllib.parse.quote(token, safe='')}" if token else "")
        req = urllib.request.Request(f"{emu.endpoint}/{bucket}/?{q}",
                                     headers={"Date": date, "Authorization": f"OSS {emu.access_key_id}:{sig}"})
        body = urllib.request.urlopen(req).read().decode()
        pages += 1
        objects += body.count("<Contents>")  # same request as cdcd: url-encoded keys
        m = re.search(r"<NextContinuationToken>([^<]*)</NextContinuationToken>", body)
        if "<IsTruncated>true</IsTruncated>" not in body or not m:
            break
        token = urllib.parse.unquote(m.group(1))
    return time.monotonic() - start, objects, pages


def polling_bench(emu, n: int, tmp: pathlib.Path) -> dict:
    emu.create_bucket("big")
    t = time.monotonic()
    emu.seed("big", n, prefixes=["logs/2026/11/30/", "images/raw/"], key_format="object-{i:08d}.bin")
    seed_s = time.monotonic() - t
    raw_s, raw_objects, raw_pages = raw_listing(emu, "big")
    yaml = source_yaml(emu, **{"scan.incremental.mode": "POLLING", "oss-endpoint": emu.endpoint,
                               "oss-region": "cn-hangzhou", "oss-bucket": "big", "polling.interval": "2s"})
    yaml += "sink:\n  type: values\n  print.enabled: false\npipeline:\n  name: oss-bench\n  execution.checkpointing.interval: 60s\n"
    path = cdcd.write_pipeline(tmp, yaml, "polling.yaml")
    err = open(tmp / "polling.err", "wb")
    proc = cdcd.start(["run", path, "--state-dir", tmp / "state"], stdout=subprocess.DEVNULL, stderr=err)
    log = lambda: (tmp / "polling.err").read_text()
    assert cdcd.wait_for(lambda: "baseline scan recorded" in log(), 600, 0.2), log()
    baseline = float(re.search(r"baseline scan recorded (\d+) objects in ([\d.]+) s", log()).group(2))
    cpu0 = cpu_seconds(proc.pid)
    scans0 = len(re.findall(r"polling big: scan \d+ listed", log()))
    k = 3
    assert cdcd.wait_for(lambda: len(re.findall(r"polling big: scan \d+ listed", log())) >= scans0 + k, 900, 0.2)
    cpu1 = cpu_seconds(proc.pid)
    scan_times = [float(x) for x in re.findall(r"polling big: scan \d+ listed \d+ objects in ([\d.]+) s", log())]
    rss = cdcd.rss_kib(proc.pid)
    proc.terminate()
    proc.wait(timeout=300)
    err.close()
    listing = cdcd.run(["checkpoints", "list", "--state-dir", tmp / "state"]).stdout
    source_bytes = max(int(x) for x in re.findall(r"source:(\d+)", listing))
    return {"objects": n, "seed_s": seed_s, "raw_s": raw_s, "raw_objects": raw_objects, "raw_pages": raw_pages,
            "baseline_s": baseline, "cpu_per_scan": (cpu1 - cpu0) / k, "scan_s": scan_times[-k:],
            "state_bytes": source_bytes, "rss_mib": rss / 1024}


def event_body(bucket: str, key: str) -> str:
    record = {"events": [{"eventName": "ObjectCreated:PutObject", "eventSource": "acs:oss",
                          "eventTime": "2026-11-30T00:00:00.000Z", "eventVersion": "1.0",
                          "oss": {"bucket": {"arn": f"acs:oss:cn-hangzhou:1:{bucket}", "name": bucket,
                                             "ownerIdentity": "1"},
                                  "object": {"deltaSize": 10, "eTag": "0" * 32, "key": key, "size": 10},
                                  "ossSchemaVersion": "1.0", "ruleId": "r"},
                          "region": "cn-hangzhou", "requestParameters": {"sourceIPAddress": "127.0.0.1"},
                          "responseElements": {"requestId": "x"}, "userIdentity": {"principalId": "1"}}]}
    return base64.b64encode(json.dumps(record).encode()).decode()


def mns_bench(emu, n: int, tmp: pathlib.Path) -> dict:
    emu.mns.create_queue("bench", visibility_timeout=120)
    for start in range(0, n, 1000):
        emu.mns.control("POST", "/queues/bench/messages",
                        {"messages": [{"body": event_body("big", f"k/{i:08d}")} for i in range(start, min(n, start + 1000))]})
    yaml = source_yaml(emu, **{"mns.endpoint": emu.mns.url, "mns.region": "cn-hangzhou", "mns.queue-name": "bench",
                               "mns.batch-size": 16, "mns.batch-delete.enabled": "true",
                               "mns.polling-wait-time": "1s", "scan.parallelism": 4})
    yaml += "sink:\n  type: values\n  print.enabled: false\npipeline:\n  name: oss-mns-bench\n  execution.checkpointing.interval: 1s\n"
    path = cdcd.write_pipeline(tmp, yaml, "mns.yaml")
    t = time.monotonic()
    proc = cdcd.start(["run", path, "--state-dir", tmp / "mns-state"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def remaining():
        q = emu.mns.queue("bench")
        return q.get("active", 0) + q.get("inactive", 0) + q.get("delayed", 0)

    assert cdcd.wait_for(lambda: emu.mns.counters().get("BatchReceiveMessage", 0) > 0, 60, 0.05)
    cdcd.wait_for(lambda: emu.mns.queue("bench").get("active", 1) == 0, 900, 0.2)
    received_s = time.monotonic() - t
    cdcd.wait_for(lambda: remaining() == 0, 900, 0.2)
    deleted_s = time.monotonic() - t
    cpu = cpu_seconds(proc.pid)
    proc.terminate()
    proc.wait(timeout=120)
    c = emu.mns.counters()
    return {"messages": n, "received_s": received_s, "deleted_s": deleted_s, "cpu_s": cpu,
            "receives": c.get("BatchReceiveMessage", 0), "batch_deletes": c.get("BatchDeleteMessage", 0)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--objects", type=int, default=1_000_000)
    ap.add_argument("--messages", type=int, default=20_000)
    ap.add_argument("--report", default=str(REPO / "bench/reports/oss.md"))
    args = ap.parse_args()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="oss-bench-"))
    with OssEmulator(with_mns=True) as emu:
        p = polling_bench(emu, args.objects, tmp)
        m = mns_bench(emu, args.messages, tmp)
    per_object = p["state_bytes"] / p["objects"]
    report = f"""# oss-cdc benchmark

`python3 bench/oss_polling/run.py --objects {args.objects} --messages {args.messages}` on this machine
(2 shared cores; the OSS/MNS emulator is Python on the same cores). Generated {time.strftime('%Y-%m-%d %H:%M')};
load average at the end of the run: {os.getloadavg()[0]:.1f} (other jobs share the machine: wall times are noisy,
CPU seconds are cdcd's own).

## POLLING over {p['objects']:,} objects (two prefixes' worth of keys, 1000 keys per page)

| measure | value |
|---|---|
| emulator seeding | {p['seed_s']:.1f} s |
| raw signed ListObjectsV2 paging, minimal Python client ({p['raw_pages']} pages, {p['raw_objects']:,} objects) | **{p['raw_s']:.1f} s** |
| cdcd first (baseline) scan, same pages | **{p['baseline_s']:.1f} s** ({p['baseline_s'] / p['raw_s']:.2f}× the raw listing) |
| cdcd steady-state scans (wall, last 3) | {', '.join(f'{x:.1f} s' for x in p['scan_s'])} |
| cdcd CPU per steady-state scan | {p['cpu_per_scan']:.2f} s |
| checkpointed POLLING state | {p['state_bytes']:,} bytes = **{per_object:.1f} bytes per tracked object** (keys ≈ 32 bytes) |
| cdcd RSS while polling | {p['rss_mib']:.0f} MiB |

Both listings are bound by the emulator (Python XML generation): cdcd's first scan does no per-object
HEAD, only the same ListObjectsV2 pages plus a linear merge into the sorted state. cdcd's CPU per
scan is mostly XML parsing of the {p['raw_pages']} pages. RSS includes two copies of the in-memory
index during a scan (old and new, ≈ key + 12 bytes per object each), the encoded checkpoint and
RocksDB's memtable holding it; the checkpointed state itself is the figure above.

## MNS consumption, {m['messages']:,} queued OSS notifications

mns.batch-size 16, mns.batch-delete.enabled, scan.parallelism 4, checkpoint every 1 s, values sink (not printing).

| measure | value |
|---|---|
| all messages received (emitted) | {m['received_s']:.1f} s → **{m['messages'] / m['received_s']:.0f} events/s** |
| all messages deleted (after their checkpoints) | {m['deleted_s']:.1f} s → {m['messages'] / m['deleted_s']:.0f} events/s |
| BatchReceiveMessage calls | {m['receives']} |
| BatchDeleteMessage calls | {m['batch_deletes']} |
| cdcd CPU for the whole run | {m['cpu_s']:.1f} s |

The MNS emulator (Python) is the limit here; cdcd's CPU time shows its own cost.
"""
    pathlib.Path(args.report).write_text(report)
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
