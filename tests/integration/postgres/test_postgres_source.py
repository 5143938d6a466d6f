# The postgres source end to end: the snapshot and the changes after it, checked exactly against
# the values sink's output; the startup modes; the slot's confirmed position.
import json
import time

from conftest import WAIT_S, Cdcd, pipeline_yaml
from server import lsn_value

COMMON_TYPES = """(
    id int PRIMARY KEY,
    flag boolean,
    small smallint,
    big bigint,
    price numeric(10, 2),
    ratio real,
    score double precision,
    name varchar(20),
    code char(3),
    note text,
    payload bytea,
    day date,
    at_time time,
    at_ts timestamp,
    at_tstz timestamptz,
    uid uuid,
    doc jsonb,
    raw json
)"""

ROW_1 = ("(1, true, 7, 9000000000, 12.50, 1.5, 2.25, 'alpha', 'abc', 'x', '\\x0102ff', '2024-02-29',"
         " '10:15:30.5', '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05+02',"
         " 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{\"b\": 1, \"a\": [2]}', '{\"k\":  \"v\"}')")
ROW_2 = "(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)"

CREATE = ("CreateTableEvent{{tableId=public.{t}, schema=columns={{`id` INT NOT NULL,`flag` BOOLEAN,"
          "`small` SMALLINT,`big` BIGINT,`price` DECIMAL(10, 2),`ratio` FLOAT,`score` DOUBLE,"
          "`name` VARCHAR(20),`code` CHAR(3),`note` STRING,`payload` BYTES,`day` DATE,"
          "`at_time` TIME(6),`at_ts` TIMESTAMP(6),`at_tstz` TIMESTAMP_LTZ(6),`uid` STRING,"
          "`doc` STRING,`raw` STRING}}, primaryKeys=id, options=()}}")
VALUES_1 = ("1, true, 7, 9000000000, 12.50, 1.5, 2.25, alpha, abc, x, AQL/, 2024-02-29, 10:15:30.500, "
            "2024-01-02T03:04:05.123456, 2024-01-02T01:04:05, a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11, "
            "{\"a\": [2], \"b\": 1}, {\"k\":  \"v\"}")
NULLS_2 = "2, " + ", ".join(["null"] * 17)


def insert(t, after):
    return f"DataChangeEvent{{tableId=public.{t}, before=[], after=[{after}], op=INSERT, meta=()}}"


def test_snapshot_then_changes_with_the_common_types(pg, fresh_table, tmp_path):
    t = fresh_table
    pg.sql(f"CREATE TABLE public.{t} {COMMON_TYPES}; INSERT INTO public.{t} VALUES {ROW_1}, {ROW_2}")
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}")).start()
    lines = cdcd.wait_lines(3)
    assert lines == [CREATE.format(t=t), insert(t, VALUES_1), insert(t, NULLS_2)]
    pg.sql(f"INSERT INTO public.{t} (id, name) VALUES (3, 'gamma');"
           f"UPDATE public.{t} SET name = 'beta', price = 0.5 WHERE id = 2;"
           f"DELETE FROM public.{t} WHERE id = 1")
    lines = cdcd.wait_lines(6)
    nulls = lambda n: ", ".join(["null"] * n)  # noqa: E731
    assert lines[3:] == [
        insert(t, f"3, {nulls(6)}, gamma, {nulls(10)}"),
        f"DataChangeEvent{{tableId=public.{t}, before=[], after=[2, null, null, null, 0.50, null, null, "
        f"beta, {nulls(10)}], op=UPDATE, meta=()}}",
        f"DataChangeEvent{{tableId=public.{t}, before=[1, {nulls(17)}], after=[], op=DELETE, meta=()}}",
    ]
    assert cdcd.stop() == 0
    assert "final checkpoint" in cdcd.stderr()


