"""kill -9 at twenty random moments of the snapshot and the stream, with a writer changing the
tables meanwhile: every row's history in the file sink's output is the database's, without a
change lost, repeated or out of order, as in an uninterrupted run over the same history; and the
slot never confirms more than the last durable checkpoint holds."""
import json
import os
import random
import signal
import subprocess
import threading
import time

from cdcd_process import cdcd_bin
from conftest import DATABASE, PASSWORD, STARTED, USER, pipeline_yaml
from server import lsn_value

ROWS_A, ROWS_B, ROWS_C = 20_000, 10_000, 10_000
TRANSACTIONS = 400


def create_tables(pg, p):
    pg.sql(f"""
        DROP TABLE IF EXISTS {p}_a, {p}_b, {p}_c, {p}_done;
        CREATE TABLE {p}_a (id int PRIMARY KEY, seq bigint NOT NULL, pad text);
        INSERT INTO {p}_a SELECT g, 0, repeat('a', 30) FROM generate_series(1, {ROWS_A}) g;
        CREATE TABLE {p}_b (g int, name text, seq bigint NOT NULL, PRIMARY KEY (g, name));
        INSERT INTO {p}_b SELECT i % 10, 'n' || i, 0 FROM generate_series(1, {ROWS_B}) i;
        CREATE TABLE {p}_c (id int NOT NULL, k int NOT NULL, seq bigint NOT NULL);
        ALTER TABLE {p}_c REPLICA IDENTITY FULL;
        INSERT INTO {p}_c SELECT g, g / 3, 0 FROM generate_series(1, {ROWS_C}) g;
        CREATE TABLE {p}_done (id int PRIMARY KEY);
    """)


def initial_model():
    """Each row's history of `seq` values (None: absent), by table and identity."""
    model = {"a": {(i,): [0] for i in range(1, ROWS_A + 1)},
             "b": {(i % 10, f"n{i}"): [0] for i in range(1, ROWS_B + 1)},
             "c": {(i,): [0] for i in range(1, ROWS_C + 1)}}
    return model


def history(p, model, rng):
    """The writer's transactions (SQL), applied to `model` as the server will apply them."""
    seq = 0
    txns = []
    for _ in range(TRANSACTIONS):
        statements = []
        for _ in range(rng.randint(1, 6)):
            seq += 1
            table = rng.choice("aabc")
            rows = model[table]
            key = rng.choice(list(rows)) if rng.random() < 0.9 else None
            present = key is not None and rows[key][-1] is not None
            if table == "a":
                if key is None:
                    key = (ROWS_A + seq,)
                    rows[key] = [None]
                    present = False
                where = f"id = {key[0]}"
                insert = f"INSERT INTO {p}_a VALUES ({key[0]}, {seq}, 'new')"
                update = f"UPDATE {p}_a SET seq = {seq} WHERE {where}"
            elif table == "b":
                if key is None:
                    key = (seq % 10, f"w{seq}")
                    rows[key] = [None]
                    present = False
                where = f"g = {key[0]} AND name = '{key[1]}'"
                insert = f"INSERT INTO {p}_b VALUES ({key[0]}, '{key[1]}', {seq})"
                update = f"UPDATE {p}_b SET seq = {seq} WHERE {where}"
            else:
                if key is None:
                    key = (ROWS_C + seq,)
                    rows[key] = [None]
                    present = False
                where = f"id = {key[0]}"
                insert = f"INSERT INTO {p}_c VALUES ({key[0]}, {key[0] // 3}, {seq})"
                update = f"UPDATE {p}_c SET seq = {seq} WHERE {where}"
            if not present:
                statements.append(insert)
                rows[key].append(seq)
            elif rng.random() < 0.25:
                statements.append(f"DELETE FROM {p}_{table} WHERE {where}")
                rows[key].append(None)
            else:
                statements.append(update)
                rows[key].append(seq)
        txns.append("BEGIN;\n" + ";\n".join(statements) + ";\nCOMMIT;\n")
    return txns


