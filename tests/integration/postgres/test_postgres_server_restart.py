# The server restarts while cdcd streams: the source reconnects and resumes after what it handed
# over, losing nothing and repeating nothing; an idle stream outlives wal_sender_timeout.
import time

import pytest

from conftest import Cdcd, pipeline_yaml
from server import PostgresServer


@pytest.fixture(scope="module")
def restartable():
    """A server of this module's own, since the test restarts it."""
    with PostgresServer() as server:
        yield server


def test_server_restart_while_streaming(restartable, tmp_path):
    pg = restartable
    pg.sql("CREATE TABLE public.restarted (id int PRIMARY KEY)")
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, "slot_restarted", "cdcd.public.restarted",
                                        "  connect.max-retries: 10\n")).start()
    try:
        cdcd.wait_lines(1)
        pg.sql("INSERT INTO public.restarted VALUES (1)")
        cdcd.wait_lines(2)
        pg.stop()
        pg.start()
        pg.sql("INSERT INTO public.restarted VALUES (2)")
        lines = cdcd.wait_lines(3)
        cdcd.wait_stderr("reconnecting")
        assert cdcd.stop() == 0
        assert [l for l in lines if l.startswith("DataChangeEvent")] == [
            "DataChangeEvent{tableId=public.restarted, before=[], after=[1], op=INSERT, meta=()}",
            "DataChangeEvent{tableId=public.restarted, before=[], after=[2], op=INSERT, meta=()}",
        ]
    finally:
        if cdcd.proc.poll() is None:
            cdcd.proc.kill()


@pytest.fixture(scope="module")
def impatient():
    """A server that drops a replication connection silent for 1 s."""
    with PostgresServer(settings={"wal_sender_timeout": "1s"}) as server:
        yield server


def test_status_updates_keep_an_idle_stream_open(impatient, tmp_path):
    pg = impatient
    pg.sql("CREATE TABLE public.idle (id int PRIMARY KEY)")
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, "slot_idle", "cdcd.public.idle", "  heartbeat.interval: 300ms\n")).start()
    try:
        cdcd.wait_lines(1)
        time.sleep(4)  # four times the server's timeout without a change
        pg.sql("INSERT INTO public.idle VALUES (1)")
        assert cdcd.wait_lines(2)[1] == "DataChangeEvent{tableId=public.idle, before=[], after=[1], op=INSERT, meta=()}"
        assert "reconnecting" not in cdcd.stderr()
        assert "timeout" not in pg.log_tail(200)
        assert cdcd.stop() == 0
    finally:
        if cdcd.proc.poll() is None:
            cdcd.proc.kill()
