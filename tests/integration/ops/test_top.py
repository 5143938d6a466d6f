"""`cdcd top` against running daemons: the live screen in a terminal (tmux, 80x24), what it shows
of each daemon, q to quit; --once for scripts; an unreachable daemon said so, never a crash."""
import re
import shutil
import subprocess
import time

import pytest

import cdcd_process as cdcd
import opslib

TMUX = shutil.which("tmux")


@pytest.mark.skipif(TMUX is None, reason="tmux is installed by scripts/setup.sh test")
def test_top_shows_a_running_daemon_live_and_quits_on_q(tmp_path):
    port = opslib.free_port()
    dead = opslib.free_port()  # nothing listens there
    proc = opslib.start_with_admin(tmp_path, opslib.generated("top-demo", rows=100_000_000, rate=2_000), port)
    session = f"cdcd-top-{port}"
    socket = str(tmp_path / "tmux.sock")  # a server of its own: no other test's sessions
    tmux = ["tmux", "-S", socket]
    try:
        opslib.wait_ready(port, proc)
        subprocess.run([*tmux, "new-session", "-d", "-x", "80", "-y", "24", "-s", session,
                        f"{cdcd.cdcd_bin()} top {port} 127.0.0.1:{dead} --interval 300ms; sleep 30"], check=True)

        def shown():
            return subprocess.run([*tmux, "capture-pane", "-p", "-t", session], capture_output=True,
                                  text=True, check=True).stdout

        # Rates appear from the second frame on; a checkpoint every 200 ms.
        assert cdcd.wait_for(lambda: re.search(r"source\s+values\s+-\s+[1-9][\d,]*", shown()), 15), shown()
        text = shown()
        lines = text.splitlines()
        assert all(len(line) <= 80 for line in lines), text
        assert lines[0].startswith("cdcd top · 2 daemons · every 0.3 s"), text
        assert "q quits" in lines[0]
        assert re.search(rf"── top-demo @ {port} ── ready · up \d+s · cpu \d+% · rss \d+ MB ─+$", text, re.M), text
        assert re.search(r"^  sink\s+values\s+[1-9][\d,]*\s+[1-9][\d,]*\s+0\s+0$", text, re.M), text
        assert re.search(r"^  checkpoint #\d+ · age \d+s · took \d+ ms · [\d.]+ kB · failed 0", text, re.M), text
        # The generator's progress: a bar, the count against 100M, the rate and the time left.
        assert re.search(r"^  values generate \[#*\.+\]\s+0% [\d,]+/100,000,000 · [\d,]+/s · eta \d+h\d\dm",
                         text, re.M), text
        assert re.search(rf"── 127\.0\.0\.1:{dead} ── unreachable: .*connect", text), text

        # The daemon keeps running while watched; q quits top (the shell's sleep then runs).
        assert proc.poll() is None
        subprocess.run([*tmux, "send-keys", "-t", session, "q"], check=True)
        assert cdcd.wait_for(lambda: "cdcd top" not in shown(), 5), shown()
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
        proc.terminate()
        cdcd.wait_exit(proc, 20)


def test_top_once_prints_one_frame_with_rates_for_scripts(tmp_path):
    port = opslib.free_port()
    proc = opslib.start_with_admin(tmp_path, opslib.generated("top-once", rate=5_000), port)
    try:
        opslib.wait_ready(port, proc)
        started = time.monotonic()
        out = cdcd.run(["top", str(port), "--once", "--interval", "500ms"], timeout=30)
        assert out.returncode == 0, out.stderr
        assert time.monotonic() - started >= 0.5  # rates over one interval
        assert out.stdout.startswith("cdcd top · 1 daemon · every 0.5 s")
        assert "q quits" not in out.stdout and "\x1b" not in out.stdout  # plain text
        assert re.search(r"^  source\s+values\s+-\s+[1-9][\d,]*", out.stdout, re.M), out.stdout
    finally:
        proc.terminate()
        cdcd.wait_exit(proc, 20)


def test_top_once_with_no_daemon_reachable_exits_1_and_says_why():
    out = cdcd.run(["top", str(opslib.free_port()), "--once", "--interval", "100ms"], timeout=30)
    assert out.returncode == 1
    assert "unreachable:" in out.stdout
    bad = cdcd.run(["top", "https://127.0.0.1:1"], timeout=30)
    assert bad.returncode != 0
    assert "plain HTTP" in bad.stderr
