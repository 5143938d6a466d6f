#!/usr/bin/env python3
"""Cost of observability (not a test; always exits 0).

GENERATED → values sink (print.enabled false), checkpoint every 1 s, run to the end:
  off: no admin endpoint
  on:  --admin-address on loopback, /metrics scraped every second during the run

Runs alternate (off, on, off, on, ...) BENCH_REPEAT times; medians go to
bench/reports/observability.md with the on/off throughput ratio.
"""
import http.client
import os
import pathlib
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
CDCD = os.environ.get("CDCD_BIN", str(REPO / "build" / "release" / "cmd" / "cdcd"))
REPEAT = int(os.environ.get("BENCH_REPEAT", "3"))
ROWS = int(os.environ.get("BENCH_ROWS", "15000000"))
EVENTS = ROWS * 2  # one insert and one update per row

PIPELINE = f"""
source:
  type: values
  event-set.id: GENERATED
  generator.rows: {ROWS}
  generator.updates-per-row: 1
sink:
  type: values
  print.enabled: false
pipeline:
  name: bench-observability
  execution.checkpointing.interval: 1s
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scraper(port, stop, results):
    """Scrapes /metrics every second until `stop`; records (latency s, bytes) per scrape."""
    while not stop.wait(1.0):
        try:
            started = time.monotonic()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/metrics")
            body = conn.getresponse().read()
            conn.close()
            results.append((time.monotonic() - started, len(body)))
        except OSError:
            pass  # not listening yet, or already gone


def measure(admin: bool, workdir: pathlib.Path):
    yaml = workdir / "bench.yaml"
    yaml.write_text(PIPELINE)
    state = workdir / "state"
    subprocess.run(["rm", "-rf", str(state)], check=True)
    args = [CDCD, "run", str(yaml), "--state-dir", str(state)]
    port = free_port()
    if admin:
        args += ["--admin-address", f"127.0.0.1:{port}"]
    scrapes, stop = [], threading.Event()
    started = time.monotonic()
    proc = subprocess.Popen(["/usr/bin/time", "-f", "TIME %U %S %M", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    thread = None
    if admin:
        thread = threading.Thread(target=scraper, args=(port, stop, scrapes), daemon=True)
        thread.start()
    _, stderr = proc.communicate()
    wall = time.monotonic() - started
    stop.set()
    if thread:
        thread.join()
    if proc.returncode != 0:
        raise RuntimeError(f"cdcd exited {proc.returncode}: {stderr[-2000:]}")
    user, system, rss = next(line for line in stderr.splitlines() if line.startswith("TIME ")).split()[1:]
    return {"eps": EVENTS / wall, "cpu": float(user) + float(system), "rss_mb": int(rss) / 1024, "scrapes": scrapes}


def main():
    if not pathlib.Path(CDCD).exists():
        print(f"cdcd binary not found at {CDCD}; build it or set CDCD_BIN", file=sys.stderr)
        return 0
    runs = {"off": [], "on": []}
    with tempfile.TemporaryDirectory(prefix="cdcd-bench-obs-") as tmp:
        for i in range(REPEAT):
            for mode in ("off", "on"):
                try:
                    r = measure(mode == "on", pathlib.Path(tmp))
                except Exception as e:  # a benchmark reports, it does not fail
                    print(f"run {i} {mode}: {e}", file=sys.stderr)
                    continue
                runs[mode].append(r)
                print(f"run {i} {mode}: {r['eps']:,.0f} events/s, {len(r['scrapes'])} scrapes", file=sys.stderr)
    if not runs["off"] or not runs["on"]:
        print("no complete pair of runs; no report written", file=sys.stderr)
        return 0

    def med(mode, key):
        return statistics.median(r[key] for r in runs[mode])

    scrapes = [s for r in runs["on"] for s in r["scrapes"]]
    latency = statistics.median(s[0] for s in scrapes) * 1000 if scrapes else float("nan")
    size = statistics.median(s[1] for s in scrapes) if scrapes else 0
    ratio = med("on", "eps") / med("off", "eps")
    cpu_ratio = med("off", "cpu") / med("on", "cpu")  # events per CPU-second, on / off
    load = os.getloadavg()[0]
    each = "\n".join(f"| {mode} | {i} | {r['eps']:,.0f} | {r['cpu']:.2f} | {len(r['scrapes'])} |"
                     for mode in ("off", "on") for i, r in enumerate(runs[mode]))
    report = f"""# Observability overhead

GENERATED source, {ROWS:,} rows + 1 update round = {EVENTS:,} events → values sink (print off),
checkpoint every 1 s; medians of {min(len(runs['off']), len(runs['on']))} interleaved runs per case;
`cdcd` at `{CDCD}`; {os.cpu_count()} cores, load average {load:.1f} at the end (other jobs share
the machine, so wall-clock figures are noisy; CPU seconds are the steadier measure).
Written by `bench/observability/run.py`.

| case | events/s (wall) | CPU s | peak RSS MB |
|---|---:|---:|---:|
| admin endpoint off | {med('off', 'eps'):,.0f} | {med('off', 'cpu'):.2f} | {med('off', 'rss_mb'):.1f} |
| admin endpoint on, /metrics scraped every 1 s | {med('on', 'eps'):,.0f} | {med('on', 'cpu'):.2f} | {med('on', 'rss_mb'):.1f} |

- throughput (wall) with the endpoint on and scraped: **{ratio:.3f}×** the throughput with it off
- events per CPU-second with the endpoint on and scraped: **{cpu_ratio:.3f}×** (the CPU of the
  process includes answering the scrapes)
- scrapes during the runs: {len(scrapes)}; median /metrics latency {latency:.2f} ms, body {size:,} bytes

Every run:

| case | run | events/s | CPU s | scrapes |
|---|---:|---:|---:|---:|
{each}

The hot path pays one relaxed atomic add per counter per batch (about 1,000 events); a scrape
formats every series on the event loop, between batches.
"""
    out = REPO / "bench" / "reports" / "observability.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report)
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
