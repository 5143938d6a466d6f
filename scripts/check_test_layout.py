#!/usr/bin/env python3
"""Checks that the unit tests mirror the source tree: tests/unit/<dir>/<name>_test.cpp tests
<dir>/<name>.cpp (or .h), and <name>_<aspect>_test.cpp one aspect of it. Prints the files that
name no source and exits 1 when there are any. tests/unit/conformance/ holds the suites every
connector runs (no source of their own); files not ending in _test.cpp are helpers.
Also refuses a test case name with a ';': CTest's test discovery splits the name there and runs
two tests that match nothing, which fail."""
import pathlib
import re
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
UNIT = pathlib.PurePosixPath("tests/unit")
TEST_NAME = re.compile(r'TEST_CASE(?:_METHOD)?\((?:\w+,\s*)?"((?:[^"\\]|\\.)*)"')


def tested_source(test: pathlib.PurePosixPath):
    folder = test.parent.relative_to(UNIT)
    stem = test.name[: -len("_test.cpp")]
    while stem:
        for ext in (".cpp", ".h"):
            if (REPO / folder / (stem + ext)).is_file():
                return folder / (stem + ext)
        if "_" not in stem:
            return None
        stem = stem.rsplit("_", 1)[0]
    return None


def main():
    files = subprocess.run(["git", "ls-files", "tests/unit/*.cpp"], cwd=REPO, capture_output=True,
                           text=True, check=True).stdout.split()
    stray = []
    for name in files:
        test = pathlib.PurePosixPath(name)
        if test.parts[2] == "conformance" or not test.name.endswith("_test.cpp"):
            continue
        if tested_source(test) is None:
            stray.append(name)
    for name in stray:
        print(f"{name}: names no source file; call it <source>_test.cpp or "
              f"<source>_<aspect>_test.cpp after the file it tests, in the folder mirroring it")
    split = []
    for name in files:
        text = (REPO / name).read_text()
        for match in TEST_NAME.finditer(text):
            if ";" in match.group(1):
                line = text.count("\n", 0, match.start()) + 1
                split.append(f"{name}:{line}: test case name \"{match.group(1)}\" has a ';', where "
                             "CTest splits it into two tests that fail; use a comma")
    for line in split:
        print(line)
    return 1 if stray or split else 0


if __name__ == "__main__":
    sys.exit(main())
