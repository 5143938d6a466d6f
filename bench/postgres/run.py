#!/usr/bin/env python3
"""Postgres source benchmark (not a test): cdcd versus Debezium's Postgres connector, embedded,
on one PostgreSQL server, in the same run.

  (a) snapshot: a table of --snapshot-rows (default 10M) rows (three ints, a bigint, a text, a
      numeric(12, 2), a timestamp), read whole: cdcd with `scan.startup.mode: snapshot`
      (execution.runtime-mode BATCH, the process ends by itself), Debezium with
      `snapshot.mode: initial_only` (the harness stops after the last row).
  (b) streaming: a burst of --changes (default 1M) changes (70% inserts, 20% updates, 10%
      deletes) committed in transactions of --txn-size (default 1000) changes, while every
      tool's slot already exists; each tool then reads the burst from its own slot (cdcd
      `scan.startup.mode: committed-offset`, Debezium `snapshot.mode: no_data`).

Both tools write each change as one JSON line to a file (cdcd's file sink in debezium-json,
Debezium through Kafka's JsonConverter), the cheapest consumer both have that still encodes
every value. Measured per process: wall time from start to the last change written, CPU seconds
(user+sys of the process and all its threads, wait4) and peak RSS (wait4's ru_maxrss). The tools
run alternately, --rounds rounds; the best round of each is reported. Writes
bench/reports/postgres.md.

Usage: bench/postgres/run.py [--snapshot-rows N] [--changes N] [--txn-size N] [--rounds R]
                             [--jvm-opts '...']
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests" / "services" / "postgres"))
from server import DATABASE, PASSWORD, USER, PostgresServer  # noqa: E402

CDCD = os.environ.get("CDCD_BIN", str(ROOT / "build" / "release" / "cmd" / "cdcd"))
COLUMNS = ("id bigint PRIMARY KEY, account int NOT NULL, region int NOT NULL, qty int, "
           "ref bigint, label text, amount numeric(12, 2), created timestamp NOT NULL")
ROW = ("g, (g % 100000)::int, (g % 17)::int, (g % 1000)::int, g * 7919, 'order ' || md5(g::text), "
       "round((g % 100000) / 100.0, 2), timestamp '2024-01-01' + g * interval '1 second'")
POLL_S = 0.1
TIMEOUT_S = 3600


def classpath() -> str:
    out = subprocess.run([str(ROOT / "tests" / "services" / "debezium" / "build.sh"), "--quiet"],
                         check=True, capture_output=True, text=True, timeout=960).stdout
    return out.strip().split("=", 1)[1]


def lines_in(path: Path, state: dict) -> int:
    """Newlines in `path`, counting only the bytes added since the last call."""
    if not path.exists():
        return 0
    with open(path, "rb") as f:
        f.seek(state.get("offset", 0))
        while chunk := f.read(1 << 24):
            state["lines"] = state.get("lines", 0) + chunk.count(b"\n")
            state["offset"] = state.get("offset", 0) + len(chunk)
    return state.get("lines", 0)


def reap(proc, block: bool = True) -> tuple[float, int] | None:
    """wait4 the process (never Popen.poll, which would reap it without the usage): (CPU seconds
    user+sys, peak RSS kB) once it ended, None while it runs (block=False)."""
    if getattr(proc, "usage", None):
        return proc.usage
    pid, status, ru = os.wait4(proc.pid, 0 if block else os.WNOHANG)
    if pid == 0:
        return None
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.usage = (ru.ru_utime + ru.ru_stime, ru.ru_maxrss)
    return proc.usage


def run_cdcd(pg, work: Path, name: str, table: str, mode: str, slot: str | None, expect: int):
    out = work / f"{name}.jsonl"
    source = (f"source:\n  type: postgres\n  hostname: 127.0.0.1\n  port: {pg.port}\n"
              f"  username: {USER}\n  password: ${{PG_BENCH_PASSWORD}}\n"
              f"  tables: {DATABASE}.public.{table}\n  scan.startup.mode: {mode}\n"
              f"  slot.name: {slot or 'unused_' + name}\n"
              "  debezium.publication.name: bench_pub\n  debezium.publication.autocreate.mode: disabled\n")
    pipeline = f"pipeline:\n  name: {name}\n  execution.checkpointing.interval: 1s\n"
    if mode == "snapshot":
        pipeline += "  execution.runtime-mode: BATCH\n"
    yaml = work / f"{name}.yaml"
    yaml.write_text(source + f"sink:\n  type: file\n  path: {out}\n  format: debezium-json\n" + pipeline)
    log = open(work / f"{name}.log", "wb")
    t0 = time.monotonic()
    proc = subprocess.Popen([CDCD, "run", str(yaml), "--state-dir", str(work / f"{name}.state")],
                            stdout=subprocess.DEVNULL, stderr=log,
                            env=dict(os.environ, PG_BENCH_PASSWORD=PASSWORD))
    state: dict = {}
    done_at = None
    while time.monotonic() - t0 < TIMEOUT_S:
        if reap(proc, block=False):
            break
        if mode != "snapshot" and lines_in(out, state) >= expect:
            done_at = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            break
        time.sleep(POLL_S)
    else:
        proc.kill()
    cpu, rss = reap(proc)
    if done_at is None:
        done_at = time.monotonic()
    got = lines_in(out, state)
    if proc.returncode != 0 or got != expect:
        raise SystemExit(f"cdcd {name}: exit {proc.returncode}, {got} of {expect} changes; see {log.name}")
    out.unlink()
    return done_at - t0, cpu, rss


def run_debezium(pg, cp: str, work: Path, name: str, table: str, mode: str, slot: str, expect: int,
                 jvm_opts: list[str]):
    props = work / f"{name}.properties"
    props.write_text("\n".join([
        "database.hostname=127.0.0.1", f"database.port={pg.port}", f"database.user={USER}",
        f"database.password={PASSWORD}", f"database.dbname={DATABASE}",
        f"slot.name={slot}", "publication.name=bench_pub", "publication.autocreate.mode=disabled",
        f"table.include.list=public.{table}", f"snapshot.mode={mode}", "slot.drop.on.stop=false", ""]))
    out = work / f"{name}.jsonl"
    proc = subprocess.Popen(["java", *jvm_opts, "-cp", cp, "cdcd.tests.DebeziumHarness", str(props), str(out),
                             str(expect), "30000", str(TIMEOUT_S * 1000)],
                            stdout=subprocess.PIPE, stderr=open(work / f"{name}.log", "wb"), text=True)
    stdout = proc.stdout.read()
    cpu, rss = reap(proc)
    figures = json.loads(stdout.strip().splitlines()[-1]) if stdout.strip() else {}
    if proc.returncode != 0 or figures.get("changes") != expect:
        raise SystemExit(f"Debezium {name}: exit {proc.returncode}, {figures}; see {work / (name + '.log')}")
    got = lines_in(out, {})
    if got != expect:
        raise SystemExit(f"Debezium {name}: {got} lines written, expected {expect}")
    out.unlink()
    # From the process start to the last change written (the engine's shutdown after it left out).
    wall = (figures["jvm_ms"] + figures["last_ms"]) / 1000
    return wall, cpu, rss, figures


def burst_procedure(table: str, changes: int, txn: int) -> str:
    """A procedure committing `changes` changes in transactions of `txn`: 70% inserts, then 20%
    updates and 10% deletes of inserted rows."""
    inserts = changes * 7 // 10
    updates = changes * 2 // 10
    deletes = changes - inserts - updates
    row = ROW.replace("g", "s.g")
    return f"""
