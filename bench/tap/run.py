#!/usr/bin/env python3
"""Tap cost benchmark (not a test, always exits 0): GENERATED → transform → file sink at full
speed, with no tap, with `cdcd tap` attached at the transform point at the default rate (100
events/s) and at the most a tap may ask (1000/s), interleaved in one run; medians go to
bench/reports/tap.md.

Every variant runs with the admin endpoint on and /metrics read every 100 ms. A tapped run
attaches `cdcd tap` (the real CLI) as soon as the endpoint listens, before the restore has
finished and the source starts, so the tap sees the whole run. The file goes to /dev/shm so the
disk does not set the pace.

Two figures: the throughput of each tapped run against the untapped run of the same round (runs
next to each other in time, so that a machine whose speed drifts — other work on it — moves both),
and the time the pipeline's threads spent on the tap (cdcd_tap_sampling_seconds_total) as a share
of the run: what the tap takes from the thread that runs the transform point, whatever else the
machine does.
Usage: bench/tap/run.py [--rows N] [--repeat R]
"""
import argparse
import os
import pathlib
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

REPO = pathlib.Path(__file__).resolve().parents[2]
CDCD = os.environ.get("CDCD_BIN", str(REPO / "build" / "release" / "cmd" / "cdcd"))
VARIANTS = [("no tap", None), ("tap, default rate (100/s)", 100), ("tap, max rate (1000/s)", 1000)]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pipeline(rows, out):
    return f"""source:
  type: values
  event-set.id: GENERATED
  generator.rows: {rows}
  generator.updates-per-row: 1
transform:
  - source-table: \\.*.\\.*.\\.*
    projection: \\*, UPPER(SUBSTR(payload, 1, 8)) AS tag
sink:
  type: file
  path: {out}
  if-exists: overwrite
pipeline:
  name: tap-bench
  execution.checkpointing.interval: 1s
  tap.sensitive-columns: "*.payload"
"""


