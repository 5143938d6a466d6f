import pathlib
import signal
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import cdcd_process as cdcd  # noqa: E402
import dingtalk_env  # noqa: E402


@pytest.fixture
def emu():
    emulator = dingtalk_env.start_emulator()
    yield emulator
    emulator.stop()


class Daemon:
    """A running `cdcd run`; stderr goes to a file for inspection."""

    def __init__(self, tmp: pathlib.Path, yaml_text: str, name: str = "pipeline.yaml"):
        self.yaml = cdcd.write_pipeline(tmp, yaml_text, name)
        self.state = tmp / "state"
        self.log = tmp / "cdcd.log"
        self.proc = None

    def start(self):
        self.log_file = open(self.log, "a")
        self.proc = cdcd.start(["run", self.yaml, "--state-dir", self.state],
                               stdout=self.log_file, stderr=subprocess.STDOUT)
        return self

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.log_file.close()

    def stop(self, timeout: float = 20) -> int:
        if self.proc is None:
            return 0
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        code = cdcd.wait_exit(self.proc, timeout)
        self.log_file.close()
        self.proc = None
        return code

    def output(self) -> str:
        return self.log.read_text() if self.log.exists() else ""


@pytest.fixture
def daemon(tmp_path):
    started = []

    def make(yaml_text: str, name: str = "pipeline.yaml") -> Daemon:
        d = Daemon(tmp_path, yaml_text, name)
        started.append(d)
        return d

    yield make
    for d in started:
        if d.alive():
            d.stop()
