#!/usr/bin/env python3
"""Parallelism benchmark (issue 18; not a test, always exits 0): GENERATED → file sink at
pipeline.parallelism 1 and 2, on both cores and pinned to one core with taskset, and two
parallelism-1 processes at once (the peer: what the machine's cores give work that shares
nothing), interleaved in one run; then the same with a transform (the core bench's five light columns, and six string
columns) at parallelism 1, at parallelism 2 with the lanes cdcd chooses, and at parallelism 2 with
two transform lanes (pipeline.transform.lanes); at parallelism 2 the source's readers transform
their own rows. Medians go to bench/reports/parallelism.md.

The file sink's writers run on threads of their own at parallelism 2 (writer_loops.h); the
output goes to /dev/shm so the disk does not set the pace.
Usage: bench/parallelism/run.py [--rows N] [--repeat R] [--transform-rows N]
"""
import argparse
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
CDCD = os.environ.get("CDCD_BIN", str(REPO / "build" / "release" / "cmd" / "cdcd"))


# The transforms: bench/core's five light columns and a filter, and six string columns.
TRANSFORMS = {
    "5 light columns + filter": (
        r"\*, UPPER(SUBSTR(payload, 1, 8)) AS tag, id * 2 + version AS score, CASE WHEN version > 0 "
        r"THEN 'updated' ELSE 'new' END AS state, DATE_FORMAT(LOCALTIMESTAMP, 'yyyy-MM-dd HH:mm') AS "
        r"minute, CONCAT(CAST(id AS STRING), '-', CAST(version AS STRING)) AS row_key", "id % 10 > 0"),
    "6 string columns": (
        r"\*, UPPER(payload) AS u, LOWER(UPPER(payload)) AS l, CONCAT(payload, '-', CAST(id AS STRING), "
        r"'-', payload) AS c, REGEXP_REPLACE(payload, 'x+', 'y') AS r, CHAR_LENGTH(payload) * id AS n, "
        r"SUBSTR(UPPER(payload), 3, 20) AS s", ""),
}
# (label, parallelism, pipeline.transform.lanes: 0 lets cdcd choose)
TRANSFORM_RUNS = [("parallelism 1", 1, 0), ("parallelism 2, lanes chosen", 2, 0),
                  ("parallelism 2, 2 lanes", 2, 2)]


def pipeline(rows, out, parallelism, transform=None, lanes=0):
    block = ""
    if transform:
        projection, filter_ = TRANSFORMS[transform]
        block = ("transform:\n  - source-table: default_namespace.default_schema.generated\n"
                 f"    projection: {projection}\n" + (f"    filter: {filter_}\n" if filter_ else ""))
    return f"""source:
  type: values
  event-set.id: GENERATED
  generator.rows: {rows}
  generator.updates-per-row: 1
{block}sink:
  type: file
  path: {out}
  if-exists: overwrite
pipeline:
  name: parallelism-bench
  parallelism: {parallelism}
  transform.lanes: {lanes}
  local-time-zone: UTC
  execution.checkpointing.interval: 1s
"""


def start(cdcd, rows, parallelism, pinned, work, out_dir, transform=None, lanes=0, name=None):
    """Starts one run; finish() waits for it."""
    name = name or f"p{parallelism}"
    yaml = work / f"{name}.yaml"
    yaml.write_text(pipeline(rows, out_dir / f"out-{name}.jsonl", parallelism, transform, lanes))
    state = work / f"state-{name}"
    shutil.rmtree(state, ignore_errors=True)
    cmd = ([shutil.which("taskset"), "-c", "0"] if pinned else []) + \
        [cdcd, "run", str(yaml), "--state-dir", str(state)]
    began = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return proc, began, name


def finish(run, out_dir):
    """(wall s, CPU s, peak RSS kB) of a run start() began."""
    proc, began, name = run
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - began
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    for f in out_dir.glob(f"out-{name}.jsonl*"):
        f.unlink()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"cdcd failed ({name}):\n{err[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def measure(cdcd, rows, parallelism, pinned, work, out_dir, transform=None, lanes=0):
    return finish(start(cdcd, rows, parallelism, pinned, work, out_dir, transform, lanes), out_dir)


