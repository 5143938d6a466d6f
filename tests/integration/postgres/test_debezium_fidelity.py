# Fidelity against Debezium itself: one history of changes on a real PostgreSQL, read from two
# slots (same publication, pgoutput) by Debezium's Postgres connector embedded
# (tests/services/debezium) and by cdcd's file sink in debezium-json; every change must carry the
# same op, before and after, in the same order. Both sides are normalised to plain values first,
# each encoding difference named where it is handled.
import base64
import json
import os
import signal
import struct
import subprocess
import time
from datetime import date, datetime, timedelta, timezone
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

from conftest import ROOT, STARTED, WAIT_S
from cdcd_process import cdcd_bin
from server import DATABASE, PASSWORD, USER

HARNESS_BUILD = ROOT / "tests" / "services" / "debezium" / "build.sh"
EPOCH = datetime(1970, 1, 1)

# Column name → PostgreSQL type; the table is created from this, and values are normalised by it.
COLUMNS = {
    "id": "int",
    "small": "smallint",
    "big": "bigint",
    "price": "numeric(12, 3)",
    "free_num": "numeric",
    "cash": "money",
    "ratio": "real",
    "score": "double precision",
    "flag": "boolean",
    "name": "varchar(20)",
    "code": "char(3)",
    "note": "text",
    "payload": "bytea",
    "day": "date",
    "at_time": "time",
    "at_ts": "timestamp",
    "at_ts3": "timestamp(3)",
    "at_tstz": "timestamptz",
    "span": "interval",
    "uid": "uuid",
    "doc": "json",
    "docb": "jsonb",
    "addr": "inet",
    "ints": "int[]",
    "texts": "text[]",
    "nums": "numeric(6, 2)[]",
}
COLUMN_LIST = ", ".join(COLUMNS)

ROW_A = ("1, 7, 9000000000, 12.5, 1.5, 12.34, 3.14, 2.25, true, 'alpha', 'ab', 'héllo \"q\"\\n', "
         "'\\x0102ff', '2024-02-29', '10:15:30.5', '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05.123', "
         "'2024-01-02 03:04:05.5+02', '1 mon 2 days 03:04:05.5', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', "
         "'{\"k\":  [1, 2]}', '{\"b\": 1, \"a\": {\"c\": null}}', '192.168.0.1/24', '{1, NULL, -3}', "
         "'{a, \"b c\", NULL}', '{1.25, -0.5}'")
ROW_B = ("2, -32768, -9223372036854775808, -0.001, -2.5, -1.01, -0.1, 1e-300, false, '', 'x', '', "
         "'\\x', '1969-12-31', '00:00:00', '1900-01-01 00:00:00', '1969-12-31 23:59:59.999', "
         "'1969-12-31 23:59:59.999999+00', '-1 days -00:00:01', '00000000-0000-0000-0000-000000000000', "
         "'[]', '{}', '::1', '{}', '{}', '{}'")
ROW_C = "3" + ", NULL" * (len(COLUMNS) - 1)


