#!/usr/bin/env python3
"""Runs every pytest suite folder in its own process (emulators, services, integration tests each
import sibling helper modules by short names such as `client` or `conftest`, which would collide
in one process), then prints one summary line and exits non-zero if any suite failed. Folders that
need another import mode say so in their own pytest.ini."""
import pathlib
import re
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
ROOTS = ["tests/emulators", "tests/services", "tests/integration"]
ONLY = sys.argv[1:]  # optional: run just these folders


def suites():
    for root in ROOTS:
        for folder in sorted((REPO / root).iterdir()):
            if folder.is_dir() and any(folder.rglob("test_*.py")):
                if not ONLY or str(folder.relative_to(REPO)) in ONLY:
                    yield folder


def main() -> int:
    totals = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0, "xfailed": 0}
    failed_suites = []
    for folder in suites():
        rel = folder.relative_to(REPO)
        print(f"=== pytest {rel}", flush=True)
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               str(rel)], cwd=REPO, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        sys.stdout.write(proc.stdout)
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
