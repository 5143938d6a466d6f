# A stopped pipeline resumes from its checkpoint: no change lost, none twice, also when it
# stopped inside a large transaction; after kill -9, nothing lost.
import json
import subprocess
import time

from cdcd_process import cdcd_bin
from conftest import Cdcd, pipeline_yaml


def test_restart_resumes_without_loss_or_duplicates(pg, fresh_table, tmp_path):
    t = fresh_table
    pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY, v text); INSERT INTO public.{t} VALUES (1, 'a')")
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}")).start()
    first = cdcd.wait_lines(2)
    pg.sql(f"INSERT INTO public.{t} VALUES (2, 'b')")
    first = cdcd.wait_lines(3)
    assert cdcd.stop() == 0
    # While cdcd is down.
    pg.sql(f"INSERT INTO public.{t} VALUES (3, 'c'); UPDATE public.{t} SET v = 'A' WHERE id = 1")
    cdcd.start()
    pg.sql(f"INSERT INTO public.{t} VALUES (4, 'd')")
    second = cdcd.wait_lines(3)
    assert cdcd.stop() == 0
    data = [l for l in first + second if l.startswith("DataChangeEvent")]
    assert data == [
        f"DataChangeEvent{{tableId=public.{t}, before=[], after=[1, a], op=INSERT, meta=()}}",
        f"DataChangeEvent{{tableId=public.{t}, before=[], after=[2, b], op=INSERT, meta=()}}",
        f"DataChangeEvent{{tableId=public.{t}, before=[], after=[3, c], op=INSERT, meta=()}}",
        f"DataChangeEvent{{tableId=public.{t}, before=[], after=[1, A], op=UPDATE, meta=()}}",
        f"DataChangeEvent{{tableId=public.{t}, before=[], after=[4, d], op=INSERT, meta=()}}",
    ]
    assert "resuming slot" in cdcd.stderr()


def _stop_inside_a_transaction(pg, t, rows, tmp_path):
    """Starts cdcd on table `t`, inserts `rows` rows in one transaction and stops cdcd once it has
    emitted some of them. Returns cdcd, its output and how many of the rows it emitted."""
    pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY)")
    tmp_path.mkdir()
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}")).start()
    cdcd.wait_lines(1)
    pg.sql(f"INSERT INTO public.{t} SELECT g FROM generate_series(1, {rows}) g")
    # Stop while the transaction's changes are still being emitted (1024 a batch).
    cdcd.wait_lines(2000)
    assert cdcd.stop() == 0
    first = cdcd.lines()
    return cdcd, first, sum(1 for l in first if l.startswith("DataChangeEvent"))


def test_stop_inside_a_large_transaction_resumes_after_what_was_emitted(pg, fresh_table, tmp_path):
    # Whether the stop lands inside the transaction is a race with cdcd's speed: once in CI
    # (2026-12-06) all 100,000 rows were out before it did. Then a larger transaction, on a table
    # of its own, is tried.
    extra = []
    try:
        for attempt, rows in enumerate((100_000, 400_000, 1_600_000)):
            t = fresh_table if attempt == 0 else f"{fresh_table}_{attempt}"
            if attempt:
                extra.append(t)
            cdcd, first, emitted = _stop_inside_a_transaction(pg, t, rows, tmp_path / f"attempt{attempt}")
            assert 0 < emitted <= rows
            if emitted < rows:
                break
        assert emitted < rows, "every stop came after its transaction; nothing to resume inside it"
        show = subprocess.run([cdcd_bin(), "checkpoints", "show", "--state-dir", str(cdcd.state)],
                              capture_output=True, text=True, timeout=60)
        position = json.loads(show.stdout.splitlines()[0])["parts"]["source"]["state"]["state"]
        assert position["txn_events"] == emitted
        cdcd.start()
        second = cdcd.wait_lines(rows - emitted)
        assert cdcd.stop() == 0
        ids = [int(l.split("after=[")[1].split("]")[0]) for l in first + cdcd.lines()
               if l.startswith("DataChangeEvent")]
        assert ids == list(range(1, rows + 1))
        assert "skipping" in cdcd.stderr() and len(second) >= rows - emitted
    finally:
        for t in extra:
            pg.drop_slot(f"slot_{t}")
            pg.sql(f"DROP PUBLICATION IF EXISTS pub_slot_{t}; DROP TABLE IF EXISTS public.{t}")