def test_replica_identity_full_gives_before_images(pg, fresh_table, tmp_path):
    t = fresh_table
    pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY, v text); ALTER TABLE public.{t} REPLICA IDENTITY FULL;"
           f"INSERT INTO public.{t} VALUES (1, 'a')")
    # The values sink applies a truncate only when schema changes evolve.
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}",
                                        pipeline_extra="  schema.change.behavior: EVOLVE\n")).start()
    cdcd.wait_lines(2)
    pg.sql(f"UPDATE public.{t} SET v = 'b' WHERE id = 1; DELETE FROM public.{t} WHERE id = 1;"
           f"INSERT INTO public.{t} VALUES (2, 'c'); TRUNCATE public.{t}")
    lines = cdcd.wait_lines(6)
    assert lines[2:] == [
        f"DataChangeEvent{{tableId=public.{t}, before=[1, a], after=[1, b], op=UPDATE, meta=()}}",
        f"DataChangeEvent{{tableId=public.{t}, before=[1, b], after=[], op=DELETE, meta=()}}",
        insert(t, "2, c"),
        f"TruncateTableEvent{{tableId=public.{t}}}",
    ]
    assert cdcd.stop() == 0


def test_unchanged_toast_value_is_debeziums_placeholder(pg, fresh_table, tmp_path):
    t = fresh_table
    # Incompressible text above the TOAST threshold is stored out of line.
    pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY, big text, n int);"
           f"ALTER TABLE public.{t} ALTER COLUMN big SET STORAGE EXTERNAL")
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}")).start()
    cdcd.wait_lines(1)
    pg.sql(f"INSERT INTO public.{t} VALUES (1, repeat('x', 10000), 1); UPDATE public.{t} SET n = 2 WHERE id = 1")
    lines = cdcd.wait_lines(3)
    assert lines[1] == insert(t, f"1, {'x' * 10000}, 1")
    assert lines[2] == (f"DataChangeEvent{{tableId=public.{t}, before=[], after=[1, "
                        f"__debezium_unavailable_value, 2], op=UPDATE, meta=()}}")
    assert cdcd.stop() == 0


def test_a_large_transaction_arrives_whole_and_in_order(pg, fresh_table, tmp_path):
    t = fresh_table
    pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY)")
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}")).start()
    cdcd.wait_lines(1)
    pg.sql(f"INSERT INTO public.{t} SELECT g FROM generate_series(1, 5000) g")
    lines = cdcd.wait_lines(5001)
    assert lines[1:] == [insert(t, str(i)) for i in range(1, 5001)]
    assert cdcd.stop() == 0


def test_snapshot_mode_reads_the_tables_and_ends(pg, fresh_table, tmp_path):
    t = fresh_table
    pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY, v text); INSERT INTO public.{t} VALUES (1, 'a'), (2, 'b')")
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}",
                                        "  scan.startup.mode: snapshot\n",
                                        pipeline_extra="  execution.runtime-mode: BATCH\n")).start()
    assert cdcd.wait_exit() == 0, cdcd.stderr()
    assert cdcd.lines()[1:] == [insert(t, "1, a"), insert(t, "2, b")]
    assert pg.slot(f"slot_{t}") is None  # a snapshot needs no slot


def test_latest_offset_reads_only_new_changes(pg, fresh_table, tmp_path):
    t = fresh_table
    pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY); INSERT INTO public.{t} VALUES (1)")
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}",
                                        "  scan.startup.mode: latest-offset\n")).start()
    cdcd.wait_stderr("created slot")
    time.sleep(0.5)
    pg.sql(f"INSERT INTO public.{t} VALUES (2)")
    lines = cdcd.wait_lines(2)
    assert lines[0].startswith(f"CreateTableEvent{{tableId=public.{t}, schema=columns={{`id` INT NOT NULL}}")
    assert lines[1:] == [insert(t, "2")]
    assert cdcd.stop() == 0