def history(default: str, full: str) -> list[str]:
    """The statements, each its own transaction except where a list is joined with ';' in one."""
    big = "(SELECT string_agg(md5(g::text), '') FROM generate_series(1, 400) g)"  # 12.8 kB, incompressible
    return [
        f"INSERT INTO {default} ({COLUMN_LIST}) VALUES ({ROW_A}), ({ROW_B}), ({ROW_C})",
        f"INSERT INTO {full} ({COLUMN_LIST}) VALUES ({ROW_A}), ({ROW_B}), ({ROW_C})",
        # Updates: of some columns, to NULL, from NULL, of the key; under both replica identities.
        f"UPDATE {default} SET price = 99999.999, note = 'changed', ints = '{{}}' WHERE id = 1",
        f"UPDATE {full} SET price = 99999.999, note = 'changed', ints = '{{}}' WHERE id = 1",
        f"UPDATE {default} SET day = NULL, flag = NULL WHERE id = 2; UPDATE {full} SET day = NULL, flag = NULL WHERE id = 2",
        f"UPDATE {default} SET at_tstz = '2000-01-01 00:00:00+00', texts = '{{z}}' WHERE id = 3",
        f"UPDATE {default} SET id = 10 WHERE id = 3",
        f"UPDATE {full} SET id = 10 WHERE id = 3",
        # TOAST: a value stored out of line, then an update that leaves it alone.
        f"INSERT INTO {default} (id, note, payload) VALUES (20, {big}, convert_to({big}, 'UTF8'))",
        f"INSERT INTO {full} (id, note, payload) VALUES (20, {big}, convert_to({big}, 'UTF8'))",
        f"UPDATE {default} SET small = 1 WHERE id = 20",
        f"UPDATE {full} SET small = 1 WHERE id = 20",
        # Deletes.
        f"DELETE FROM {default} WHERE id = 2",
        f"DELETE FROM {full} WHERE id = 2",
        f"DELETE FROM {default} WHERE id IN (10, 20); DELETE FROM {full} WHERE id = 10",
        # A truncate, and rows after it.
        f"TRUNCATE {full}",
        f"INSERT INTO {full} ({COLUMN_LIST}) VALUES ({ROW_B})",
        f"INSERT INTO {default} (id, note) SELECT g, 'bulk ' || g FROM generate_series(100, 149) g",
    ]


# Data changes of that history (a primary key change is a delete and an insert; truncates are not
# data changes), and Debezium's truncate records.
DATA_CHANGES = 3 + 3 + 1 + 1 + 2 + 1 + 2 + 2 + 1 + 1 + 1 + 1 + 1 + 1 + 3 + 1 + 50  # a key change: two
TRUNCATES = 1


@pytest.fixture(scope="module")
def harness_classpath():
    """Builds the Debezium harness once (cached under ~/.cache/cdcd); skips only when Maven Central
    cannot be reached to fetch it."""
    proc = subprocess.run([str(HARNESS_BUILD), "--quiet"], capture_output=True, text=True, timeout=960)
    if proc.returncode == 3:
        pytest.skip("Maven Central unreachable: the Debezium harness cannot be built\n" + proc.stderr[-1000:])
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip().split("=", 1)[1]


# --- normalisation: both sides to plain Python values ------------------------------------------

def _decimal(v):
    return None if v is None else Decimal(str(v))


def _variable_scale(v):
    """Debezium's VariableScaleDecimal (numeric without precision): {"scale": s, "value": base64 of
    the unscaled two's-complement big-endian integer}."""
    unscaled = int.from_bytes(base64.b64decode(v["value"]), "big", signed=True)
    return Decimal(unscaled).scaleb(-v["scale"])


def _float32(v):
    return None if v is None else struct.unpack("f", struct.pack("f", float(v)))[0]