def two_at_once(cdcd, rows, work, out_dir):
    """Two independent parallelism-1 runs at the same time: what two cores give work that shares
    nothing, the ceiling of any parallelism 2 on this machine at this moment. Returns the wall
    time until both ended, their CPU and the larger peak RSS."""
    runs = [start(cdcd, rows, 1, False, work, out_dir, name=name) for name in ("a", "b")]
    done = [finish(run, out_dir) for run in runs]
    return max(d[0] for d in done), sum(d[1] for d in done), max(d[2] for d in done)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=3_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--transform-rows", type=int, default=1_000_000)
    ap.add_argument("--transform-repeat", type=int, default=3)
    args = ap.parse_args()
    work = pathlib.Path(tempfile.mkdtemp(prefix="parallelism_bench_"))
    out_dir = pathlib.Path(tempfile.mkdtemp(prefix="parallelism_out_", dir="/dev/shm"))
    cdcd = str(work / "cdcd")
    shutil.copy2(CDCD, cdcd)  # a rebuild mid-run must not change the binary measured
    events = 2 * args.rows
    results = {}  # (pinned, parallelism) → [(wall, cpu, rss)]
    try:
        for r in range(args.repeat):
            for pinned in (False, True):
                for parallelism in (1, 2):
                    m = measure(cdcd, args.rows, parallelism, pinned, work, out_dir)
                    results.setdefault((pinned, parallelism), []).append(m)
                    print(f"round {r} {'1 core ' if pinned else '2 cores'} p{parallelism}: "
                          f"{m[0]:.2f} s wall, {m[1]:.2f} s CPU", flush=True)
            m = two_at_once(cdcd, args.rows, work, out_dir)
            results.setdefault("two at once", []).append(m)
            print(f"round {r} two parallelism-1 processes at once: {m[0]:.2f} s wall, "
                  f"{m[1]:.2f} s CPU", flush=True)
        for r in range(args.transform_repeat):
            for transform in TRANSFORMS:
                for label, parallelism, lanes in TRANSFORM_RUNS:
                    m = measure(cdcd, args.transform_rows, parallelism, False, work, out_dir,
                                transform, lanes)
                    results.setdefault((transform, label), []).append(m)
                    print(f"round {r} {transform}, {label}: {m[0]:.2f} s wall, {m[1]:.2f} s CPU",
                          flush=True)
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)

    def med(key, i):
        return statistics.median(x[i] for x in results[key])

    load = os.getloadavg()
    lines = [
        "# Parallelism benchmark: GENERATED → file sink at parallelism 1 and 2",
        "",
        f"Generated by `bench/parallelism/run.py` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: "
        f"{args.rows:,} rows + 1 update round = {events:,} events, debezium-json to /dev/shm, checkpoints every "
        f"1 s; {args.repeat} interleaved rounds, medians. `1 core` runs under `taskset -c 0`. "
        f"Machine: {os.cpu_count()} cores (load average at the end {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}).",
        "",
        "| cores | parallelism | wall s | events/s | CPU s | peak RSS MB |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for pinned in (False, True):
        for parallelism in (1, 2):
            key = (pinned, parallelism)
            lines.append(f"| {'1' if pinned else str(os.cpu_count())} | {parallelism} | {med(key, 0):.2f} | "
                         f"{events / med(key, 0):,.0f} | {med(key, 1):.2f} | {med(key, 2) / 1024:.1f} |")
    lines.append(f"| {os.cpu_count()} | 1, two processes at once | {med('two at once', 0):.2f} | "
                 f"{2 * events / med('two at once', 0):,.0f} | {med('two at once', 1):.2f} | "
                 f"{med('two at once', 2) / 1024:.1f} |")
    both = med((False, 1), 0) / med((False, 2), 0)
    one = med((True, 1), 0) / med((True, 2), 0)
    ceiling = 2 * med((False, 1), 0) / med("two at once", 0)
    lines += [
        "",
        f"- **parallelism 2 / parallelism 1 on {os.cpu_count()} cores: {both:.2f}×** (target ≥ 1.7×)",
        f"- **parallelism 2 / parallelism 1 on 1 core: {one:.2f}×** (target ≥ 1.0×: no slower)",
        f"- two parallelism-1 processes at once moved {ceiling:.2f}× the events per second of one: "
        "the most two cores gave work that shares nothing, in this run (the peer of parallelism 2)",
        "",
        "## With a transform",
        "",
        f"The same pipeline with a transform before the sink, {args.transform_rows:,} rows + 1 update "
        f"round, {args.transform_repeat} interleaved rounds, medians; `lanes chosen` is what cdcd runs "
        "when `pipeline.transform.lanes` is left at 0 (at most one fewer than the CPUs). At "
        "parallelism 2 the source's two readers transform their own rows, each on its writer's thread; "
        "the lanes get only the batches that need the loop.",
        "",
        "| transform | run | wall s | events/s | CPU s | × parallelism 1 |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for transform in TRANSFORMS:
        base = med((transform, TRANSFORM_RUNS[0][0]), 0)
        for label, _, _ in TRANSFORM_RUNS:
            key = (transform, label)
            lines.append(f"| {transform} | {label} | {med(key, 0):.2f} | "
                         f"{2 * args.transform_rows / med(key, 0):,.0f} | {med(key, 1):.2f} | "
                         f"{base / med(key, 0):.2f}× |")
    lines.append("")
    out = REPO / "bench" / "reports" / "parallelism.md"
    out.write_text("\n".join(lines))
    print("\n".join(lines))
    print(f"report: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
