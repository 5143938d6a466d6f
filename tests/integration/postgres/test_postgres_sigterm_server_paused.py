# SIGTERM while the server does not answer (its processes paused with SIGSTOP): cdcd must give up
# within pipeline.shutdown.timeout (the teardown's bound after it, cmd/teardown_watchdog.h), exit
# saying why, and let a restart, once the server is back, pass on every change: nothing lost,
# nothing wedged (docs/reliability.md).
import os
import re
import signal

import pytest

from cdcd_process import sigterm_while_paused
from conftest import Cdcd, pipeline_yaml
from server import PostgresServer

SHUTDOWN_TIMEOUT_S = 5
# The drain's bound, then the teardown's (at least 5 s), and a margin for a loaded machine.
EXIT_WITHIN_S = 2 * SHUTDOWN_TIMEOUT_S + 10


@pytest.fixture(scope="module")
def pausable():
    """A server of this module's own, since the test pauses it."""
    with PostgresServer() as server:
        yield server


def _ids(lines):
    return {int(m.group(1)) for line in lines for m in [re.search(r"after=\[(\d+)\]", line)] if m}


def test_sigterm_while_the_server_is_paused_exits_in_bounded_time_and_loses_nothing(pausable, tmp_path):
    pg = pausable
    pg.sql("CREATE TABLE public.paused (id int PRIMARY KEY)")
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, "slot_paused", "cdcd.public.paused",
                                        pipeline_extra=f"  shutdown.timeout: {SHUTDOWN_TIMEOUT_S}s\n")).start()
    group = os.getpgid(pg.proc.pid)  # the postmaster and every backend, the WAL sender's too
    try:
        cdcd.wait_lines(1)
        pg.sql("INSERT INTO public.paused SELECT generate_series(1, 200)")
        cdcd.wait_lines(201)
        pg.sql("INSERT INTO public.paused SELECT generate_series(201, 400)")
        code, took = sigterm_while_paused(cdcd.proc, lambda: os.killpg(group, signal.SIGSTOP),
                                          lambda: os.killpg(group, signal.SIGCONT), EXIT_WITHIN_S,
                                          lambda: cdcd.stderr()[-4000:])
        first = cdcd.lines()
        log = cdcd.stderr()
        print(f"exited {code} {took:.1f} s after SIGTERM, {len(_ids(first))} changes passed on")
        final = re.search(r"final checkpoint \d+ written", log)
        assert code in (0, 1) and bool(final) == (code == 0), log[-4000:]
        # The server is back: a restart passes on every change (what followed the last
        # checkpoint again, at least once).
        cdcd.start()
        cdcd._until(lambda: _ids(first) | _ids(cdcd.lines()) >= set(range(1, 401)), 60)
        assert cdcd.stop() == 0, cdcd.stderr()[-3000:]
        missing = set(range(1, 401)) - _ids(first) - _ids(cdcd.lines())
        assert not missing, f"{len(missing)} changes lost: {sorted(missing)[:10]}"
    finally:
        if cdcd.proc.poll() is None:
            cdcd.proc.kill()
