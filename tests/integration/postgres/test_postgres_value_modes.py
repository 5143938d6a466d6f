# The Debezium value modes Flink CDC's Postgres connector maps types by (debezium.*), end to end:
# an unconstrained numeric with a long fraction under each decimal.handling.mode, NaN and
# Infinity, and money, bytea, interval and hstore under their modes; the snapshot and the same
# rows streamed, checked exactly against the values sink's output.
import pytest

from conftest import Cdcd, pipeline_yaml

# 20 integer digits and 30 fraction digits: more than DECIMAL(38, ...) or a double holds.
LONG = "12345678901234567890.123456789012345678901234567890"
TINY = "-0.000000000000000000000000000001"

NUMERIC_ROWS = f"(1, {LONG}), (2, {TINY}), (3, NULL)"
SPECIAL_ROWS = "(4, 'NaN'), (5, 'Infinity'), (6, '-Infinity')"


def insert(t, after):
    return f"DataChangeEvent{{tableId=public.{t}, before=[], after=[{after}], op=INSERT, meta=()}}"


def create(t, n_type):
    return (f"CreateTableEvent{{tableId=public.{t}, schema=columns={{`id` INT NOT NULL,`n` {n_type}}}, "
            "primaryKeys=id, options=()}")


def with_mode(mode):
    return f"  debezium.decimal.handling.mode: {mode}\n"


# Per mode: the column's type, then the values of rows 1 to 6 (None: not read under that mode).
# string: the server's text, exactly; the special values by Debezium's names for them.
# double: the nearest double (Java's Double.toString in the values sink), NaN and the infinities.
# precise (the default): DECIMAL(38, 0), the fraction rounded away HALF_UP, as Flink CDC does.
MODES = {
    "string": ("STRING", [LONG, TINY, "null", "NAN", "POSITIVE_INFINITY", "NEGATIVE_INFINITY"]),
    "double": ("DOUBLE", ["1.2345678901234567E19", "-1.0E-30", "null", "NaN", "Infinity", "-Infinity"]),
    "precise": ("DECIMAL(38, 0)", ["12345678901234567890", "0", "null", None, None, None]),
}


@pytest.mark.parametrize("mode", ["string", "double"])
def test_an_unconstrained_numeric_under_string_and_double(pg, fresh_table, tmp_path, mode):
    t = fresh_table
    n_type, values = MODES[mode]
    pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY, n numeric);"
           f"INSERT INTO public.{t} VALUES {NUMERIC_ROWS}, {SPECIAL_ROWS}")
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}", extra=with_mode(mode))).start()
    snapshot = [create(t, n_type)] + [insert(t, f"{i + 1}, {v}") for i, v in enumerate(values)]
    assert cdcd.wait_lines(7) == snapshot
    # The same values streamed: pgoutput's text of them.
    pg.sql(f"INSERT INTO public.{t} VALUES " + ", ".join(
        f"({i + 11}, {v})" for i, v in enumerate([LONG, TINY, "NULL", "'NaN'", "'Infinity'", "'-Infinity'"])))
    assert cdcd.wait_lines(13)[7:] == [insert(t, f"{i + 11}, {v}") for i, v in enumerate(values)]
    assert cdcd.stop() == 0


def test_an_unconstrained_numeric_under_precise_rounds_and_a_nan_is_a_bad_record(pg, fresh_table, tmp_path):
    t = fresh_table
    n_type, values = MODES["precise"]
    pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY, n numeric); INSERT INTO public.{t} VALUES {NUMERIC_ROWS}")
    dlq = tmp_path / "bad.jsonl"
    cdcd = Cdcd(tmp_path, pipeline_yaml(
        pg, f"slot_{t}", f"cdcd.public.{t}", extra=with_mode("precise"),
        pipeline_extra=f"  bad-record.policy: dead-letter\n  bad-record.dead-letter.path: {dlq}\n")).start()
    snapshot = [create(t, n_type)] + [insert(t, f"{i + 1}, {v}") for i, v in enumerate(values[:3])]
    assert cdcd.wait_lines(4) == snapshot
    # Debezium fails on a NaN under precise; cdcd makes it a bad record and reads on.
    pg.sql(f"INSERT INTO public.{t} VALUES (11, {LONG}), (12, 'NaN'), (13, {TINY})")
    assert cdcd.wait_lines(6)[4:] == [insert(t, f"11, {values[0]}"), insert(t, f"13, {values[1]}")]
    assert cdcd.stop() == 0
    bad = dlq.read_text()
    assert "numeric NaN has no DECIMAL value" in bad and "decimal.handling.mode" in bad


OTHER_TYPES = "(id int PRIMARY KEY, m money, b bytea, iv interval, h hstore)"
OTHER_ROW = ("({id}, '1234.5', '\\x0102ff', '1 year 2 mons -3 days 04:05:06.3', "
             "'color => \"blue\", size => NULL')")