def dbz_value(pg_type: str, v):
    if v is None:
        return None
    if pg_type.endswith("[]"):
        return [dbz_value(pg_type[:-2], e) for e in v]
    if pg_type == "numeric":
        # Flink CDC (and so cdcd) maps a numeric without precision to DECIMAL(38, 0): the
        # fraction is rounded away HALF_UP (docs/postgres.md, Type mapping). Debezium keeps it.
        return _variable_scale(v).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    if pg_type.startswith("numeric") or pg_type == "money":
        return _decimal(v)
    if pg_type == "real":
        return _float32(v)
    if pg_type == "date":
        # Debezium: days since the epoch (io.debezium.time.Date); debezium-json: ISO date text.
        return date(1970, 1, 1) + timedelta(days=v)
    if pg_type == "time":
        # Debezium: microseconds of the day (MicroTime). Flink's JSON format writes a TIME as
        # HH:mm:ss (its SQL_TIME_FORMAT has no fraction), so only the seconds can be compared.
        return str(timedelta(microseconds=v) // timedelta(seconds=1) * timedelta(seconds=1)).zfill(8)
    if pg_type == "timestamp":
        return EPOCH + timedelta(microseconds=v)  # MicroTimestamp: µs since the epoch
    if pg_type == "timestamp(3)":
        return EPOCH + timedelta(milliseconds=v)  # Timestamp: ms since the epoch (precision ≤ 3)
    if pg_type == "timestamptz":
        return datetime.fromisoformat(v.replace("Z", "+00:00"))  # ZonedTimestamp: ISO text
    return v


def cdcd_value(pg_type: str, v):
    if v is None:
        return None
    if pg_type.endswith("[]"):
        return [cdcd_value(pg_type[:-2], e) for e in v]
    if pg_type.startswith("numeric") or pg_type == "money":
        return _decimal(v)
    if pg_type == "real":
        return _float32(v)
    if pg_type == "date":
        return date.fromisoformat(v)
    if pg_type == "time":
        return v
    if pg_type.startswith("timestamp") and pg_type != "timestamptz":
        return datetime.fromisoformat(v)  # SQL format: "2024-01-02 03:04:05.123456"
    if pg_type == "timestamptz":
        return datetime.fromisoformat(v.replace("Z", "+00:00"))  # "2024-01-02 01:04:05.5Z"
    return v


def normalised(doc: dict, value_of) -> tuple:
    def image(row):
        if row is None:
            return None
        assert set(row) == set(COLUMNS), f"columns {sorted(row)} are not the table's"
        return {c: value_of(COLUMNS[c], row[c]) for c in COLUMNS}
    return doc["op"], doc["source"]["table"], image(doc["before"]), image(doc["after"])


def json_lines(path: Path) -> list[dict]:
    # Decimals as Decimal, so that no precision is lost before comparing.
    return [json.loads(l, parse_float=Decimal) for l in path.read_text().splitlines() if l.strip()]


# --- the test -----------------------------------------------------------------------------------

def start_debezium(pg, classpath: str, tmp: Path, slot: str, publication: str, tables: str, n: int):
    props = tmp / "debezium.properties"
    props.write_text("\n".join([
        "database.hostname=127.0.0.1", f"database.port={pg.port}", f"database.user={USER}",
        f"database.password={PASSWORD}", f"database.dbname={DATABASE}",
        f"slot.name={slot}", f"publication.name={publication}", "publication.autocreate.mode=disabled",
        f"table.include.list={tables}",
        # The slot exists already: read what it holds, no snapshot.
        "snapshot.mode=no_data",
        # Debezium skips truncates by default; they are compared (as absent from cdcd's output).
        "skipped.operations=none",
        # The defaults cdcd claims, spelled out: decimal.handling.mode precise, binary.handling.mode
        # bytes, time.precision.mode adaptive, interval.handling.mode numeric, money 2 digits.
        "decimal.handling.mode=precise", "binary.handling.mode=bytes", "time.precision.mode=adaptive",
        "interval.handling.mode=numeric", "money.fraction.digits=2",
        "slot.drop.on.stop=false", ""]))
    out = tmp / "debezium.jsonl"
    proc = subprocess.Popen(["java", "-cp", classpath, "cdcd.tests.DebeziumHarness", str(props), str(out),
                             str(n), "3000", str(WAIT_S * 3 * 1000)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    STARTED.append(proc)
    return proc, out


def start_cdcd(pg, tmp: Path, slot: str, publication: str, tables: str):
    out = tmp / "cdcd.jsonl"
    yaml = tmp / "pipeline.yaml"
    yaml.write_text(
        f"source:\n  type: postgres\n  hostname: 127.0.0.1\n  port: {pg.port}\n  username: {USER}\n"
        f"  password: ${{PG_TEST_PASSWORD}}\n  tables: {tables}\n  slot.name: {slot}\n"
        f"  scan.startup.mode: committed-offset\n  debezium.publication.name: {publication}\n"
        f"  debezium.publication.autocreate.mode: disabled\n"
        f"sink:\n  type: file\n  path: {out}\n  format: debezium-json\n"
        f"pipeline:\n  name: fidelity\n  execution.checkpointing.interval: 500ms\n")
    proc = subprocess.Popen([cdcd_bin(), "run", str(yaml), "--state-dir", str(tmp / "state")],
                            stdout=subprocess.DEVNULL, stderr=open(tmp / "cdcd.log", "wb"),
                            env=dict(os.environ, PG_TEST_PASSWORD=PASSWORD))
    STARTED.append(proc)
    return proc, out


def test_cdcd_writes_what_debezium_writes_for_the_same_history(pg, harness_classpath, tmp_path):
    default, full, pub = "public.fid_default", "public.fid_full", "pub_fidelity"
    slots = ("fid_debezium", "fid_cdcd")
    columns = ", ".join(f"{c} {t}" for c, t in COLUMNS.items())
    pg.sql(f"DROP TABLE IF EXISTS {default}, {full}; DROP PUBLICATION IF EXISTS {pub}")
    for slot in slots:
        pg.drop_slot(slot)
    pg.sql(f"CREATE TABLE {default} ({columns}, PRIMARY KEY (id));"
           f"CREATE TABLE {full} ({columns}, PRIMARY KEY (id)); ALTER TABLE {full} REPLICA IDENTITY FULL;"
           f"ALTER TABLE {default} ALTER COLUMN note SET STORAGE EXTERNAL;"
           f"ALTER TABLE {full} ALTER COLUMN note SET STORAGE EXTERNAL;"
           f"CREATE PUBLICATION {pub} FOR TABLE {default}, {full}")
    # Both slots before the history, so that each tool reads all of it from its own.
    for slot in slots:
        pg.sql(f"SELECT pg_create_logical_replication_slot('{slot}', 'pgoutput')")
    for statement in history(default, full):
        pg.sql(statement)

    try:
        tables = f"{default},{full}"
        dbz, dbz_out = start_debezium(pg, harness_classpath, tmp_path, slots[0], pub, tables,
                                      DATA_CHANGES + TRUNCATES)
        cdcd, cdcd_out = start_cdcd(pg, tmp_path, slots[1], pub, f"{DATABASE}.public.fid_default,"
                                    f"{DATABASE}.public.fid_full")
        stdout, stderr = dbz.communicate(timeout=WAIT_S * 4)
        assert dbz.returncode == 0, stderr[-3000:]
        figures = json.loads(stdout.strip().splitlines()[-1])
        assert figures["reason"] == "max-changes", (figures, stderr[-3000:])

        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline and cdcd.poll() is None:
            if cdcd_out.exists() and cdcd_out.read_text().count("\n") >= DATA_CHANGES:
                break
            time.sleep(0.1)
        cdcd.send_signal(signal.SIGTERM)
        assert cdcd.wait(timeout=WAIT_S) == 0, (tmp_path / "cdcd.log").read_text()[-3000:]
    finally:
        for proc in STARTED:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        STARTED.clear()
        for slot in slots:
            pg.drop_slot(slot)

    dbz_docs = json_lines(dbz_out)
    # Flink CDC's debezium-json (and so cdcd's) writes data changes only: a truncate is a schema
    # change event there, which the format leaves out. Debezium writes it as op "t".
    truncates = [d for d in dbz_docs if d["op"] == "t"]
    assert [d["source"]["table"] for d in truncates] == ["fid_full"]
    dbz_changes = [normalised(d, dbz_value) for d in dbz_docs if d["op"] != "t"]
    cdcd_changes = [normalised(d, cdcd_value) for d in json_lines(cdcd_out)]
    assert len(dbz_changes) == DATA_CHANGES
    for i, (want, got) in enumerate(zip(dbz_changes, cdcd_changes)):
        if want != got:
            diff = {c: (want[2][c] if want[2] else None, got[2][c] if got[2] else None,
                        want[3][c] if want[3] else None, got[3][c] if got[3] else None)
                    for c in COLUMNS
                    if (want[2] or {}).get(c) != (got[2] or {}).get(c) or (want[3] or {}).get(c) != (got[3] or {}).get(c)}
            pytest.fail(f"change {i} differs: Debezium {want[:2]}, cdcd {got[:2]}; "
                        f"columns (before Debezium, before cdcd, after Debezium, after cdcd): {diff}")
    assert len(cdcd_changes) == DATA_CHANGES
