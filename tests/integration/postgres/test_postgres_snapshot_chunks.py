# The snapshot reads tables in primary key order, a chunk at a time, and a stop during it goes on
# after the last key emitted instead of reading everything again.
import json
import subprocess
import time

from cdcd_process import cdcd_bin
from conftest import Cdcd, pipeline_yaml


def source_state(cdcd):
    show = subprocess.run([cdcd_bin(), "checkpoints", "show", "--state-dir", str(cdcd.state)],
                          capture_output=True, text=True, timeout=60)
    assert show.returncode == 0, show.stderr
    return json.loads(show.stdout.splitlines()[0])["parts"]["source"]["state"]["state"]


def ids_of(lines, table):
    return [int(l.split("after=[")[1].split(",")[0].rstrip("]")) for l in lines
            if l.startswith(f"DataChangeEvent{{tableId=public.{table},") and "op=INSERT" in l]


def test_a_stop_during_the_snapshot_reads_on_after_the_last_key(pg, fresh_table, tmp_path):
    # Read in name order: `small` whole before the stop, `big` interrupted.
    small, big = fresh_table + "_1", fresh_table + "_2"
    rows = 300_000
    pg.sql(f"DROP TABLE IF EXISTS public.{small}, public.{big};"
           f"CREATE TABLE public.{small} (id int PRIMARY KEY);"
           f"INSERT INTO public.{small} SELECT g FROM generate_series(1, 10) g;"
           f"CREATE TABLE public.{big} (id int PRIMARY KEY, pad text);"
           f"INSERT INTO public.{big} SELECT g, repeat('p', 20) FROM generate_series(1, {rows}) g")
    try:
        # Small chunks, so that reading `big` lasts well past the stop: with chunks of 1000 rows,
        # 92k-141k of its 300k rows were read by the time the stop landed, and a fast run read
        # them all first (the snapshot had ended); with 200, 27k-62k.
        yaml_text = pipeline_yaml(pg, f"slot_{fresh_table}", f"cdcd.public.{fresh_table}_\\.*",
                                  "  scan.incremental.snapshot.chunk.size: 200\n  scan.snapshot.fetch.size: 50\n")
        # Checkpoints every 100 ms, so that the stop finds the snapshot part read.
        cdcd = Cdcd(tmp_path, yaml_text.replace("interval: 500ms", "interval: 100ms")).start()
        cdcd.wait_lines(20)
        assert cdcd.stop() == 0
        first = cdcd.lines()
        state = source_state(cdcd)
        assert state["phase"] == "snapshot", "the snapshot ended before the stop"
        assert state["snapshot"]["done"] == [f"public.{small}"]
        assert state["snapshot"]["table"] == f"public.{big}"
        read_before = ids_of(first, big)
        assert read_before == list(range(1, len(read_before) + 1))
        assert state["snapshot"]["after"] == [str(read_before[-1])]
        # While stopped: a change to a row already read is streamed after the snapshot; one to a
        # row not read yet is in the row the restart reads, and not streamed again (before
        # exactly-once restarts it came twice).
        pg.sql(f"UPDATE public.{big} SET pad = 'changed' WHERE id = 1;"
               f"UPDATE public.{big} SET pad = 'later' WHERE id = {rows}")
        cdcd.start()
        second = cdcd.wait_lines(rows - len(read_before) + 1)
        assert cdcd.stop() == 0
        assert "reading on the snapshot (1 tables done)" in cdcd.stderr()
        # The snapshot's progress (metrics/progress.h): logged, and its end with the rows read.
        assert f"postgres snapshot: done, {rows - len(read_before)} items in" in cdcd.stderr()
        assert ids_of(second, small) == []
        assert sorted(ids_of(first + second, big)) == list(range(1, rows + 1))
        assert not any(l.startswith("CreateTableEvent") for l in second)
        assert f"DataChangeEvent{{tableId=public.{big}, before=[], after=[{rows}, later], op=INSERT, meta=()}}" in second
        updates = [l for l in second if "op=UPDATE" in l]
        assert updates == [f"DataChangeEvent{{tableId=public.{big}, before=[], after=[1, changed], "
                           f"op=UPDATE, meta=()}}"]
        assert source_state(cdcd).get("resumed") is None, "kept after the stream passed it"
    finally:
        pg.sql(f"DROP TABLE IF EXISTS public.{small}, public.{big}")