def attach_tap(cdcd, port, rate, result):
    """Starts `cdcd tap` the moment the admin endpoint accepts; counts the lines it printed."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            break
        except OSError:
            time.sleep(0.002)
    result["attached"] = time.monotonic()
    out = subprocess.run([cdcd, "tap", str(port), "--point", "transform", "--rate", str(rate)],
                         capture_output=True, text=True)
    result["lines"] = len(out.stdout.splitlines())
    result["status"] = out.returncode


def watch_metrics(port, stop, seen):
    """Keeps the last cdcd_tap_sampling_seconds_total of the transform point and when it was read."""
    while not stop.is_set():
        try:
            text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=1).read().decode()
            for line in text.splitlines():
                if line.startswith("cdcd_tap_sampling_seconds_total{") and 'point="transform"' in line:
                    seen["sampling"] = float(line.rsplit(" ", 1)[1])
                    seen["at"] = time.monotonic()
        except OSError:
            pass
        stop.wait(0.1)


def measure(cdcd, rows, rate, work, out_dir):
    yaml = work / "tap.yaml"
    out = out_dir / "out.jsonl"
    yaml.write_text(pipeline(rows, out))
    state = work / "state"
    shutil.rmtree(state, ignore_errors=True)
    port = free_port()
    tapped = {}
    start = time.monotonic()
    proc = subprocess.Popen([cdcd, "run", str(yaml), "--state-dir", str(state), "--admin-address",
                             f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stop = threading.Event()
    seen = {}
    watcher = threading.Thread(target=watch_metrics, args=(port, stop, seen))
    watcher.start()
    tapper = None
    if rate:
        tapper = threading.Thread(target=attach_tap, args=(cdcd, port, rate, tapped))
        tapper.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    stop.set()
    watcher.join()
    if tapper:
        tapper.join()
    for f in out_dir.glob("out.jsonl*"):
        f.unlink()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"cdcd failed:\n{err[-2000:]}")
    if rate and tapped.get("status") != 0:
        raise SystemExit(f"cdcd tap failed (exit {tapped.get('status')})")
    share = 0.0
    if rate and "at" in seen and seen["at"] > tapped["attached"]:
        share = seen["sampling"] / (seen["at"] - tapped["attached"])
    return wall, usage.ru_utime + usage.ru_stime, tapped.get("lines", 0), share


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_500_000)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    work = pathlib.Path(tempfile.mkdtemp(prefix="tap_bench_"))
    out_dir = pathlib.Path(tempfile.mkdtemp(prefix="tap_out_", dir="/dev/shm"))
    cdcd = str(work / "cdcd")
    shutil.copy2(CDCD, cdcd)  # a rebuild mid-run must not change the binary measured
    events = 2 * args.rows
    results = {}  # variant → [(wall, cpu, lines)]
    try:
        for r in range(args.repeat):
            # Each round in another order, so that a drift of the machine's speed spreads evenly.
            order = VARIANTS[r % len(VARIANTS):] + VARIANTS[:r % len(VARIANTS)]
            for name, rate in order:
                m = measure(cdcd, args.rows, rate, work, out_dir)
                results.setdefault(name, []).append(m)
                print(f"round {r} {name}: {m[0]:.2f} s wall, {m[1]:.2f} s CPU, {m[2]} lines, "
                      f"{m[3] * 100:.3f} % of a thread on the tap", flush=True)
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)

    def med(name, i):
        return statistics.median(x[i] for x in results[name])

    load = os.getloadavg()
    base = VARIANTS[0][0]
    lines = [
        "# Tap benchmark: what `cdcd tap` costs a pipeline at full speed",
        "",
        f"Generated by `bench/tap/run.py` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: "
        f"GENERATED {args.rows:,} rows + 1 update round = {events:,} events → transform (a projection) → "
        f"file sink (debezium-json, /dev/shm), checkpoints every 1 s, admin endpoint on; `cdcd tap --point "
        f"transform` attached for the whole run (its CLI on the same machine, output to /dev/null). "
        f"{args.repeat} interleaved rounds, medians. Machine: {os.cpu_count()} cores (load average at the end "
        f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}).",
        "",
        "| variant | wall s | events/s | throughput vs no tap, same round | daemon CPU s | lines tapped | pipeline thread time on the tap |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]

    def paired(name):  # untapped wall / tapped wall of each round: the tapped run's throughput ratio
        return [b[0] / t[0] for b, t in zip(results[base], results[name])]

    for name, rate in VARIANTS:
        ratios = paired(name)
        share = f"{med(name, 3) * 100:.3f} %" if rate else "–"
        lines.append(f"| {name} | {med(name, 0):.2f} | {events / med(name, 0):,.0f} | "
                     f"{statistics.median(ratios):.3f} ({min(ratios):.2f}–{max(ratios):.2f}) | "
                     f"{med(name, 1):.2f} | {med(name, 2):,.0f} | {share} |")
    default, top = VARIANTS[1][0], VARIANTS[2][0]
    cost = 1 - statistics.median(paired(default))
    spread = [x[0] for x in results[base]]
    lines += [
        "",
        f"- **a tap at the default rate takes {med(default, 3) * 100:.3f} % of the time of the thread it "
        f"samples on** ({med(top, 3) * 100:.3f} % at 1000/s): the most it can cost the throughput, "
        f"when that thread is the bottleneck (target: under 2 %)",
        f"- end to end, a tapped run's throughput against the untapped run of its round: median "
        f"{cost * 100:+.1f} % cost at the default rate; run-to-run spread without a tap "
        f"{min(spread):.2f}–{max(spread):.2f} s wall ({(max(spread) / min(spread) - 1) * 100:.0f} %), "
        f"so end-to-end differences below that are the machine's noise, not the tap's",
        "",
    ]
    out = REPO / "bench" / "reports" / "tap.md"
    out.write_text("\n".join(lines))
    print("\n".join(lines))
    print(f"report: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