def test_slot_advances_only_past_durable_checkpoints(pg, fresh_table, tmp_path):
    t = fresh_table
    slot = f"slot_{t}"
    pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY)")

    def reported(column):  # what cdcd's status updates told the server
        value = pg.sql(f"SELECT {column} FROM pg_stat_replication WHERE application_name = 'cdcd'",
                       superuser=True).strip()  # the details need pg_read_all_stats
        return lsn_value(value) if value else 0

    # No checkpoint for an hour: the change is received (and reported as written), but the
    # slot's confirmed position stays where it began.
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, slot, f"cdcd.public.{t}", "  heartbeat.interval: 200ms\n")
                .replace("execution.checkpointing.interval: 500ms", "execution.checkpointing.interval: 1h")).start()
    cdcd.wait_stderr("snapshot of public")
    deadline = time.monotonic() + WAIT_S
    while not reported("write_lsn") and time.monotonic() < deadline:
        time.sleep(0.1)
    start = lsn_value(pg.slot(slot)["confirmed_flush_lsn"])
    pg.sql(f"INSERT INTO public.{t} VALUES (1)")
    after_insert = lsn_value(pg.sql("SELECT pg_current_wal_lsn()").strip())
    while reported("write_lsn") < after_insert and time.monotonic() < deadline:
        time.sleep(0.1)
    assert reported("write_lsn") >= after_insert
    time.sleep(1)  # several more status updates
    assert lsn_value(pg.slot(slot)["confirmed_flush_lsn"]) == start
    assert reported("flush_lsn") <= start
    assert cdcd.stop() == 0  # its final checkpoint may take the slot past the insert
    # With checkpoints every 500 ms (delay 0), the slot follows them past a change made while
    # the pipeline runs.
    cdcd.yaml.write_text(pipeline_yaml(pg, slot, f"cdcd.public.{t}", "  heartbeat.interval: 200ms\n"))
    cdcd.start()
    deadline = time.monotonic() + WAIT_S
    while not reported("write_lsn") and time.monotonic() < deadline:
        time.sleep(0.1)
    pg.sql(f"INSERT INTO public.{t} VALUES (2)")
    after_second = lsn_value(pg.sql("SELECT pg_current_wal_lsn()").strip())
    while lsn_value(pg.slot(slot)["confirmed_flush_lsn"]) < after_second and time.monotonic() < deadline:
        time.sleep(0.1)
    assert lsn_value(pg.slot(slot)["confirmed_flush_lsn"]) >= after_second
    assert cdcd.stop() == 0


def test_idle_slot_follows_the_wal_of_other_tables(pg, fresh_table, tmp_path):
    t = fresh_table
    slot = f"slot_{t}"
    pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY); DROP TABLE IF EXISTS public.{t}_other;"
           f"CREATE TABLE public.{t}_other (id int)")
    try:
        cdcd = Cdcd(tmp_path, pipeline_yaml(pg, slot, f"cdcd.public.{t}", "  heartbeat.interval: 200ms\n")).start()
        cdcd.wait_lines(1)
        # WAL the publication does not carry: no change reaches cdcd, only keepalives.
        pg.sql(f"INSERT INTO public.{t}_other SELECT g FROM generate_series(1, 1000) g")
        written = lsn_value(pg.sql("SELECT pg_current_wal_lsn()").strip())
        deadline = time.monotonic() + WAIT_S
        while lsn_value(pg.slot(slot)["confirmed_flush_lsn"]) < written and time.monotonic() < deadline:
            time.sleep(0.1)
        assert lsn_value(pg.slot(slot)["confirmed_flush_lsn"]) >= written
        assert cdcd.lines()[1:] == []
        assert cdcd.stop() == 0
    finally:
        pg.sql(f"DROP TABLE IF EXISTS public.{t}_other")


def test_money_and_interval_as_debezium_gives_them(pg, fresh_table, tmp_path):
    t = fresh_table
    # The server's own settings differ from what cdcd's sessions ask for.
    pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY, m money, i interval);"
           f"INSERT INTO public.{t} VALUES (1, 1234567.891, '1 year 2 months 3 days 04:05:06.789')")
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}")).start()
    lines = cdcd.wait_lines(2)
    assert lines[0] == (f"CreateTableEvent{{tableId=public.{t}, schema=columns={{`id` INT NOT NULL,"
                        f"`m` DECIMAL(38, 2),`i` BIGINT}}, primaryKeys=id, options=()}}")
    assert lines[1] == insert(t, "1, 1234567.89, 37091106789000")
    pg.sql(f"INSERT INTO public.{t} VALUES (2, -5, '-04:05:06.5')")
    assert cdcd.wait_lines(3)[2] == insert(t, "2, -5.00, -14706500000")
    assert cdcd.stop() == 0