CREATE OR REPLACE PROCEDURE bench_burst() LANGUAGE plpgsql AS $$
DECLARE lo bigint;
BEGIN
  lo := 1;
  WHILE lo <= {inserts} LOOP
    INSERT INTO {table} SELECT {row} FROM generate_series(lo, LEAST(lo + {txn} - 1, {inserts}::bigint)) AS s(g);
    COMMIT; lo := lo + {txn};
  END LOOP;
  lo := 1;
  WHILE lo <= {updates} LOOP
    UPDATE {table} SET qty = qty + 1, amount = amount + 0.01, label = label || '+'
      WHERE id BETWEEN lo AND LEAST(lo + {txn} - 1, {updates});
    COMMIT; lo := lo + {txn};
  END LOOP;
  lo := {inserts} - {deletes} + 1;
  WHILE lo <= {inserts} LOOP
    DELETE FROM {table} WHERE id BETWEEN lo AND LEAST(lo + {txn} - 1, {inserts});
    COMMIT; lo := lo + {txn};
  END LOOP;
END $$"""


def best(results, phase, tool, key):
    rows = [r for r in results if r["phase"] == phase and r["tool"] == tool]
    return min(r[key] for r in rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--snapshot-rows", type=int, default=10_000_000)
    ap.add_argument("--changes", type=int, default=1_000_000)
    ap.add_argument("--txn-size", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--jvm-opts", default="", help="extra JVM options for Debezium (default: none)")
    ap.add_argument("--skip-snapshot", action="store_true")
    args = ap.parse_args()
    jvm_opts = args.jvm_opts.split()
    work = Path(tempfile.mkdtemp(prefix="postgres_bench_"))
    # A private copy: a build relinking build/release/cmd/cdcd mid-run must not touch it.
    global CDCD
    shutil.copy2(CDCD, work / "cdcd")
    CDCD = str(work / "cdcd")
    cp = classpath()
    try:
        results, setup, version, load_avg = measure(args, cp, work, jvm_opts)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    write_report(args, results, setup, version, load_avg)
    return 0


def measure(args, cp, work, jvm_opts):
    results = []
    setup = {}
    with PostgresServer() as pg:
        pg.bootstrap()
        version = pg.sql("SHOW server_version").strip()
        pg.sql("CREATE TABLE snap (" + COLUMNS + "); CREATE TABLE stream (" + COLUMNS + ");"
               "CREATE PUBLICATION bench_pub FOR TABLE snap, stream")

        if not args.skip_snapshot:
            n = args.snapshot_rows
            t0 = time.monotonic()
            pg.sql(f"INSERT INTO snap SELECT {ROW} FROM generate_series(1::bigint, {n}) g; ANALYZE snap", timeout=TIMEOUT_S)
            setup["snapshot_load_s"] = time.monotonic() - t0
            setup["snapshot_size"] = pg.sql("SELECT pg_size_pretty(pg_total_relation_size('snap'))").strip()
            for rnd in range(args.rounds):
                for tool in ("cdcd", "debezium"):
                    name = f"snap_{tool}_{rnd}"
                    if tool == "cdcd":
                        wall, cpu, rss = run_cdcd(pg, work, name, "snap", "snapshot", None, n)
                    else:
                        slot = f"dbz_snap_{rnd}"
                        wall, cpu, rss, _ = run_debezium(pg, cp, work, name, "snap", "initial_only", slot, n,
                                                         jvm_opts)
                        pg.drop_slot(slot)
                    results.append(dict(phase="snapshot", tool=tool, round=rnd, n=n, wall=wall, cpu=cpu, rss=rss))
                    print(f"snapshot round {rnd} {tool}: {wall:.1f} s wall, {cpu:.1f} s CPU, "
                          f"peak RSS {rss // 1024} MB", flush=True)
            pg.sql("DROP TABLE snap")

        m = args.changes
        slots = [f"{tool}_stream_{rnd}" for rnd in range(args.rounds) for tool in ("cdcd", "debezium")]
        for slot in slots:
            pg.sql(f"SELECT pg_create_logical_replication_slot('{slot}', 'pgoutput')")
        pg.sql(burst_procedure("stream", m, args.txn_size))
        t0 = time.monotonic()
        pg.sql("CALL bench_burst()", timeout=TIMEOUT_S)
        setup["burst_s"] = time.monotonic() - t0
        setup["wal"] = pg.sql("SELECT pg_size_pretty(pg_wal_lsn_diff(pg_current_wal_lsn(), "
                              f"(SELECT restart_lsn FROM pg_replication_slots WHERE slot_name = '{slots[0]}')))").strip()
        for rnd in range(args.rounds):
            for tool in ("cdcd", "debezium"):
                name = f"stream_{tool}_{rnd}"
                slot = f"{tool}_stream_{rnd}"
                if tool == "cdcd":
                    wall, cpu, rss = run_cdcd(pg, work, name, "stream", "committed-offset", slot, m)
                else:
                    wall, cpu, rss, _ = run_debezium(pg, cp, work, name, "stream", "no_data", slot, m, jvm_opts)
                pg.drop_slot(slot)
                results.append(dict(phase="streaming", tool=tool, round=rnd, n=m, wall=wall, cpu=cpu, rss=rss))
                print(f"streaming round {rnd} {tool}: {wall:.1f} s wall, {cpu:.1f} s CPU, "
                      f"peak RSS {rss // 1024} MB", flush=True)
        load_avg = os.getloadavg()
    return results, setup, version, load_avg


def write_report(args, results, setup, version, load_avg):
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[0]
    cpu_model = next((l.split(":", 1)[1].strip() for l in Path("/proc/cpuinfo").read_text().splitlines()
                      if l.startswith("model name")), "?")
    lines = [
        "# Postgres source benchmark: cdcd versus Debezium (embedded)",
        "",
        f"Generated by `bench/postgres/run.py` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} "
        f"(`--snapshot-rows {args.snapshot_rows} --changes {args.changes} --txn-size {args.txn_size} "
        f"--rounds {args.rounds}{' --jvm-opts ' + repr(args.jvm_opts) if args.jvm_opts else ''}`).",
        "",
        f"Machine: {os.cpu_count()} cores ({cpu_model}), shared with other jobs (load average at the end: "
        f"{load_avg[0]:.1f} / {load_avg[1]:.1f} / {load_avg[2]:.1f}); PostgreSQL {version} "
        "(tests/services/postgres: Debian's package, default settings but `wal_level=logical`) on the same "
        f"machine over 127.0.0.1. Debezium 3.6.1.Final's Postgres connector in its embedded engine "
        f"(tests/services/debezium), {java}, default JVM options"
        f"{' plus ' + args.jvm_opts if args.jvm_opts else ''}.",
        "",
        "Method: each tool writes every change as one JSON line to a file — cdcd's file sink in "
        "`debezium-json`, Debezium's records through Kafka's JsonConverter (no schema block) — the "
        "cheapest consumer both have that still encodes every value. Wall = from the process start "
        "(JVM start and connector start-up included) to the last change written; CPU = user+sys of "
        "the tool's process and all its threads (wait4); RSS = its peak resident set (ru_maxrss). "
        "The PostgreSQL server's own CPU (its backends and WAL senders) is not counted for either. "
        "The tools run alternately; the best round of each is summarised.",
        "",
    ]
    if any(r["phase"] == "snapshot" for r in results):
        lines += [
            f"**(a) Snapshot** of a table of {args.snapshot_rows:,} rows (`{COLUMNS}`; {setup['snapshot_size']} "
            f"on disk, loaded in {setup['snapshot_load_s']:.0f} s): cdcd `scan.startup.mode: snapshot` "
            "(`execution.runtime-mode: BATCH`, the defaults `scan.incremental.snapshot.chunk.size` 8096 and "
            "`scan.snapshot.fetch.size` 1024), Debezium `snapshot.mode: initial_only` (default "
            "`snapshot.fetch.size` 10240).",
            "",
        ]
    lines += [
        f"**(b) Streaming**: {args.changes:,} changes (70% inserts, 20% updates of three columns, 10% deletes; "
        f"REPLICA IDENTITY DEFAULT) committed in transactions of {args.txn_size} changes by one procedure in "
        f"{setup['burst_s']:.0f} s ({setup['wal']} of WAL), after every tool's slot was created; each tool then "
        "reads them all from its own slot (cdcd `scan.startup.mode: committed-offset`, Debezium "
        "`snapshot.mode: no_data`).",
        "",
        "| phase | round | tool | wall s | changes/s (wall) | CPU s | changes per CPU-second | peak RSS MB |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(f"| {r['phase']} | {r['round']} | {r['tool']} | {r['wall']:.1f} | {r['n'] / r['wall']:,.0f} | "
                     f"{r['cpu']:.1f} | {r['n'] / r['cpu']:,.0f} | {r['rss'] / 1024:.0f} |")
    lines += ["", "## Summary (best round of each)", ""]
    for phase in ("snapshot", "streaming"):
        if not any(r["phase"] == phase for r in results):
            continue
        n = next(r["n"] for r in results if r["phase"] == phase)
        f = {t: {k: best(results, phase, t, k) for k in ("wall", "cpu", "rss")} for t in ("cdcd", "debezium")}
        c, d = f["cdcd"], f["debezium"]
        lines += [
            f"- {phase}: cdcd {n / c['wall']:,.0f} changes/s, {n / c['cpu']:,.0f} per CPU-second, "
            f"{c['rss'] / 1024:.0f} MB; Debezium {n / d['wall']:,.0f} changes/s, {n / d['cpu']:,.0f} per "
            f"CPU-second, {d['rss'] / 1024:.0f} MB. **cdcd / Debezium: {d['wall'] / c['wall']:.1f}× the "
            f"throughput, {d['cpu'] / c['cpu']:.1f}× the changes per CPU-second, "
            f"{c['rss'] / d['rss']:.2f}× the memory.**",
        ]
        if phase == "streaming":
            ok = d["cpu"] / c["cpu"] >= 2 and c["rss"] / d["rss"] <= 0.25
            lines.append(f"  Issue #20's target (≥ 2× Debezium's streaming changes per CPU-second at ≤ ¼ of its "
                         f"memory): **{'met' if ok else 'missed'}**.")
    lines.append("")
    out = ROOT / "bench" / "reports" / "postgres.md"
    # A "## Notes" section written by hand (earlier figures, what changed) is kept.
    old = out.read_text() if out.exists() else ""
    if "\n## Notes\n" in old:
        lines.append("## Notes\n\n" + old.split("\n## Notes\n", 1)[1].strip("\n"))
        lines.append("")
    out.write_text("\n".join(lines))
    print("\n".join(lines))
    print(f"report: {out}")


if __name__ == "__main__":
    sys.exit(main())
