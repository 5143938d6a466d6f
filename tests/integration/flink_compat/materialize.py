"""Rebuilds Flink CDC's ValuesDatabase (the values sink's in-memory tables) from the events the
values sink printed, so Flink's `ValuesDatabase.getResults(table)` assertions can be checked
against cdcd's stdout. Written from ValuesDatabase.ValuesTable's rules (flink-cdc-pipeline-connector-values):

* a record is stored under the string of its primary-key values; INSERT/UPDATE/REPLACE put the
  after image, DELETE removes the before image's key;
* each record remembers, per column name present when it was written, the row written; a result
  line is `tableId:c1=v1;c2=v2` over the table's *current* columns, reading field i of the row
  remembered for that column name (empty when the name is absent or the value is null);
* Rename moves the remembered entry to the new name, Drop forgets it, Add changes only columns;
  Truncate clears the records, DropTable removes the table.

Schema changes are printed by every sink subtask (`N> ` prefix when parallelism > 1): each
subtask's own schema is tracked to parse its rows, and the shared table is changed once per
schema change, by the lowest-numbered subtask that printed schema changes.
Limitation: fields are split on ", ", which is exact for the values event sets (no commas in values).
"""
import re

PREFIX = re.compile(r"^(\d+)> ")
HEAD = re.compile(r"^(\w+)\{tableId=([^,]*), ")
COLUMN = re.compile(r"`((?:[^`]|``)*)` ")
ADDED = re.compile(r"ColumnWithPosition\{column=`((?:[^`]|``)*)` .*?, position=(\w+), existedColumnName=([^}]*)\}")


def _split_fields(text: str):
    if text == "":
        return []
    return [None if f == "null" else f for f in text.split(", ")]


def _columns_of_create(line: str):
    body = line[line.index("schema=columns={") + len("schema=columns={"):]
    body = body[: body.index("}, primaryKeys=")]
    # Each column summary starts with a back-quoted name.
    names = []
    for part in re.split(r",(?=`)", body):
        m = COLUMN.match(part)
        names.append(m.group(1))
    rest = line[line.index("}, primaryKeys=") + len("}, primaryKeys="):]
    pk = re.split(r", (?:partitionKeys|options|comment)=", rest)[0]
    return names, [k for k in pk.split(";") if k] if ";" in pk else [k.strip() for k in pk.split(",") if k.strip()]


def _apply_add(columns, line):
    for name, pos, existed in ADDED.findall(line):
        if pos == "FIRST":
            columns.insert(0, name)
        elif pos == "LAST":
            columns.append(name)
        elif pos == "BEFORE":
            columns.insert(columns.index(existed), name)
        elif pos == "AFTER":
            columns.insert(columns.index(existed) + 1, name)


def _mapping(line, key):
    body = line[line.index(key + "={") + len(key) + 2:]
    body = body[: body.index("}")]
    return [tuple(kv.split("=", 1)) for kv in body.split(", ") if kv]


class Table:
    def __init__(self, table_id, columns, pks):
        self.table_id, self.columns, self.pks = table_id, list(columns), pks
        self.records = {}

    def key(self, row, columns):
        idx = sorted(i for i, c in enumerate(columns) if c in self.pks)
        return ",".join("null" if row[i] is None else row[i] for i in idx)

    def results(self):
        out = []
        for record in self.records.values():
            fields = []
            for i, col in enumerate(self.columns):
                row = record.get(col)
                value = row[i] if row is not None and i < len(row) and row[i] is not None else ""
                fields.append(f"{col}={value}")
            out.append(f"{self.table_id}:" + ";".join(fields))
        return out


def materialize(stdout: str):
    tables = {}
    local = {}  # (subtask, table) -> columns, as that subtask printed them
    local_count = {}  # (subtask, table) -> schema changes printed by that subtask
    global_count = {}  # table -> schema changes applied to the shared table
    for raw in stdout.splitlines():
        m = PREFIX.match(raw)
        subtask = int(m.group(1)) if m else 0
        line = raw[m.end():] if m else raw
        h = HEAD.match(line)
        if not h:
            continue
        kind, tid = h.group(1), h.group(2)
        if kind == "DataChangeEvent":
            before = re.search(r", before=\[(.*?)\], after=\[", line).group(1)
            after = re.search(r"\], after=\[(.*?)\], op=", line).group(1)
            op = re.search(r"\], op=(\w+), meta=", line).group(1)
            t = tables[tid]
            if op == "DELETE":
                t.records.pop(t.key(_split_fields(before), t.columns), None)
            else:
                row = _split_fields(after)
                t.records[t.key(row, t.columns)] = {c: row for c in t.columns[: len(row)]}
            continue
        local_count[(subtask, tid)] = local_count.get((subtask, tid), 0) + 1
        owner = local_count[(subtask, tid)] > global_count.get(tid, 0)
        if owner:
            global_count[tid] = local_count[(subtask, tid)]
        if kind == "CreateTableEvent":
            names, pks = _columns_of_create(line)
            local[(subtask, tid)] = list(names)
            if owner and tid not in tables:
                tables[tid] = Table(tid, names, pks)
            continue
        cols = local[(subtask, tid)]
        t = tables.get(tid)
        if kind == "AddColumnEvent":
            _apply_add(cols, line)
            if owner:
                _apply_add(t.columns, line)
        elif kind == "DropColumnEvent":
            body = line[line.index("droppedColumnNames=[") + len("droppedColumnNames=["): line.rindex("]")]
            for name in body.split(", "):
                cols.remove(name)
                if owner:
                    t.columns.remove(name)
                    for record in t.records.values():
                        record.pop(name, None)
        elif kind == "RenameColumnEvent":
            for old, new in _mapping(line, "nameMapping"):
                cols[cols.index(old)] = new
                if owner:
                    t.columns[t.columns.index(old)] = new
                    for record in t.records.values():
                        if old in record:
                            record[new] = record.pop(old)
        elif kind == "TruncateTableEvent" and owner and t:
            t.records.clear()
        elif kind == "DropTableEvent" and owner:
            tables.pop(tid, None)
    return {tid: t.results() for tid, t in tables.items()}