def test_arrays_of_the_mapped_types(pg, fresh_table, tmp_path):
    t = fresh_table
    pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY, ints int[], words text[], prices numeric(6, 2)[]);"
           f"INSERT INTO public.{t} VALUES (1, '{{1,NULL,3}}', ARRAY['a b', NULL, 'q\"x', 'NULL'], '{{1.5}}')")
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}")).start()
    lines = cdcd.wait_lines(2)
    assert lines[0] == (f"CreateTableEvent{{tableId=public.{t}, schema=columns={{`id` INT NOT NULL,"
                        f"`ints` ARRAY<INT>,`words` ARRAY<STRING>,`prices` ARRAY<DECIMAL(6, 2)>}}, "
                        f"primaryKeys=id, options=()}}")
    assert lines[1] == insert(t, '1, [1, null, 3], [a b, null, q"x, NULL], [1.50]')
    pg.sql(f"INSERT INTO public.{t} VALUES (2, '{{}}', NULL, '{{2,3}}')")
    assert cdcd.wait_lines(3)[2] == insert(t, "2, [], null, [2.00, 3.00]")
    assert cdcd.stop() == 0


def test_metadata_columns_in_a_transform(pg, fresh_table, tmp_path):
    t = fresh_table
    pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY); INSERT INTO public.{t} VALUES (1)")
    transform = (f"transform:\n  - source-table: public.{t}\n"
                 f"    projection: id, op_ts, table_name, schema_name, database_name, op_ts > 0 AS streamed\n")
    yaml_text = pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}",
                              "  metadata.list: op_ts,table_name,schema_name,database_name\n")
    cdcd = Cdcd(tmp_path, yaml_text.replace("sink:\n", transform + "sink:\n", 1)).start()
    lines = cdcd.wait_lines(2)
    assert lines[1].startswith(f"DataChangeEvent{{tableId=public.{t}, before=[], after=[1, 0, {t}, public, cdcd, false]")
    before = int(time.time() * 1000)
    pg.sql(f"INSERT INTO public.{t} VALUES (2)")
    line = cdcd.wait_lines(3)[2]
    after = line.split("after=[")[1].split("]")[0].split(", ")
    assert after[0] == "2" and after[2:] == [t, "public", "cdcd", "true"]
    assert before - 5000 <= int(after[1]) <= int(time.time() * 1000) + 5000  # the commit time
    assert cdcd.stop() == 0


def test_enum_and_extension_types_are_strings(pg, fresh_table, tmp_path):
    t = fresh_table
    pg.sql(f"CREATE EXTENSION IF NOT EXISTS citext; CREATE EXTENSION IF NOT EXISTS ltree;"
           f"DROP TYPE IF EXISTS {t}_mood; CREATE TYPE {t}_mood AS ENUM ('sad', 'happy');"
           f"CREATE TABLE public.{t} (id int PRIMARY KEY, name citext, path ltree, mood {t}_mood);"
           f"INSERT INTO public.{t} VALUES (1, 'MiXeD', 'a.b.c', 'happy')")
    try:
        cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}")).start()
        lines = cdcd.wait_lines(2)
        assert lines[0] == (f"CreateTableEvent{{tableId=public.{t}, schema=columns={{`id` INT NOT NULL,"
                            f"`name` STRING,`path` STRING,`mood` STRING}}, primaryKeys=id, options=()}}")
        assert lines[1] == insert(t, "1, MiXeD, a.b.c, happy")
        pg.sql(f"INSERT INTO public.{t} VALUES (2, 'x', 'd', 'sad')")
        assert cdcd.wait_lines(3)[2] == insert(t, "2, x, d, sad")
        assert cdcd.stop() == 0
    finally:
        pg.sql(f"DROP TABLE IF EXISTS public.{t}; DROP TYPE IF EXISTS {t}_mood")


# bit strings, point, hstore and ltree[] as Flink CDC gives them: BINARY(length in bits) of
# Debezium's little-endian bytes (base64 in the values sink), Flink's point JSON, Debezium's
# hstore JSON in a Java HashMap's order.
BITS_AND_SHAPES = """(
    id int PRIMARY KEY,
    one bit(1),
    eight bit(8),
    twelve bit(12),
    upto varbit(20),
    any_bits varbit,
    at point,
    attrs hstore,
    paths ltree[]
)"""
SHAPES_CREATE = ("CreateTableEvent{{tableId=public.{t}, schema=columns={{`id` INT NOT NULL,`one` BOOLEAN,"
                 "`eight` BINARY(8),`twelve` BINARY(12),`upto` BINARY(20),`any_bits` BINARY(2147483647),"
                 "`at` STRING,`attrs` STRING,`paths` ARRAY<STRING>}}, primaryKeys=id, options=()}}")