def test_kill_9_loses_nothing(pg, fresh_table, tmp_path):
    t = fresh_table
    pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY)")
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}")).start()
    cdcd.wait_lines(1)
    pg.sql(f"INSERT INTO public.{t} SELECT g FROM generate_series(1, 1000) g")
    cdcd.wait_lines(500)
    cdcd.proc.kill()  # SIGKILL: no drain, no final checkpoint
    cdcd.proc.wait()
    first = cdcd.lines()
    pg.sql(f"INSERT INTO public.{t} SELECT g FROM generate_series(1001, 1500) g")
    cdcd.start()
    deadline = time.monotonic() + 30
    ids = set()
    while time.monotonic() < deadline and len(ids) < 1500:
        ids = {int(l.split("after=[")[1].rstrip("], op=INSERT, meta=()}")) for l in first + cdcd.lines()
               if l.startswith("DataChangeEvent")}
        time.sleep(0.1)
    assert cdcd.stop() == 0
    # At-least-once: what followed the last checkpoint before the kill comes again; nothing is lost.
    assert ids == set(range(1, 1501))


def source_state(cdcd):
    show = subprocess.run([cdcd_bin(), "checkpoints", "show", "--state-dir", str(cdcd.state)],
                          capture_output=True, text=True, timeout=60)
    assert show.returncode == 0, show.stderr
    return json.loads(show.stdout.splitlines()[0])["parts"]["source"]["state"]["state"]


def test_kill_9_right_after_creating_the_slot_starts_over_with_nothing_lost_or_repeated(
        pg, fresh_table, tmp_path):
    """The slot exists but no checkpoint names its position: before creating it the source
    recorded that it would (a checkpoint of its own), so the restart drops it and takes the
    snapshot again instead of refusing it as someone else's (which wedged the pipeline)."""
    t = fresh_table
    slot = f"slot_{t}"
    pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY); "
           f"INSERT INTO public.{t} SELECT g FROM generate_series(1, 5) g")
    # No checkpoint of the interval's for an hour: only the one the source asks for before it
    # creates the slot; the kill comes after the creation, before any other.
    yaml_text = pipeline_yaml(pg, slot, f"cdcd.public.{t}")
    cdcd = Cdcd(tmp_path, yaml_text.replace("interval: 500ms", "interval: 1h")).start()
    cdcd.wait_stderr("created slot")
    cdcd.proc.kill()
    cdcd.proc.wait()
    assert pg.slot(slot) is not None
    state = source_state(cdcd)
    assert state["lsn"] == "0/0" and "creating_slot_after" in state, state
    # What the values sink printed before the kill is not committed by any checkpoint (it prints
    # when its input runs dry); the restarted run's own output is what must hold each row once.
    pg.sql(f"INSERT INTO public.{t} VALUES (6)")
    cdcd.yaml.write_text(yaml_text)
    cdcd.start()
    lines = cdcd.wait_lines(7)
    pg.sql(f"INSERT INTO public.{t} VALUES (7)")
    lines = cdcd.wait_lines(8)
    assert cdcd.stop() == 0
    assert "dropping slot" in cdcd.stderr()
    ids = sorted(int(l.split("after=[")[1].split("]")[0]) for l in lines if l.startswith("DataChangeEvent"))
    assert ids == list(range(1, 8))
    assert "creating_slot_after" not in source_state(cdcd)


def test_a_slot_this_pipeline_did_not_record_creating_is_refused_saying_how_to_go_on(
        pg, fresh_table, tmp_path):
    t = fresh_table
    slot = f"slot_{t}"
    pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY)")
    pg.sql(f"SELECT pg_create_logical_replication_slot('{slot}', 'pgoutput')")
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, slot, f"cdcd.public.{t}")).start()
    assert cdcd.wait_exit() != 0
    assert f"replication slot {slot} already exists" in cdcd.stderr()
    assert f"pg_drop_replication_slot('{slot}')" in cdcd.stderr()
    assert pg.slot(slot) is not None, "someone else's slot is left alone"
