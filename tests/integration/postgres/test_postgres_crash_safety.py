"""kill -9 at twenty random moments of the snapshot and the stream, with a writer changing the
tables meanwhile: every row's history in the file sink's output is the database's, without a
change lost, repeated or out of order, as in an uninterrupted run over the same history; and the
slot never confirms more than the last durable checkpoint holds."""
import json
import os
import random
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

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


def history(p, model, rng, made_by):
    """The writer's transactions (SQL), applied to `model` as the server will apply them;
    `made_by` gets, for each row, the index of the transaction that made each of its states (None:
    the initial one). Each transaction first selects its index and id (the writer's output), so
    that a failure can tell which resumed read saw it."""
    seq = 0
    txns = []
    for n in range(TRANSACTIONS):
        statements = [f"SELECT 'txn', {n}, txid_current()"]
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
            made_by.setdefault((table, key), [None] * (len(rows[key]) - 1)).append(n)
        txns.append("BEGIN;\n" + ";\n".join(statements) + ";\nCOMMIT;\n")
    return txns


class Writer(threading.Thread):
    """One psql session running the transactions in order, a few milliseconds apart."""

    def __init__(self, pg, txns, marker, output):
        super().__init__(daemon=True)
        env = dict(os.environ, PGPASSWORD=PASSWORD)
        self.proc = subprocess.Popen(
            [str(pg.bin / "psql"), "-h", "127.0.0.1", "-U", USER, "-p", str(pg.port), "-d",
             DATABASE, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"],
            stdin=subprocess.PIPE, stdout=open(output, "w"), stderr=subprocess.PIPE, env=env,
            text=True)
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
    """Each row's states in the output, as `seq` values (None: deleted), the events read, and for
    each row the byte offset and line number of the line that gave each state."""
    out = {"a": {}, "b": {}, "c": {}}
    where = {}
    events = 0
    offset = 0
    for number, raw in enumerate(path.read_bytes().splitlines(keepends=True), 1):
        at = offset
        offset += len(raw)
        e = json.loads(raw)
        table = e["source"]["table"]
        if table == f"{p}_done":
            continue
        t = table[len(p) + 1:]
        events += 1

        def state(key, value):
            out[t].setdefault(key, []).append(value)
            where.setdefault((t, key), []).append((number, at, e["op"]))

        if e["op"] in ("c", "r", "u"):
            if e["op"] == "u" and e["before"] is not None and identity(t, e["before"]) != identity(t, e["after"]):
                state(identity(t, e["before"]), None)
            state(identity(t, e["after"]), e["after"]["seq"])
        elif e["op"] == "d":
            state(identity(t, e["before"]), None)
    return out, events, where


def check_against(model, got):
    """Every row's output states are the last ones of its history: none lost, none repeated,
    in order, ending at the final state. Returns the rows that break it, with why."""
    wrong = []
    for table, rows in model.items():
        for key, states in rows.items():
            emitted = got[table].get(key, [])
            # A row that never had a value when read and changed only before its read: nothing.
            if not emitted:
                if states[-1] is not None:
                    wrong.append((table, key, "missing"))
                continue
            if states[-len(emitted):] != emitted:
                wrong.append((table, key, "not the tail of its history"))
        for key in sorted(set(got[table]) - set(rows), key=repr)[:5]:
            wrong.append((table, key, "never written"))
    return wrong


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


def checkpoint_parts(state_dir):
    """The newest checkpoint's id, source state and file sink's committed length (None: none)."""
    show = subprocess.run([cdcd_bin(), "checkpoints", "show", "--state-dir", str(state_dir)],
                          capture_output=True, text=True, timeout=60)
    if show.returncode != 0 or not show.stdout.strip():
        return None
    c = json.loads(show.stdout.splitlines()[0])
    source = c["parts"].get("source")
    sink = c["parts"].get("sink/0")
    return {"id": c["id"], "source": source["state"]["state"] if source else None,
            "length": sink["state"]["state"]["length"] if sink else 0}


def checkpoint(state_dir):
    parts = checkpoint_parts(state_dir)
    return parts["source"] if parts else None


def xids(path):
    """The writer's transactions' ids, by index (its output: txn|index|xid)."""
    out = {}
    for line in path.read_text().splitlines():
        fields = line.split("|")
        if len(fields) == 3 and fields[0] == "txn":
            out[int(fields[1])] = int(fields[2])
    return out


def describe_state(state):
    if state is None:
        return "no checkpoint (a fresh start)"
    snap = state.get("snapshot") or {}
    text = (f"phase {state['phase']} lsn {state['lsn']} txn_events {state['txn_events']}"
            + (f" done {snap.get('done')} table {snap.get('table')!r} after {snap.get('after')}"
               if state["phase"] == "snapshot" else ""))
    for r in state.get("resumed") or []:
        text += (f"\n        resumed read from done {r['from']['done']} table {r['from']['table']!r}"
                 f" after {r['from']['after']} snapshot {r['snapshot']} high {r['high']}")
    return text


def report(tmp_path, runs, rows, model, made_by, outputs, xid_of):
    """What a failure needs to be understood: each failing row's history (with the transaction
    and its id that made each state), its output lines and the run (and so the restored
    checkpoint, hence the read) that wrote each, every run's restored state, and cdcd's logs.
    The whole directory is kept under /tmp/pgsnap-failures."""
    lines = []
    for table, key, why in rows[:10]:
        states = model[table].get(key, [])
        makers = made_by.get((table, key), [None] * len(states))
        lines.append(f"row {table} {key}: {why}")
        lines.append("  history (seq, transaction index, xid): " + ", ".join(
            f"({s}, {n}, {xid_of.get(n) if n is not None else '-'})" for s, n in zip(states, makers)))
        for name, got, at in outputs:
            emitted = got[table].get(key, [])
            lines.append(f"  {name} emitted {emitted}")
            for (number, offset, op), value in zip(at.get((table, key), []), emitted):
                run = max(i for i, r in enumerate(runs) if r["start"] <= offset) if name == "killed" else None
                lines.append(f"    line {number} offset {offset} op {op} seq {value}"
                             + (f" written by run {run}" if run is not None else ""))
    lines.append("runs of the killed pipeline (each restores the checkpoint left by the kill before):")
    for i, r in enumerate(runs):
        lines.append(f"  run {i}: output from offset {r['start']}, checkpoint {r['checkpoint']}, "
                     f"killed at output size {r.get('size_at_kill')}: {describe_state(r['state'])}")
    keep = Path("/tmp/pgsnap-failures") / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
    shutil.copytree(tmp_path, keep, ignore=shutil.ignore_patterns("*.sst"), dirs_exist_ok=True)
    lines.append(f"kept in {keep}")
    lines.append("logs of the killed runs:\n" + (tmp_path / "crash.err").read_text()[-12000:])
    return "\n".join(lines)


def test_kill_9_twenty_times_during_snapshot_and_stream_is_exactly_once(pg, tmp_path):
    p = "crash"
    create_tables(pg, p)
    model = initial_model()
    made_by = {}
    txns = history(p, model, random.Random(20_2611), made_by)
    marker = f"INSERT INTO {p}_done VALUES (1);\n"
    tables = f"cdcd.public.{p}_\\.*"
    # Small chunks and batches: the snapshot lasts long enough for several kills to land in it.
    extra = ("  scan.incremental.snapshot.chunk.size: 40\n  scan.snapshot.fetch.size: 10\n"
             "  scan.incremental.snapshot.chunk.key-column: k\n")
    env = dict(os.environ, PG_TEST_PASSWORD=PASSWORD)
    # The killed pipeline's runs: where each began writing, the checkpoint it restored.
    runs = [{"start": 0, "checkpoint": None, "state": None}]

    def start(name, state):
        out = tmp_path / f"{name}.jsonl"
        yaml = tmp_path / f"{name}.yaml"
        yaml.write_text(pipeline_yaml(pg, f"slot_{name}", tables, extra,
                                      sink=f"  type: file\n  path: {out}\n  format: debezium-json\n")
                        .replace("interval: 500ms", "interval: 100ms"))
        with open(tmp_path / f"{name}.err", "ab") as err:
            err.write(f"===== run {len(runs) - 1} =====\n".encode())
            proc = subprocess.Popen([cdcd_bin(), "run", str(yaml), "--state-dir", str(state)],
                                    stdout=subprocess.DEVNULL, stderr=err, env=env)
        STARTED.append(proc)
        return proc, out

    def fail(message, rows=()):
        raise AssertionError(message + "\n" + report(
            tmp_path, runs, list(rows), model, made_by,
            [(name, *histories(path, p)[::2]) for name, path in
             (("uninterrupted", tmp_path / "ref.jsonl"), ("killed", tmp_path / "crash.jsonl"))
             if path.exists()],
            xids(tmp_path / "writer.out")))

    def wait_marker(out, proc, state, restored, timeout=30):
        """Waits for the writer's last transaction in `out`, written by the run `proc` (which
        restored checkpoint `restored`): the file may hold it from before the last kill until
        the run truncates it back to its checkpoint, so the run's own checkpoint comes first
        (which also means it handles SIGTERM by now)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and proc.poll() is None:
            parts = checkpoint_parts(state)
            if (parts and parts["id"] != restored and out.exists()
                    and f'"table":"{p}_done"' in out.read_text()):
                return
            time.sleep(0.1)
        fail(f"{out.name}: the writer's last transaction never arrived; "
             + (tmp_path / (out.stem + ".err")).read_text()[-2000:])

    try:
        reference, ref_out = start("ref", tmp_path / "ref-state")
        crash_state = tmp_path / "crash-state"
        crashed, crash_out = start("crash", crash_state)
        writer = Writer(pg, txns, marker, tmp_path / "writer.out")
        writer.start()
        # The first kills may land around the slot's creation, before any checkpoint names its
        # position: the restart knows the slot for its own (docs/postgres.md, Restart).
        rng = random.Random(7)
        phases = []

        def wait_for(what, done, timeout=60):
            deadline = time.monotonic() + timeout
            while not done(checkpoint(crash_state)):
                if crashed.poll() is not None or time.monotonic() > deadline:
                    fail(f"run {len(runs) - 1}: {what} never came")
                time.sleep(0.02)

        for i in range(20):
            # The first kills come quickly, inside the snapshot; the later ones in the stream.
            # Kills at random moments alone may all land before a run's first checkpoint (a run
            # needs a few hundred milliseconds to restore, connect and take its snapshot), so
            # that the snapshot never ends within the twenty: every other kill waits until the
            # run has checkpointed something new with a position (the slot's creation, or its
            # resumed read), and the last ten until the checkpoint is in the stream.
            restored = runs[-1]["state"]
            resuming = (restored is not None and restored["phase"] == "snapshot"
                        and lsn_value(restored["lsn"]) != 0)
            if i < 10 and resuming and ("snapshot", True) not in phases:
                # The snapshot lasts a run or two: a random moment can miss the resumed read
                # (it did, once in a few dozen runs), so the first run that resumes one is killed
                # as soon as it has checkpointed inside it.
                wait_for("a checkpoint of the resumed snapshot read, or of the stream after it",
                         lambda s: s and s != restored and (
                             s["phase"] == "stream" or s.get("resumed")))
            else:
                if i % 2 == 1 and i < 10:
                    wait_for("a checkpoint with a position past the restored one",
                             lambda s: s and s != restored and lsn_value(s["lsn"]) != 0)
                if i >= 10:
                    wait_for("a checkpoint in the stream", lambda s: s and s["phase"] == "stream")
                time.sleep(rng.uniform(0.05, 0.35) if i < 10 else rng.uniform(0.2, 0.8))
            if crashed.poll() is not None:
                fail(f"run {len(runs) - 1} exited by itself ({crashed.returncode})")
            crashed.send_signal(signal.SIGKILL)
            crashed.wait()
            runs[-1]["size_at_kill"] = crash_out.stat().st_size if crash_out.exists() else 0
            parts = checkpoint_parts(crash_state)
            state = parts["source"] if parts else None
            runs.append({"start": parts["length"] if parts else 0,
                         "checkpoint": parts["id"] if parts else None, "state": state})
            # A checkpoint taken before the slot was created holds no position (0/0).
            if state is not None and lsn_value(state["lsn"]) != 0:
                phases.append((state["phase"], bool(state.get("resumed"))))
                slot = pg.slot("slot_crash")
                assert slot is not None
                if lsn_value(slot["confirmed_flush_lsn"]) > lsn_value(state["lsn"]):
                    fail(f"the slot confirmed {slot['confirmed_flush_lsn']}, the checkpoint "
                         f"holds {state['lsn']}")
            crashed, crash_out = start("crash", crash_state)
        writer.finish()
        wait_marker(crash_out, crashed, crash_state, runs[-1]["checkpoint"])
        wait_marker(ref_out, reference, tmp_path / "ref-state", None)
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

    if ("snapshot", True) not in phases:
        fail(f"no kill after a restarted snapshot's read: {phases}")
    if not any(phase == "stream" for phase, _ in phases):
        fail(f"no kill while streaming: {phases}")
    ref, ref_events, _ = histories(ref_out, p)
    got, _, _ = histories(crash_out, p)
    assert ref_events >= ROWS_A + ROWS_B + ROWS_C
    for name, output in (("uninterrupted run", ref), ("run killed 20 times", got)):
        if wrong := check_against(model, output):
            fail(f"{name}: {len(wrong)} rows whose output is not the tail of their history", wrong)
    differ = [(table, key, f"uninterrupted {a}, killed {b}")
              for table, key, a, b in common_suffixes(ref, got) if a != b]
    if differ:
        fail(f"{len(differ)} rows whose outputs differ", differ)