SHAPES_ROW = ("({id}, B'1', B'00001010', B'101000000011', B'00101010', B'1', '(3.456,7.890)',"
              " 'color => \"blue\", size => \"L\"', '{{a.b,c}}')")
SHAPES_VALUES = ('{id}, true, Cg==, Awo=, Kg==, AQ==, {{"coordinates":"[[3.456,7.89]]","type":"Point","srid":0}}, '
                 '{{"size":"L","color":"blue"}}, [a.b, c]')
# Edge values: no bit set, an empty bit string, a point in Java's scientific notation, an empty
# hstore, one with a NULL value and escapes (in the map's order, not the server's).
SHAPES_EDGES = ("({id}, B'0', B'00000000', B'100000000000', B'', B'0000000100000000', '(-1e-5,12345678)',"
                r""" 'k => NULL, "a b" => "x\"y"', '{{}}')""")
SHAPES_EDGE_VALUES = ('{id}, false, , AAg=, , AAE=, {{"coordinates":"[[-1.0E-5,1.2345678E7]]","type":"Point",'
                      '"srid":0}}, {{"a b":"x\\"y","k":null}}, []')
SHAPES_EMPTY_HSTORE = "UPDATE public.{t} SET attrs = '' WHERE id = {id}"


def test_bit_strings_points_and_hstore_as_flink_cdc_gives_them(pg, fresh_table, tmp_path):
    t = fresh_table
    nulls = "({id}" + ", NULL" * 8 + ")"
    pg.sql(f"CREATE EXTENSION IF NOT EXISTS hstore; CREATE EXTENSION IF NOT EXISTS ltree;"
           f"CREATE TABLE public.{t} {BITS_AND_SHAPES};"
           f"INSERT INTO public.{t} VALUES {SHAPES_ROW.format(id=1)}, {SHAPES_EDGES.format(id=2)},"
           f" {nulls.format(id=3)}")
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}")).start()
    expected = [SHAPES_CREATE.format(t=t), insert(t, SHAPES_VALUES.format(id=1)),
                insert(t, SHAPES_EDGE_VALUES.format(id=2)), insert(t, "3" + ", null" * 8)]
    assert cdcd.wait_lines(4) == expected
    # The same values streamed (pgoutput's text), and an hstore emptied by an update.
    pg.sql(f"INSERT INTO public.{t} VALUES {SHAPES_ROW.format(id=4)}, {SHAPES_EDGES.format(id=5)},"
           f" {nulls.format(id=6)}; {SHAPES_EMPTY_HSTORE.format(t=t, id=4)}")
    streamed = [insert(t, SHAPES_VALUES.format(id=4)), insert(t, SHAPES_EDGE_VALUES.format(id=5)),
                insert(t, "6" + ", null" * 8),
                f"DataChangeEvent{{tableId=public.{t}, before=[], after=["
                + SHAPES_VALUES.format(id=4).replace('{"size":"L","color":"blue"}', "{}")
                + "], op=UPDATE, meta=()}"]
    assert cdcd.wait_lines(8)[4:] == streamed
    assert cdcd.stop() == 0


def test_a_type_flink_cdc_does_not_map_is_refused_naming_the_column(pg, fresh_table, tmp_path):
    t = fresh_table
    pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY, at_time timetz, box_c box)")
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}")).start()
    assert cdcd.wait_exit() != 0
    assert (f"table public.{t} column `at_time`: type time with time zone is not supported: "
            "Flink CDC has no mapping for time with time zone") in cdcd.stderr()