class Writer(threading.Thread):
    """One psql session running the transactions in order, a few milliseconds apart."""

    def __init__(self, pg, txns, marker):
        super().__init__(daemon=True)
        env = dict(os.environ, PGPASSWORD=PASSWORD)
        self.proc = subprocess.Popen(
            [str(pg.bin / "psql"), "-h", "127.0.0.1", "-U", USER, "-p", str(pg.port), "-d",
             DATABASE, "-X", "-q", "-v", "ON_ERROR_STOP=1"],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
        self.txns = txns + [marker]

    def run(self):
        for txn in self.txns:
            self.proc.stdin.write(txn)
            self.proc.stdin.flush()
            time.sleep(0.03)
        self.proc.stdin.close()

    def finish(self):
        self.join(timeout=60)
        assert self.proc.wait(timeout=60) == 0, self.proc.stderr.read()


def identity(table, row):
    if table == "a":
        return (row["id"],)
    if table == "b":
        return (row["g"], row["name"])
    return (row["id"],)


def histories(path, p):
    """Each row's states in the output, as `seq` values (None: deleted), and the events read."""
    out = {"a": {}, "b": {}, "c": {}}
    events = 0
    for line in path.read_text().splitlines():
        e = json.loads(line)
        table = e["source"]["table"]
        if table == f"{p}_done":
            continue
        t = table[len(p) + 1:]
        events += 1
        if e["op"] in ("c", "r", "u"):
            if e["op"] == "u" and e["before"] is not None and identity(t, e["before"]) != identity(t, e["after"]):
                out[t].setdefault(identity(t, e["before"]), []).append(None)
            out[t].setdefault(identity(t, e["after"]), []).append(e["after"]["seq"])
        elif e["op"] == "d":
            out[t].setdefault(identity(t, e["before"]), []).append(None)
    return out, events


def check_against(model, got, name):
    """Every row's output states are the last ones of its history: none lost, none repeated,
    in order, ending at the final state."""
    for table, rows in model.items():
        for key, states in rows.items():
            emitted = got[table].get(key, [])
            # A row that never had a value when read and changed only before its read: nothing.
            if not emitted:
                assert states[-1] is None, f"{name}: {table} {key} missing, history {states}"
                continue
            assert states[-len(emitted):] == emitted, (
                f"{name}: {table} {key} emitted {emitted}, history {states}")
        extra = set(got[table]) - set(rows)
        assert not extra, f"{name}: rows never written: {sorted(extra)[:5]}"


def common_suffixes(left, right):
    """Both outputs, each row's states cut to the length of the shorter: what an exactly-once
    run over the same history must agree on whatever its snapshot's moment."""
    out = []
    for table in sorted(left):
        for key in sorted(set(left[table]) | set(right[table]), key=repr):
            a, b = left[table].get(key, [None]), right[table].get(key, [None])
            n = min(len(a), len(b))
            out.append((table, key, a[-n:], b[-n:]))
    return out


def checkpoint(state_dir):
    show = subprocess.run([cdcd_bin(), "checkpoints", "show", "--state-dir", str(state_dir)],
                          capture_output=True, text=True, timeout=60)
    if show.returncode != 0 or not show.stdout.strip():
        return None
    source = json.loads(show.stdout.splitlines()[0])["parts"].get("source")
    return source["state"]["state"] if source else None


def test_kill_9_twenty_times_during_snapshot_and_stream_is_exactly_once(pg, tmp_path):
    p = "crash"
    create_tables(pg, p)
    model = initial_model()
    txns = history(p, model, random.Random(20_2611))
    marker = f"INSERT INTO {p}_done VALUES (1);\n"
    tables = f"cdcd.public.{p}_\\.*"
    # Small chunks and batches: the snapshot lasts long enough for several kills to land in it.
    extra = ("  scan.incremental.snapshot.chunk.size: 40\n  scan.snapshot.fetch.size: 10\n"
             "  scan.incremental.snapshot.chunk.key-column: k\n")
    env = dict(os.environ, PG_TEST_PASSWORD=PASSWORD)

    def start(name, state):
        out = tmp_path / f"{name}.jsonl"
        yaml = tmp_path / f"{name}.yaml"
        yaml.write_text(pipeline_yaml(pg, f"slot_{name}", tables, extra,
                                      sink=f"  type: file\n  path: {out}\n  format: debezium-json\n")
                        .replace("interval: 500ms", "interval: 100ms"))
        proc = subprocess.Popen([cdcd_bin(), "run", str(yaml), "--state-dir", str(state)],
                                stdout=subprocess.DEVNULL, stderr=open(tmp_path / f"{name}.err", "ab"),
                                env=env)
        STARTED.append(proc)
        return proc, out

    def wait_marker(out, proc, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and proc.poll() is None:
            if out.exists() and f'"table":"{p}_done"' in out.read_text():
                return
            time.sleep(0.1)
        raise AssertionError(f"{out.name}: the writer's last transaction never arrived; "
                             + (tmp_path / (out.stem + ".err")).read_text()[-2000:])

    try:
        reference, ref_out = start("ref", tmp_path / "ref-state")
        crash_state = tmp_path / "crash-state"
        crashed, crash_out = start("crash", crash_state)
        writer = Writer(pg, txns, marker)
        writer.start()
        # A kill between the slot's creation and the first checkpoint naming its position
        # leaves a slot the next run cannot tell from someone else's (docs/postgres.md, Restart):
        # the kills begin once the position is durable.
        deadline = time.monotonic() + 30
        while not ((s := checkpoint(crash_state)) and lsn_value(s["lsn"]) != 0):
            assert time.monotonic() < deadline, (tmp_path / "crash.err").read_text()[-3000:]
            time.sleep(0.02)
        rng = random.Random(7)
        phases = []
        for i in range(20):
            # The first kills come quickly, inside the snapshot; the later ones in the stream.
            time.sleep(rng.uniform(0.05, 0.35) if i < 10 else rng.uniform(0.2, 0.8))
            assert crashed.poll() is None, (tmp_path / "crash.err").read_text()[-3000:]
            crashed.send_signal(signal.SIGKILL)
            crashed.wait()
            state = checkpoint(crash_state)
            # A checkpoint taken before the slot was created holds no position (0/0).
            if state is not None and lsn_value(state["lsn"]) != 0:
                phases.append((state["phase"], bool(state.get("resumed"))))
                slot = pg.slot("slot_crash")
                assert slot is not None
                assert lsn_value(slot["confirmed_flush_lsn"]) <= lsn_value(state["lsn"]), (
                    f"the slot confirmed {slot['confirmed_flush_lsn']}, the checkpoint holds {state['lsn']}")
            crashed, crash_out = start("crash", crash_state)
        writer.finish()
        wait_marker(crash_out, crashed)
        wait_marker(ref_out, reference)
        for proc in (crashed, reference):
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=30) == 0
    finally:
        for proc in STARTED:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        STARTED.clear()
        pg.drop_slot("slot_ref")
        pg.drop_slot("slot_crash")
        pg.sql(f"DROP PUBLICATION IF EXISTS pub_slot_ref, pub_slot_crash;"
               f"DROP TABLE IF EXISTS {p}_a, {p}_b, {p}_c, {p}_done")

    assert ("snapshot", True) in phases, f"no kill after a restarted snapshot's read: {phases}"
    assert any(phase == "stream" for phase, _ in phases), f"no kill while streaming: {phases}"
    ref, ref_events = histories(ref_out, p)
    got, got_events = histories(crash_out, p)
    assert ref_events >= ROWS_A + ROWS_B + ROWS_C
    check_against(model, ref, "uninterrupted run")
    check_against(model, got, "run killed 20 times")
    for table, key, a, b in common_suffixes(ref, got):
        assert a == b, f"{table} {key}: uninterrupted {a}, killed {b}"
