# Postgres source integration tests: the real cdcd binary against a real PostgreSQL
# (tests/services/postgres), reading its values sink's output (stdout).
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests" / "services" / "postgres"))
sys.path.insert(0, str(ROOT / "tests" / "integration"))

from server import DATABASE, PASSWORD, USER, postgres_server, postgres_tls_server  # noqa: E402,F401
from cdcd_process import cdcd_bin  # noqa: E402

# Every wait in these tests ends here at the latest.
WAIT_S = 30
# The processes started, so that a failed test's cdcd is killed before its slot is dropped.
STARTED: list[subprocess.Popen] = []


def pipeline_yaml(pg, slot: str, tables: str, extra: str = "", sink: str = "  type: values\n",
                  pipeline_extra: str = "") -> str:
    """A pipeline reading `tables` through `slot`; the password comes from the environment, as a
    user would write it."""
    return (f"source:\n  type: postgres\n  hostname: 127.0.0.1\n  port: {pg.port}\n"
            f"  username: {USER}\n  password: ${{PG_TEST_PASSWORD}}\n  tables: {tables}\n"
            f"  slot.name: {slot}\n  debezium.publication.autocreate.mode: filtered\n"
            f"  debezium.publication.name: pub_{slot}\n"
            f"  scan.lsn-commit.checkpoints-num-delay: 0\n{extra}"
            f"sink:\n{sink}pipeline:\n  name: pg-{slot}\n"
            f"  execution.checkpointing.interval: 500ms\n{pipeline_extra}")


class Cdcd:
    """Runs `cdcd run` on a pipeline, its stdout and stderr into files, with one state directory
    kept across runs."""

    def __init__(self, tmp_path: Path, yaml_text: str):
        self.dir = tmp_path
        self.yaml = tmp_path / "pipeline.yaml"
        self.yaml.write_text(yaml_text)
        self.state = tmp_path / "state"
        self.proc = None
        self.runs = 0

    @property
    def out_file(self) -> Path:
        return self.dir / f"stdout.{self.runs}"

    @property
    def err_file(self) -> Path:
        return self.dir / f"stderr.{self.runs}"

    def start(self, *args: str) -> "Cdcd":
        self.runs += 1
        env = dict(os.environ, PG_TEST_PASSWORD=PASSWORD)
        with open(self.out_file, "wb") as out, open(self.err_file, "wb") as err:
            self.proc = subprocess.Popen([cdcd_bin(), "run", str(self.yaml), "--state-dir", str(self.state), *args],
                                         stdout=out, stderr=err, env=env)
        STARTED.append(self.proc)
        return self

    def lines(self) -> list[str]:
        return [l for l in self.out_file.read_text().splitlines() if l.strip()]

    def stderr(self) -> str:
        return self.err_file.read_text()

    def _until(self, done, timeout: float) -> bool:
        """Polls `done()` until it holds (True) or the time is up or cdcd exited (False)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if done():
                return True
            if self.proc.poll() is not None:
                return bool(done())
            time.sleep(0.05)
        return False

    def wait_lines(self, n: int, timeout: float = WAIT_S) -> list[str]:
        """Waits until stdout holds at least `n` lines; fails with the output so far."""
        if self._until(lambda: len(self.lines()) >= n, timeout):
            return self.lines()
        pytest.fail(f"expected {n} lines of output, got:\n" + "\n".join(self.lines()) +
                    f"\nstderr:\n{self.stderr()[-3000:]}")

    def wait_stderr(self, text: str, timeout: float = WAIT_S) -> None:
        if not self._until(lambda: text in self.stderr(), timeout):
            pytest.fail(f"'{text}' not in stderr:\n{self.stderr()[-3000:]}")

    def stop(self, timeout: float = WAIT_S) -> int:
        """SIGTERM: drains with a final checkpoint; returns the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.wait_exit(timeout)

    def wait_exit(self, timeout: float = WAIT_S) -> int:
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise


@pytest.fixture
def pg(postgres_server):
    return postgres_server


@pytest.fixture
def fresh_table(pg, request):
    """A table named after the test, dropped (with its slot and publication) afterwards."""
    name = request.node.name.replace("test_", "t_")[:40].lower()
    pg.sql(f"DROP TABLE IF EXISTS public.{name}")
    yield name
    for proc in STARTED:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    STARTED.clear()
    pg.drop_slot(f"slot_{name}")
    pg.sql(f"DROP PUBLICATION IF EXISTS pub_slot_{name}; DROP TABLE IF EXISTS public.{name}")