# Domains as Flink CDC maps them: a column of a domain is a column of its base type (Debezium's
# root type), with the length, precision and scale the domain (or the domain it is over) gave it,
# and NOT NULL when the column's own domain is NOT NULL (as the JDBC driver reports it).
DOMAINS = """
CREATE DOMAIN {t}_pos AS integer CHECK (VALUE > 0);
CREATE DOMAIN {t}_code AS varchar(20) NOT NULL;
CREATE DOMAIN {t}_code_alias AS {t}_code;
CREATE DOMAIN {t}_price AS numeric(10, 2);
CREATE DOMAIN {t}_small_price AS {t}_price CHECK (VALUE < 1000);
CREATE DOMAIN {t}_stamp AS timestamp(3);
CREATE DOMAIN {t}_flags AS bit(8);
CREATE DOMAIN {t}_where AS point;
CREATE DOMAIN {t}_ints AS integer[];
"""
DOMAIN_TABLE = """(
    id {t}_pos PRIMARY KEY,
    code {t}_code,
    alias {t}_code_alias,
    price {t}_price,
    small {t}_small_price,
    at {t}_stamp,
    flags {t}_flags,
    spot {t}_where,
    ints {t}_ints
)"""
DOMAIN_CREATE = ("CreateTableEvent{{tableId=public.{t}, schema=columns={{`id` INT NOT NULL,"
                 "`code` VARCHAR(20) NOT NULL,`alias` VARCHAR(20),`price` DECIMAL(10, 2),"
                 "`small` DECIMAL(10, 2),`at` TIMESTAMP(3),`flags` BINARY(8),`spot` STRING,"
                 "`ints` ARRAY<INT>}}, primaryKeys=id, options=()}}")
DOMAIN_ROW = ("({id}, 'AB-{id}', 'al', 12.5, 999.99, '2024-01-02 03:04:05.123', B'00001010', '(1.5,2)',"
              " '{{1,2,3}}')")
DOMAIN_VALUES = ('{id}, AB-{id}, al, 12.50, 999.99, 2024-01-02T03:04:05.123, Cg==, '
                 '{{"coordinates":"[[1.5,2.0]]","type":"Point","srid":0}}, [1, 2, 3]')
DOMAIN_NULLS = "({id}, 'n', 'a', NULL, NULL, NULL, NULL, NULL, NULL)"
DOMAIN_NULL_VALUES = "{id}, n, a" + ", null" * 6


def drop_domains(pg, t):
    pg.sql(f"DROP TABLE IF EXISTS public.{t}; DROP TABLE IF EXISTS public.{t}_later;"
           + "".join(f"DROP DOMAIN IF EXISTS {t}_{d} CASCADE;"
                     for d in ("code_alias", "small_price", "pos", "code", "price", "stamp", "flags",
                               "where", "ints", "tsv")))


def test_domains_map_as_their_base_types_in_snapshot_streaming_and_after_a_restart(pg, fresh_table, tmp_path):
    t = fresh_table
    drop_domains(pg, t)
    try:
        pg.sql(DOMAINS.format(t=t) + f"CREATE TABLE public.{t} {DOMAIN_TABLE.format(t=t)};"
               f"INSERT INTO public.{t} VALUES {DOMAIN_ROW.format(id=1)}, {DOMAIN_NULLS.format(id=2)}")
        yaml = pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}", extra="  schema-change.enabled: true\n")
        cdcd = Cdcd(tmp_path, yaml).start()
        assert cdcd.wait_lines(3) == [DOMAIN_CREATE.format(t=t), insert(t, DOMAIN_VALUES.format(id=1)),
                                      insert(t, DOMAIN_NULL_VALUES.format(id=2))]
        # Streamed: the Relation message names the domains' oids, typmod -1.
        pg.sql(f"INSERT INTO public.{t} VALUES {DOMAIN_ROW.format(id=3)}, {DOMAIN_NULLS.format(id=4)}")
        assert cdcd.wait_lines(5)[3:] == [insert(t, DOMAIN_VALUES.format(id=3)),
                                          insert(t, DOMAIN_NULL_VALUES.format(id=4))]
        assert cdcd.stop() == 0
        # After a restart the schema comes from the checkpoint and must equal the Relation's
        # resolved types (else the table would read as changed); then a column of a domain is
        # added while streaming.
        pg.sql(f"INSERT INTO public.{t} VALUES {DOMAIN_ROW.format(id=5)}")
        cdcd.start()
        assert cdcd.wait_lines(1) == [insert(t, DOMAIN_VALUES.format(id=5))]
        pg.sql(f"ALTER TABLE public.{t} ADD COLUMN extra {t}_small_price;"
               f"UPDATE public.{t} SET extra = 0.5 WHERE id = 5")
        lines = cdcd.wait_lines(3)
        assert lines[1] == (f"AddColumnEvent{{tableId=public.{t}, addedColumns=[ColumnWithPosition"
                            f"{{column=`extra` DECIMAL(10, 2), position=LAST, existedColumnName=null}}]}}")
        assert lines[2] == (f"DataChangeEvent{{tableId=public.{t}, before=[], after=["
                            f"{DOMAIN_VALUES.format(id=5)}, 0.50], op=UPDATE, meta=()}}")
        assert cdcd.stop() == 0
        assert "resuming slot" in cdcd.stderr()
    finally:
        drop_domains(pg, t)


