"""Helpers that run the real cdcd binary for black-box tests."""
import os
import pathlib
import signal
import subprocess
import time

REPO = pathlib.Path(__file__).resolve().parents[2]


def cdcd_bin() -> str:
    path = os.environ.get("CDCD_BIN", str(REPO / "build" / "release" / "cmd" / "cdcd"))
    if not pathlib.Path(path).exists():
        raise FileNotFoundError(f"cdcd binary not found at {path}; build it or set CDCD_BIN")
    return path


def write_pipeline(tmp: pathlib.Path, text: str, name: str = "pipeline.yaml") -> pathlib.Path:
    path = tmp / name
    path.write_text(text)
    return path


def run(args, timeout=120, **kwargs) -> subprocess.CompletedProcess:
    """Runs cdcd to completion and returns its output."""
    return subprocess.run([cdcd_bin(), *map(str, args)], capture_output=True, text=True, timeout=timeout, **kwargs)


# Every daemon start() started, so that a test that fails before stopping its daemon does not
# leave it running (tests/integration/conftest.py kills what is left after each test).
STARTED: list[subprocess.Popen] = []


def start(args, **kwargs) -> subprocess.Popen:
    proc = subprocess.Popen([cdcd_bin(), *map(str, args)], **kwargs)
    STARTED.append(proc)
    return proc


def kill_9_after(args, seconds: float) -> tuple[bool, str]:
    """Starts cdcd, kills it with SIGKILL `seconds` later unless it has ended, and waits for it:
    whether it was killed, and what it logged."""
    proc = start(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(seconds)
    killed = proc.poll() is None
    if killed:
        proc.send_signal(signal.SIGKILL)
    return killed, proc.communicate()[1]


def kill_left_running() -> int:
    """Kills (SIGKILL) every daemon start() started that still runs; returns how many."""
    killed = 0
    for proc in STARTED:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
            killed += 1
    STARTED.clear()
    return killed


def rss_kib(pid: int) -> int:
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def wait_exit(proc: subprocess.Popen, timeout: float) -> int:
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        raise


def wait_for(predicate, timeout: float, interval: float = 0.02):
    """Polls `predicate` every `interval` s until it answers something true, for at most `timeout` s;
    returns its last answer (true, or what it answered at the deadline)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    return predicate()


def sigterm_while_paused(proc: subprocess.Popen, pause, resume, within: float, log) -> tuple[int, float]:
    """SIGTERM to `proc` while its peer is paused (`pause()`, then `resume()` whatever happens):
    its exit code and the seconds it took to exit; fails with `log()` (what it did) when it still
    runs `within` seconds later."""
    pause()
    try:
        proc.send_signal(signal.SIGTERM)
        began = time.monotonic()
        try:
            code = proc.wait(within)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"cdcd still ran {within} s after SIGTERM with its peer paused:\n{log()}") from None
        return code, time.monotonic() - began
    finally:
        resume()


def moved_under_it(proc: subprocess.Popen, out, min_bytes: int, path, moved_to) -> tuple[int, str]:
    """Once `out` holds `min_bytes`, renames `path` to `moved_to` under the running `proc` (a log
    rotator's move of its output, an operator's of its state directory); returns the exit code
    it then ends with and its stderr."""
    assert wait_for(lambda: out.exists() and out.stat().st_size > min_bytes, 30)
    path.rename(moved_to)
    code = wait_exit(proc, timeout=30)
    return code, proc.stderr.read()