def test_a_composite_primary_key_pages_in_key_order(pg, fresh_table, tmp_path):
    t = fresh_table
    pg.sql(f"CREATE TABLE public.{t} (a int, b text, PRIMARY KEY (a, b));"
           f"INSERT INTO public.{t} SELECT g % 3, 'k' || g FROM generate_series(1, 20) g")
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}",
                                        "  scan.incremental.snapshot.chunk.size: 4\n  scan.snapshot.fetch.size: 3\n")).start()
    lines = cdcd.wait_lines(21)
    assert cdcd.stop() == 0
    got = [l.split("after=[")[1].split("]")[0] for l in lines[1:]]
    expected = pg.rows(f"SELECT a, b FROM public.{t} ORDER BY a, b")
    assert got == [f"{a}, {b}" for a, b in expected]


def test_a_table_without_primary_key_is_chunked_by_the_chunk_key_column(pg, fresh_table, tmp_path):
    t = fresh_table
    pg.sql(f"CREATE TABLE public.{t} (k int NOT NULL, v text);"
           f"INSERT INTO public.{t} SELECT g / 4, 'v' || g FROM generate_series(1, 40) g")
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}",
                                        "  scan.incremental.snapshot.chunk.size: 6\n  scan.snapshot.fetch.size: 3\n"
                                        "  scan.incremental.snapshot.chunk.key-column: k\n")).start()
    lines = cdcd.wait_lines(41)
    assert cdcd.stop() == 0
    got = sorted(l.split("after=[")[1].split("]")[0] for l in lines[1:])
    assert got == sorted(f"{g // 4}, v{g}" for g in range(1, 41))
    keys = [int(l.split("after=[")[1].split(",")[0]) for l in lines[1:]]
    assert keys == sorted(keys), "read in chunk key order"


def test_a_chunk_key_column_the_table_lacks_is_refused_naming_the_option(pg, fresh_table, tmp_path):
    t = fresh_table
    pg.sql(f"CREATE TABLE public.{t} (k int NOT NULL)")
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}",
                                        "  scan.incremental.snapshot.chunk.key-column: nope\n")).start()
    assert cdcd.wait_exit() != 0
    assert "scan.incremental.snapshot.chunk.key-column" in cdcd.stderr()
    assert "`nope`" in cdcd.stderr()


def test_a_restarted_read_filters_a_commit_it_saw_before_the_server_wrote_it(tmp_path):
    """A restarted read's snapshot sees a transaction as soon as it has committed, but under
    asynchronous commit (synchronous_commit off, as here) its commit record may not be written
    yet: the read's WAL position must be where records are inserted, not where they are written,
    or the filter ends before that transaction is streamed and its change arrives twice. The WAL
    writer waking every 10 s keeps the commit unwritten while the restart reads and streams."""
    from server import PostgresServer

    t = "lagging_commit"
    rows = 300_000
    with PostgresServer(settings={"wal_writer_delay": "10000ms"}) as pg:
        pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY, pad text);"
               f"INSERT INTO public.{t} SELECT g, repeat('p', 20) FROM generate_series(1, {rows}) g")
        yaml_text = pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}",
                                  "  scan.incremental.snapshot.chunk.size: 1000\n  scan.snapshot.fetch.size: 250\n")
        cdcd = Cdcd(tmp_path, yaml_text.replace("interval: 500ms", "interval: 100ms")).start()
        try:
            cdcd.wait_lines(20)
            assert cdcd.stop() == 0
            first = cdcd.lines()
            assert source_state(cdcd)["phase"] == "snapshot", "the snapshot ended before the stop"
            # While stopped: a change to the last row, which the restart reads; its commit record
            # ends at or before the insert position read right after it.
            inserted, written = pg.sql(
                f"UPDATE public.{t} SET pad = 'seen' WHERE id = {rows};"
                "SELECT pg_current_wal_insert_lsn(), pg_current_wal_lsn()").strip().split("|")
            cdcd.start()
            cdcd.wait_lines(rows - len(ids_of(first, t)))
            # The stream, past the WAL writer's next round: a later change arrives, once.
            pg.sql(f"UPDATE public.{t} SET pad = 'after' WHERE id = 1")
            after = f"DataChangeEvent{{tableId=public.{t}, before=[], after=[1, after], op=UPDATE, meta=()}}"
            deadline = time.monotonic() + 30
            while after not in cdcd.lines() and time.monotonic() < deadline:
                time.sleep(0.1)
            assert after in cdcd.lines(), cdcd.stderr()[-3000:]
            assert cdcd.stop() == 0
            second = cdcd.lines()
        finally:
            if cdcd.proc.poll() is None:
                cdcd.proc.kill()
                cdcd.proc.wait()
        seen = [l for l in second if f"after=[{rows}, seen]" in l]
        assert seen == [f"DataChangeEvent{{tableId=public.{t}, before=[], after=[{rows}, seen], "
                        f"op=INSERT, meta=()}}"], (
            f"the change seen by the restarted read (inserted up to {inserted}, written up to "
            f"{written} when it committed): {seen}")


