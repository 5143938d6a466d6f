#!/usr/bin/env python3
"""Runs clang-tidy over the given sources, skipping those it already found clean.

    scripts/clang_tidy_cached.py -p BUILD_DIR [-j JOBS] FILE...

clang-tidy parses each file with every header it includes (Asio, Beast, simdjson...), which costs
tens of seconds a file: a full run is most of an hour on 2 cores. Its verdict is a function of
its version, the .clang-tidy files, the compile flags and the preprocessed text of the file
(comments kept, so NOLINT counts; line markers kept, so which file a line comes from and where,
as NOLINTNEXTLINE and the header filter see it, count too), so a file whose key is unchanged
since a clean run is clean now: only the files a change reaches are checked again. Only clean verdicts are kept, in
$CDCD_TIDY_CACHE (default ~/.cache/cdcd-clang-tidy); the key holds no absolute path, so a clone
in another folder (CI's) reuses them. Exits 1 when clang-tidy reports anything, printing it.

With $CDCD_TIDY_BUDGET (seconds) no file starts after the budget is spent: the files left are
counted, not failed, and a later run takes them up (verdicts are cached as they come). CI runs it
so, beside the integration tests, so that a cold cache spreads over runs instead of breaking
the suite's time budget."""
import argparse
import concurrent.futures
import hashlib
import json
import os
import pathlib
import shlex
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
TIDY = os.environ.get("CLANG_TIDY", "clang-tidy-14")
CLANG = os.environ.get("CLANG_TIDY_CLANG", "clang++-14")
EXTRA = "-Wno-unknown-warning-option"


def base_key():
    h = hashlib.sha256()
    h.update(subprocess.run([TIDY, "--version"], capture_output=True, check=True).stdout)
    configs = subprocess.run(["git", "ls-files", "*.clang-tidy", ".clang-tidy"], cwd=REPO,
                             capture_output=True, text=True, check=True).stdout.split()
    for config in sorted(configs):
        h.update(config.encode() + b"\0" + (REPO / config).read_bytes())
    return h.hexdigest()


def portable(text):
    return text.replace(str(REPO), ".")


def file_key(base, entry):
    """The cache key of one compile_commands entry, or None when it cannot be preprocessed."""
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    flags = []
    skip = False
    for arg in args[1:]:
        if skip:
            skip = False
            continue
        if arg == "-o":
            skip = True
            continue
        if arg in ("-c", entry["file"]):
            continue
        flags.append(arg)
    command = [CLANG, *flags, EXTRA, f"-fmacro-prefix-map={REPO}=.", "-E", "-C",
               entry["file"]]
    pre = subprocess.run(command, cwd=entry["directory"], capture_output=True)
    if pre.returncode != 0:
        return None
    h = hashlib.sha256(base.encode())
    h.update(portable(" ".join(flags)).encode() + b"\0")
    h.update(portable(entry["file"]).encode() + b"\0")
    h.update(pre.stdout.replace(str(REPO).encode(), b"."))
    return h.hexdigest()


def check(build, cache, base, entry, deadline):
    """(file, key, clean, output): runs clang-tidy unless the key is known clean; clean is None
    when the budget ran out before the file's turn."""
    if deadline is not None and time.monotonic() >= deadline:
        return entry["file"], None, None, ""
    key = file_key(base, entry)
    if key and (cache / key).exists():
        return entry["file"], key, True, None
    proc = subprocess.run([TIDY, "-p", str(build), "--quiet", f"-extra-arg={EXTRA}",
                           entry["file"]], cwd=REPO, capture_output=True, text=True)
    # clang-tidy prints "N warnings generated." for the ones in system headers it suppressed.
    output = "\n".join(line for line in (proc.stdout + proc.stderr).splitlines()
                       if not line.endswith("warnings generated.")
                       and not line.endswith("warning generated."))
    clean = proc.returncode == 0 and "warning:" not in output and "error:" not in output
    if clean and key:
        (cache / key).touch()
    return entry["file"], None, clean, output


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-p", dest="build", required=True)
    parser.add_argument("-j", dest="jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("files", nargs="+")
    options = parser.parse_args()
    build = pathlib.Path(options.build).resolve()
    entries = {e["file"]: e for e in json.loads((build / "compile_commands.json").read_text())}
    cache = pathlib.Path(os.environ.get("CDCD_TIDY_CACHE",
                                        pathlib.Path.home() / ".cache/cdcd-clang-tidy"))
    cache.mkdir(parents=True, exist_ok=True)
    base = base_key()
    started = time.monotonic()
    wanted = []
    for name in options.files:
        path = str((REPO / name).resolve())
        if path not in entries:
            print(f"clang-tidy: {name} is not in {build}/compile_commands.json", file=sys.stderr)
            return 2
        wanted.append(entries[path])
    budget = os.environ.get("CDCD_TIDY_BUDGET")
    deadline = started + float(budget) if budget else None
    reused = checked = failed = left = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
        futures = [pool.submit(check, build, cache, base, entry, deadline) for entry in wanted]
        for future in concurrent.futures.as_completed(futures):
            name, key, clean, output = future.result()
            if output is None:
                reused += 1
                continue
            if clean is None:
                left += 1
                continue
            checked += 1
            if not clean:
                failed += 1
                print(f"clang-tidy: {portable(name)}\n{output}", flush=True)
    print(f"clang-tidy: {len(wanted)} files, {reused} unchanged since a clean run, {checked} "
          f"checked, {failed} with findings ({time.monotonic() - started:.0f} s)"
          + (f"; {left} left for a later run (budget {budget} s spent)" if left else ""),
          file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
