"""Runs cdcd on pipelines transcribed from Apache Flink CDC's own tests and compares the values
sink's stdout with the output those tests expect (cases/<name>/{pipeline.yaml,expected.txt};
cases/README.md names the Flink test of every case).

How stdout is compared follows how the Flink test asserts it:
* ``exact``: FlinkPipelineComposer*ITCase / FlinkPipelineTransformITCase capture stdout and assert
  ``outCaptor.toString().trim().split("\\n")`` ``containsExactly(expected)``: same lines, same order.
* ``contains``: ValuesE2eITCase (parallelism > 1) waits until every expected string occurs somewhere
  in the task manager's stdout (``validateResult`` → ``waitUntilSpecificEvent``): order, `N> `
  prefixes and extra lines are not asserted.
* ``none``: the Flink test asserts only the values sink's in-memory tables, not stdout
  (see results.json and test_materialized_results).
"""
import json
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import cdcd_process  # noqa: E402

from materialize import materialize  # noqa: E402

CASES_DIR = pathlib.Path(__file__).resolve().parent / "cases"

# How each case's stdout is compared (default: exact).
MODE = {
    "e2e_single_split_single_table_p2": "contains",
    "e2e_single_split_multi_tables_p2": "contains",
    "e2e_multi_splits_single_table_p2": "contains",
    "e2e_single_split_single_table_default_value_p2": "contains",
    "evolve_route_mode_first_match": "none",
    "evolve_route_mode_all_match": "none",
    "lenient_multi_splits_single_table_p4": "none",
}

# Known differences. Each names the exact difference; see README.md for the analysis.
XFAIL = {}


def case_names():
    return sorted(p.name for p in CASES_DIR.iterdir() if (p / "pipeline.yaml").exists())


def params(names, xfails):
    out = []
    for name in names:
        marks = [pytest.mark.xfail(strict=True, reason=xfails[name])] if name in xfails else []
        out.append(pytest.param(name, id=name, marks=marks))
    return out


_runs = {}


def run_case(name: str, tmp_path_factory) -> str:
    """Runs a case once per session (stdout and results tests share the run)."""
    if name not in _runs:
        state = tmp_path_factory.mktemp(f"state-{name}")
        proc = cdcd_process.run(["run", CASES_DIR / name / "pipeline.yaml", "--state-dir", state],
                                timeout=120, cwd=str(CASES_DIR / name))
        assert proc.returncode == 0, f"cdcd exited {proc.returncode}\nstderr:\n{proc.stderr[-4000:]}"
        _runs[name] = proc.stdout
    return _runs[name]


@pytest.mark.parametrize("name", params([n for n in case_names() if MODE.get(n, "exact") != "none"], XFAIL))
def test_stdout_matches_flink(name, tmp_path_factory):
    stdout = run_case(name, tmp_path_factory)
    expected = (CASES_DIR / name / "expected.txt").read_text().splitlines()
    mode = MODE.get(name, "exact")
    if mode == "exact":
        # Flink: outCaptor.toString().trim().split("\n") containsExactly(expected...)
        assert stdout.strip().split("\n") == expected
    elif mode == "contains":
        missing = [line for line in expected if line not in stdout]
        assert not missing, "expected events never printed:\n" + "\n".join(missing)
    else:
        raise AssertionError(f"unknown mode {mode}")


# results.json: Flink's assertions on ValuesDatabase (the values sink's materialized tables).
# cdcd does not expose its materialized tables, so they are rebuilt from the printed events with
# ValuesDatabase's rules (materialize.py).
RESULT_XFAIL = {}


def result_cases():
    return sorted(p.name for p in CASES_DIR.iterdir() if (p / "results.json").exists())


@pytest.mark.parametrize("name", params(result_cases(), RESULT_XFAIL))
def test_materialized_results(name, tmp_path_factory):
    stdout = run_case(name, tmp_path_factory)
    tables = materialize(stdout)
    for check in json.loads((CASES_DIR / name / "results.json").read_text()):
        kind = check["assert"]
        if kind == "none_startswith":
            everything = [r for rows in tables.values() for r in rows]
            assert not [r for r in everything if r.startswith(check["prefix"])]
            continue
        assert check["table"] in tables, f"{check['table']} was never created"
        rows = tables[check["table"]]
        if kind == "contains":
            assert set(check["rows"]) <= set(rows), (check, rows)
        elif kind == "contains_exactly":  # order of a HashMap in Flink; compared as multiset
            assert sorted(rows) == sorted(check["rows"]), (check, rows)
        elif kind == "not_empty":
            assert rows
        else:
            raise AssertionError(f"unknown assertion {kind}")