def test_a_table_of_domains_first_seen_while_streaming(pg, fresh_table, tmp_path):
    """latest-offset: no snapshot; the table's schema comes from the catalog when its first
    Relation message arrives, and is checked against that message's (resolved) types."""
    t = fresh_table
    drop_domains(pg, t)
    try:
        pg.sql(DOMAINS.format(t=t) + f"CREATE TABLE public.{t} {DOMAIN_TABLE.format(t=t)}")
        yaml = pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}", extra="  scan.startup.mode: latest-offset\n")
        cdcd = Cdcd(tmp_path, yaml).start()
        cdcd.wait_stderr("created slot")
        time.sleep(0.5)
        pg.sql(f"INSERT INTO public.{t} VALUES {DOMAIN_ROW.format(id=1)}")
        assert cdcd.wait_lines(2) == [DOMAIN_CREATE.format(t=t), insert(t, DOMAIN_VALUES.format(id=1))]
        assert cdcd.stop() == 0
    finally:
        drop_domains(pg, t)


def test_domains_over_an_enum_and_extension_types(pg, fresh_table, tmp_path):
    """The base type decides, found in the catalog: an enum's STRING, hstore's JSON, citext."""
    t = fresh_table
    drop_domains(pg, t)
    pg.sql(f"DROP TYPE IF EXISTS {t}_mood CASCADE")
    try:
        pg.sql(f"CREATE EXTENSION IF NOT EXISTS hstore; CREATE EXTENSION IF NOT EXISTS citext;"
               f"CREATE TYPE {t}_mood AS ENUM ('sad', 'happy');"
               f"CREATE DOMAIN {t}_pos AS {t}_mood; CREATE DOMAIN {t}_code AS hstore;"
               f"CREATE DOMAIN {t}_price AS citext;"
               f"CREATE TABLE public.{t} (id int PRIMARY KEY, mood {t}_pos, attrs {t}_code, name {t}_price);"
               f"INSERT INTO public.{t} VALUES (1, 'happy', 'size => L', 'MiXeD')")
        cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}")).start()
        row = '{id}, happy, {{"size":"L"}}, MiXeD'
        assert cdcd.wait_lines(2) == [
            f"CreateTableEvent{{tableId=public.{t}, schema=columns={{`id` INT NOT NULL,`mood` STRING,"
            f"`attrs` STRING,`name` STRING}}, primaryKeys=id, options=()}}", insert(t, row.format(id=1))]
        pg.sql(f"INSERT INTO public.{t} VALUES (2, 'happy', 'size => L', 'MiXeD')")
        assert cdcd.wait_lines(3)[2] == insert(t, row.format(id=2))
        assert cdcd.stop() == 0
    finally:
        drop_domains(pg, t)
        pg.sql(f"DROP TYPE IF EXISTS {t}_mood CASCADE")


def test_an_array_of_a_domain_is_refused_naming_the_domain(pg, fresh_table, tmp_path):
    t = fresh_table
    drop_domains(pg, t)
    try:
        pg.sql(f"CREATE DOMAIN {t}_pos AS integer CHECK (VALUE > 0);"
               f"CREATE TABLE public.{t} (id int PRIMARY KEY, many {t}_pos[])")
        cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}")).start()
        assert cdcd.wait_exit() != 0
        assert (f"table public.{t} column `many`: type {t}_pos[] is not supported: an array of "
                f"domain {t}_pos (over integer)") in cdcd.stderr()
    finally:
        drop_domains(pg, t)