def test_money_bytea_interval_and_hstore_under_their_modes(pg, fresh_table, tmp_path):
    t = fresh_table
    pg.sql(f"CREATE EXTENSION IF NOT EXISTS hstore; CREATE TABLE public.{t} {OTHER_TYPES};"
           f"INSERT INTO public.{t} VALUES {OTHER_ROW.format(id=1)}")
    extra = ("  debezium.decimal.handling.mode: string\n  debezium.binary.handling.mode: hex\n"
             "  debezium.interval.handling.mode: string\n  debezium.hstore.handling.mode: map\n")
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}", extra=extra)).start()
    # money as Java prints the double pgjdbc reads it into; bytea as lower-case hex; the interval
    # as Debezium's ISO text, its seconds the double's exact value cut to 9 decimals; hstore a map
    # in the order of the HashMap Debezium reads it into.
    values = "{id}, 1234.5, 0102ff, P1Y2M-3DT4H5M6.299999999S, {{size -> null, color -> blue}}"
    expected = [f"CreateTableEvent{{tableId=public.{t}, schema=columns={{`id` INT NOT NULL,`m` STRING,"
                "`b` STRING,`iv` STRING,`h` MAP<STRING, STRING>}, primaryKeys=id, options=()}",
                insert(t, values.format(id=1))]
    assert cdcd.wait_lines(2) == expected
    pg.sql(f"INSERT INTO public.{t} VALUES {OTHER_ROW.format(id=2)}")
    assert cdcd.wait_lines(3)[2] == insert(t, values.format(id=2))
    assert cdcd.stop() == 0


def test_money_fraction_digits_and_base64_under_precise(pg, fresh_table, tmp_path):
    t = fresh_table
    pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY, m money, b bytea);"
           f"INSERT INTO public.{t} VALUES (1, '1234.5', '\\x0102ff'), (2, '-0.49', '\\x')")
    extra = "  debezium.money.fraction.digits: 0\n  debezium.binary.handling.mode: base64\n"
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}", extra=extra)).start()
    assert cdcd.wait_lines(3) == [
        f"CreateTableEvent{{tableId=public.{t}, schema=columns={{`id` INT NOT NULL,`m` DECIMAL(38, 0),"
        "`b` STRING}, primaryKeys=id, options=()}",
        insert(t, "1, 1235, AQL/"), insert(t, "2, 0, ")]
    assert cdcd.stop() == 0


def test_a_value_mode_debezium_refuses_is_refused_naming_the_key(pg, fresh_table, tmp_path):
    t = fresh_table
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}",
                                        extra="  debezium.decimal.handling.mode: exact\n")).start()
    assert cdcd.wait_exit() != 0
    assert "`debezium.decimal.handling.mode` must be precise, double or string, got 'exact'" in cdcd.stderr()


def test_a_restart_under_another_mode_changes_the_column_type(pg, fresh_table, tmp_path):
    # The checkpoint keeps the schema announced under the old mode; the stream's Relation, read
    # under the new one, then differs: a type change with schema-change.enabled, else a stop.
    t = fresh_table
    pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY, n numeric); INSERT INTO public.{t} VALUES (1, 1.5)")
    base = pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}", "  schema-change.enabled: true\n",
                         pipeline_extra="  schema.change.behavior: EVOLVE\n")
    cdcd = Cdcd(tmp_path, base).start()
    assert cdcd.wait_lines(2) == [create(t, "DECIMAL(38, 0)"), insert(t, "1, 2")]
    # Stopped once streaming: a stop before would have the restart read on in the snapshot
    # (test_postgres_snapshot_chunks.py has that case). A busy machine stopped it there.
    cdcd.wait_stderr("postgres snapshot: done")
    assert cdcd.stop() == 0
    cdcd.yaml.write_text(base.replace("  schema-change.enabled: true\n",
                                      "  schema-change.enabled: true\n" + with_mode("string")))
    cdcd.start()
    pg.sql(f"INSERT INTO public.{t} VALUES (2, 2.25)")
    assert cdcd.wait_lines(2) == [
        f"AlterColumnTypeEvent{{tableId=public.{t}, typeMapping={{n=STRING}}, "
        f"oldTypeMapping={{n=DECIMAL(38, 0)}}, comments={{}}}}",
        insert(t, "2, 2.25"),
    ]
    assert cdcd.stop() == 0
    # Without schema changes the other mode stops the source, naming the column.
    cdcd.yaml.write_text(base.replace("  schema-change.enabled: true\n", with_mode("double")))
    cdcd.start()
    pg.sql(f"INSERT INTO public.{t} VALUES (3, 3.5)")
    assert cdcd.wait_exit() != 0
    assert f"the columns of table public.{t} changed" in cdcd.stderr() and "`n`" in cdcd.stderr()
