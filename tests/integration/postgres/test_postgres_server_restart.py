# The server restarts while cdcd streams: the source reconnects and resumes after what it handed
# over, losing nothing and repeating nothing.
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
