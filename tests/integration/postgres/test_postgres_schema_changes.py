# A captured table's DDL while streaming: schema change events with schema-change.enabled, a stop
# naming the table without it.
from conftest import Cdcd, pipeline_yaml


def test_ddl_becomes_schema_change_events(pg, fresh_table, tmp_path):
    t = fresh_table
    pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY, note text, n int); INSERT INTO public.{t} VALUES (1, 'a', 1)")
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}", "  schema-change.enabled: true\n",
                                        pipeline_extra="  schema.change.behavior: EVOLVE\n")).start()
    cdcd.wait_lines(2)
    # pgoutput sends a table's Relation again before its first change after the DDL.
    pg.sql(f"ALTER TABLE public.{t} ADD COLUMN qty bigint NOT NULL DEFAULT 0; INSERT INTO public.{t} VALUES (2, 'b', 2, 5)")
    pg.sql(f"ALTER TABLE public.{t} DROP COLUMN note; INSERT INTO public.{t} VALUES (3, 3, 6)")
    pg.sql(f"ALTER TABLE public.{t} RENAME COLUMN n TO num; INSERT INTO public.{t} VALUES (4, 4, 7)")
    pg.sql(f"ALTER TABLE public.{t} ALTER COLUMN num TYPE bigint; INSERT INTO public.{t} VALUES (5, 5, 8)")
    lines = cdcd.wait_lines(10)
    assert lines[2:] == [
        f"AddColumnEvent{{tableId=public.{t}, addedColumns=[ColumnWithPosition{{column=`qty` BIGINT NOT NULL, "
        f"position=LAST, existedColumnName=null}}]}}",
        f"DataChangeEvent{{tableId=public.{t}, before=[], after=[2, b, 2, 5], op=INSERT, meta=()}}",
        f"DropColumnEvent{{tableId=public.{t}, droppedColumnNames=[note]}}",
        f"DataChangeEvent{{tableId=public.{t}, before=[], after=[3, 3, 6], op=INSERT, meta=()}}",
        f"RenameColumnEvent{{tableId=public.{t}, nameMapping={{n=num}}}}",
        f"DataChangeEvent{{tableId=public.{t}, before=[], after=[4, 4, 7], op=INSERT, meta=()}}",
        f"AlterColumnTypeEvent{{tableId=public.{t}, typeMapping={{num=BIGINT}}, oldTypeMapping={{num=INT}}, comments={{}}}}",
        f"DataChangeEvent{{tableId=public.{t}, before=[], after=[5, 5, 8], op=INSERT, meta=()}}",
    ]
    assert cdcd.stop() == 0
    # The evolved schema is in the checkpoint: a restart decodes the next change with it.
    cdcd.start()
    pg.sql(f"INSERT INTO public.{t} VALUES (6, 6, 9)")
    assert cdcd.wait_lines(1) == [f"DataChangeEvent{{tableId=public.{t}, before=[], after=[6, 6, 9], op=INSERT, meta=()}}"]
    assert cdcd.stop() == 0


def test_ddl_without_schema_changes_stops_naming_the_table(pg, fresh_table, tmp_path):
    t = fresh_table
    pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY)")
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}")).start()
    cdcd.wait_lines(1)
    pg.sql(f"ALTER TABLE public.{t} ADD COLUMN v text; INSERT INTO public.{t} VALUES (1, 'x')")
    assert cdcd.wait_exit() != 0
    assert f"the columns of table public.{t} changed" in cdcd.stderr()
    assert "schema-change.enabled" in cdcd.stderr()
