#!/usr/bin/env python3
"""Runs every pytest suite folder in its own process (emulators, services, integration tests each
import sibling helper modules by short names such as `client` or `conftest`, which would collide
in one process), then prints one summary line and exits non-zero if any suite failed. Folders that
need another import mode say so in their own pytest.ini.

Suites run two at a time (CDCD_PYTEST_JOBS overrides): most of their time is spent waiting for a
broker, an emulator or a pipeline, and every test uses free ports and its own temporary
directories, so two suites side by side share the machine without meeting. The longest suites
start first, so the run ends about when the longest one does. Each suite's output is printed
whole when it ends."""
import concurrent.futures
import os
import pathlib
import re
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
ROOTS = ["tests/emulators", "tests/services", "tests/integration"]
ONLY = sys.argv[1:]  # optional: run just these folders
# Started first (longest first); the rest follow in folder order.
LONGEST = ["tests/integration/kafka", "tests/integration/oss", "tests/integration/dingtalk",
           "tests/integration/vikingdb", "tests/integration/core"]


def suites():
    found = []
    for root in ROOTS:
        for folder in sorted((REPO / root).iterdir()):
            if folder.is_dir() and any(folder.rglob("test_*.py")):
                if not ONLY or str(folder.relative_to(REPO)) in ONLY:
                    found.append(folder)
    rank = {name: i for i, name in enumerate(LONGEST)}
    return sorted(found, key=lambda f: rank.get(str(f.relative_to(REPO)), len(rank)))


def run_suite(folder):
    rel = folder.relative_to(REPO)
    started = time.monotonic()
    # --durations: the slowest tests of each suite, to see where CI's 25 minutes go.
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "--durations=5", str(rel)],
                          cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return rel, proc, time.monotonic() - started


def main() -> int:
    totals = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0, "xfailed": 0}
    failed_suites = []
    jobs = max(1, int(os.environ.get("CDCD_PYTEST_JOBS", "2")))
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run_suite, folder) for folder in suites()]
        for future in concurrent.futures.as_completed(futures):
            rel, proc, seconds = future.result()
            print(f"=== pytest {rel} ({seconds:.0f} s)", flush=True)
            sys.stdout.write(proc.stdout)
            sys.stdout.flush()
            summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
            for key, pattern in (("passed", r"(\d+) passed"), ("failed", r"(\d+) failed"),
                                 ("errors", r"(\d+) errors?"), ("skipped", r"(\d+) skipped"),
                                 ("xfailed", r"(\d+) xfailed")):
                m = re.search(pattern, summary)
                if m:
                    totals[key] += int(m.group(1))
            if proc.returncode != 0:
                failed_suites.append(str(rel))
    if failed_suites:
        print("suites that failed: " + ", ".join(failed_suites))
    failed = totals["failed"] + totals["errors"] + (len(failed_suites) if not (totals["failed"] or totals["errors"]) else 0)
    print(f"pytest: {totals['passed']} passed, {failed} failed, {totals['skipped']} skipped")
    return 1 if failed_suites else 0


if __name__ == "__main__":
    sys.exit(main())