def test_a_domain_over_a_refused_type_is_refused_naming_both(pg, fresh_table, tmp_path):
    t = fresh_table
    drop_domains(pg, t)
    try:
        pg.sql(f"CREATE DOMAIN {t}_tsv AS tsvector;"
               f"CREATE TABLE public.{t} (id int PRIMARY KEY, words {t}_tsv)")
        cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}")).start()
        assert cdcd.wait_exit() != 0
        assert (f"table public.{t} column `words`: type {t}_tsv (a domain over tsvector) is not "
                "supported: Flink CDC has no mapping for text search types") in cdcd.stderr()
    finally:
        drop_domains(pg, t)


# PostGIS (Debian's postgresql-postgis, installed by scripts/setup.sh test): geometry and geography
# as the JSON Flink CDC writes from Debezium's EWKB; the first two values are those of Flink CDC's
# PostgresFullTypesITCase.
GEO_TABLE = """(
    id int PRIMARY KEY,
    geom_c geometry(Point, 3187),
    geog_c geography(MultiLineString),
    any_c geometry
)"""
GEO_ROW = ("({id}, ST_GeomFromText('POINT(174.9479 -36.7208)', 3187),"
           " 'MULTILINESTRING((169.1321 -44.7032, 167.8974 -44.6414))'::geography,"
           " 'GEOMETRYCOLLECTION(POINT(1 2), POLYGON((0 0, 1 0, 1 1, 0 0)))')")
GEO_VALUES = ('{id}, {{"coordinates":"[[174.9479,-36.7208]]","type":"Point","srid":3187}}, '
              '{{"coordinates":"[[169.1321,-44.7032],[167.8974,-44.6414]]","type":"MultiLineString",'
              '"srid":4326}}, {{"geometries":"GEOMETRYCOLLECTION (POINT (1 2), POLYGON ((0 0, 1 0, 1 1, 0 0)))",'
              '"type":"GeometryCollection","srid":0}}')


def test_postgis_geometry_and_geography_as_flink_cdc_gives_them(pg, fresh_table, tmp_path):
    t = fresh_table
    pg.sql("CREATE EXTENSION IF NOT EXISTS postgis", superuser=True)
    pg.sql(f"CREATE TABLE public.{t} {GEO_TABLE}; INSERT INTO public.{t} VALUES {GEO_ROW.format(id=1)},"
           f" (2, NULL, NULL, 'LINESTRING Z (1 2 3, 4 5 6)')")
    dead = tmp_path / "dead.jsonl"
    yaml = pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}",
                         pipeline_extra=f"  bad-record.policy: dead-letter\n  bad-record.dead-letter.path: {dead}\n")
    cdcd = Cdcd(tmp_path, yaml).start()
    line_z = '{id}, null, null, {{"coordinates":"[[1.0,2.0],[4.0,5.0]]","type":"LineString","srid":0}}'
    assert cdcd.wait_lines(3) == [
        f"CreateTableEvent{{tableId=public.{t}, schema=columns={{`id` INT NOT NULL,`geom_c` STRING,"
        f"`geog_c` STRING,`any_c` STRING}}, primaryKeys=id, options=()}}",
        insert(t, GEO_VALUES.format(id=1)), insert(t, line_z.format(id=2))]
    # Streamed; a curve Flink CDC's reader (JTS) cannot read is a bad record naming the column.
    pg.sql(f"INSERT INTO public.{t} VALUES {GEO_ROW.format(id=3)};"
           f"INSERT INTO public.{t} (id, any_c) VALUES (4, 'CIRCULARSTRING(0 0, 1 1, 2 0)');"
           f"UPDATE public.{t} SET any_c = 'POINT(0.5 1e-5)' WHERE id = 2")
    assert cdcd.wait_lines(5)[3:] == [
        insert(t, GEO_VALUES.format(id=3)),
        f"DataChangeEvent{{tableId=public.{t}, before=[], after=[2, null, null, "
        f'{{"coordinates":"[[0.5,1.0E-5]]","type":"Point","srid":0}}], op=UPDATE, meta=()}}']
    assert cdcd.stop() == 0
    [record] = [json.loads(line) for line in dead.read_text().splitlines()]
    assert (record["reason"], record["position"]) == ("parse-error", f"table public.{t} insert")
    assert record["error"].startswith("column `any_c`: '0108000000")
    assert record["error"].endswith("' is not a geometry: it is of WKB kind 8 (a curve, surface, TIN or "
                                    "triangle), which JTS's reader, and so Flink CDC, does not read")
