# The example of Apache Flink CDC's Postgres pipeline connector page
# (docs/content/docs/connectors/pipeline-connectors/postgres.md), its source and pipeline blocks as
# the page writes them: only the connection values are this server's, and the sink (Fluss, which
# cdcd has not) is the values sink. It reads a whole database (`adb.\.*.\.*`) through the default
# publication, which a database administrator made beforehand (FOR ALL TABLES needs a superuser).
import re

from conftest import PASSWORD, USER, Cdcd

SUBTASK = re.compile(r"^\d+> ")


def events(lines):
    """The events printed, without the writer's `N> ` prefix (at parallelism 4 each of the four
    writers prints every schema change, and each data change goes to one of them), in order of
    first appearance."""
    seen = []
    for line in lines:
        text = SUBTASK.sub("", line)
        if text not in seen:
            seen.append(text)
    return seen

EXAMPLE = r"""
source:
   type: postgres
   name: Postgres Source
   hostname: 127.0.0.1
   port: {port}
   username: {user}
   password: ${{PG_TEST_PASSWORD}}
   # make sure all the tables share same database.
   tables: adb.\.*.\.*
   decoding.plugin.name:  pgoutput
   slot.name: pgtest
   schema-change.enabled: true

sink:
  type: values

pipeline:
   name: Postgres to Fluss Pipeline
   parallelism: 4
   schema.change.behavior: lenient
"""


def test_the_flink_cdc_docs_example_reads_a_database_through_schema_changes(pg, tmp_path):
    pg.sql("DROP DATABASE IF EXISTS adb", database="postgres", superuser=True)
    pg.sql(f"CREATE DATABASE adb OWNER {USER}", database="postgres", superuser=True)
    cdcd = Cdcd(tmp_path, EXAMPLE.format(port=pg.port, user=USER))
    try:
        pg.sql("CREATE SCHEMA sales; CREATE SCHEMA stock;"
               "CREATE TABLE sales.orders (id int PRIMARY KEY, amount numeric(10, 2));"
               "CREATE TABLE stock.items (sku text PRIMARY KEY, qty int NOT NULL);"
               "INSERT INTO sales.orders VALUES (1, 9.50), (2, 20.00);"
               "INSERT INTO stock.items VALUES ('a-1', 3)", database="adb")
        pg.sql("CREATE PUBLICATION dbz_publication FOR ALL TABLES", database="adb", superuser=True)
        cdcd.start()
        cdcd._until(lambda: len(events(cdcd.lines())) >= 5, 30)
        snapshot = events(cdcd.lines())
        assert sorted(snapshot) == sorted([
            "CreateTableEvent{tableId=sales.orders, schema=columns={`id` INT NOT NULL,`amount` DECIMAL(10, 2)}, "
            "primaryKeys=id, options=()}",
            "CreateTableEvent{tableId=stock.items, schema=columns={`sku` STRING NOT NULL,`qty` INT NOT NULL}, "
            "primaryKeys=sku, options=()}",
            "DataChangeEvent{tableId=sales.orders, before=[], after=[1, 9.50], op=INSERT, meta=()}",
            "DataChangeEvent{tableId=sales.orders, before=[], after=[2, 20.00], op=INSERT, meta=()}",
            "DataChangeEvent{tableId=stock.items, before=[], after=[a-1, 3], op=INSERT, meta=()}",
        ]), "\n".join(snapshot)
        pg.sql("UPDATE sales.orders SET amount = 10.00 WHERE id = 1; DELETE FROM stock.items;"
               "ALTER TABLE sales.orders ADD COLUMN note text; INSERT INTO sales.orders VALUES (3, 1.25, 'new')",
               database="adb")
        cdcd._until(lambda: len(events(cdcd.lines())) >= 9, 30)
        lines = events(cdcd.lines())[5:]
        assert lines == [
            "DataChangeEvent{tableId=sales.orders, before=[], after=[1, 10.00], op=UPDATE, meta=()}",
            "DataChangeEvent{tableId=stock.items, before=[a-1, null], after=[], op=DELETE, meta=()}",
            "AddColumnEvent{tableId=sales.orders, addedColumns=[ColumnWithPosition{column=`note` STRING, "
            "position=LAST, existedColumnName=null}]}",
            "DataChangeEvent{tableId=sales.orders, before=[], after=[3, 1.25, new], op=INSERT, meta=()}",
        ], "\n".join(lines)
        assert cdcd.stop() == 0
        assert PASSWORD not in cdcd.stderr()
    finally:
        if cdcd.proc.poll() is None:
            cdcd.proc.kill()
            cdcd.proc.wait()
        pg.drop_slot("pgtest")
        pg.sql("DROP DATABASE IF EXISTS adb", database="postgres", superuser=True)