def test_a_table_altered_while_its_snapshot_was_stopped_is_announced_again_before_its_rows(
        pg, fresh_table, tmp_path):
    # The rest of the snapshot is read by the columns as they are at the restart: downstream
    # hears of the change first. Before, the rows went out under the schema announced before the
    # stop, each value in the column before its own once a column was dropped from the middle,
    # and a decimal read as text (debezium.decimal.handling.mode string) written as a number.
    t = fresh_table
    rows = 300_000
    pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY, pad text, n numeric);"
           f"INSERT INTO public.{t} SELECT g, repeat('p', 20), g + 0.5 FROM generate_series(1, {rows}) g")
    base = pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}",
                         "  scan.incremental.snapshot.chunk.size: 200\n  scan.snapshot.fetch.size: 50\n"
                         "  schema-change.enabled: true\n")
    cdcd = Cdcd(tmp_path, base.replace("interval: 500ms", "interval: 100ms")).start()
    cdcd.wait_lines(20)
    assert cdcd.stop() == 0
    read_before = ids_of(cdcd.lines(), t)
    assert source_state(cdcd)["phase"] == "snapshot", "the snapshot ended before the stop"
    pg.sql(f"ALTER TABLE public.{t} DROP COLUMN pad")

    # Without schema changes, the restart stops at once, naming the change.
    cdcd.yaml.write_text(base.replace("  schema-change.enabled: true\n", ""))
    cdcd.start()
    assert cdcd.wait_exit() != 0
    assert (f"the columns of table public.{t} changed (it has 2 columns, the known schema 3); "
            "with schema-change.enabled false") in cdcd.stderr()
    assert not any(l.startswith("DataChangeEvent") for l in cdcd.lines())

    cdcd.yaml.write_text(base.replace("  schema-change.enabled: true\n", "  schema-change.enabled: true\n"
                                      "  debezium.decimal.handling.mode: string\n"))
    cdcd.start()
    second = cdcd.wait_lines(1 + rows - len(read_before))
    assert cdcd.stop() == 0
    # schema.change.behavior LENIENT (the default) keeps the dropped column, null from here on.
    assert second[0] == (f"AlterColumnTypeEvent{{tableId=public.{t}, typeMapping={{n=STRING}}, "
                         f"oldTypeMapping={{n=DECIMAL(38, 0)}}, comments={{}}}}")
    rest = second[1:]
    first_id = read_before[-1] + 1
    assert rest[0] == (f"DataChangeEvent{{tableId=public.{t}, before=[], "
                       f"after=[{first_id}, null, {first_id}.5], op=INSERT, meta=()}}")
    assert all(l.endswith(", null, " + l.split("after=[")[1].split(",")[0] + ".5], op=INSERT, meta=()}")
               for l in rest), [l for l in rest if "null" not in l][:3]
    assert sorted(ids_of(rest, t) + read_before) == list(range(1, rows + 1))
