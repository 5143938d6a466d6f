#pragma once
// Reads the captured tables inside one snapshot (the replication slot's exported snapshot, or a
// REPEATABLE READ one of its own): per table a CreateTableEvent, then its rows as inserts. A
// table with a primary key is read in chunks of scan.incremental.snapshot.chunk.size rows in key
// order (`WHERE (key) > (last key) ORDER BY key LIMIT n`), and every batch says how far it went
// (SnapshotProgress), so that a restart reads on after the last key emitted. A table without one
// is read the same way by scan.incremental.snapshot.chunk.key-column when it has that column
// (not unique: a chunk ends after every row of its last value, `WHERE col > $1 AND col <= $2`),
// else whole through a cursor.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/connector/bad_records.h"
#include "pipeline/connector/stream.h"
#include "sources/postgres/catalog.h"
#include "sources/postgres/metadata.h"
#include "sources/postgres/state_codec.h"

namespace cdcd::postgres {

struct SnapshotBatch {
    EventBatch events;
    std::vector<BadRecord> bad_records;
    SnapshotProgress progress;  // after these events
    /// The first batch of a read: the rows its tables still to read hold, as the planner
    /// estimates them (pg_class.reltuples); -1 on the other batches.
    std::int64_t rows_estimate = -1;
};

struct SnapshotSettings {
    int fetch_size = 1024;                        // rows per batch handed over
    int chunk_size = 8096;                        // rows per query of a table with a primary key
    std::vector<MetadataField> metadata;          // metadata.list (op_ts 0 in the snapshot)
    ValueModes modes;                             // debezium.*: how types map and values read
    std::optional<std::string> chunk_key_column;  // tables without a primary key
    bool schema_changes = false;                  // schema-change.enabled
};

/// The columns a table is read in order of: its primary key, else the chunk key column; empty:
/// read whole. Throws naming the option when a table without a primary key lacks the chunk key
/// column, or it may be NULL.
std::vector<std::size_t> paging_key(const Schema& schema, const TableId& table,
                                    const std::optional<std::string>& chunk_key_column);

/// Called once a snapshot of its own is taken, before any row is read: its visibility and the
/// WAL position after it.
using SnapshotTaken = std::function<void(const TxnSnapshot&, Lsn high)>;

/// Reads `tables` on `conn` inside one transaction (`snapshot_name` empty: a snapshot of its
/// own), from `from` on; `announced`: the schemas already announced (a restart's), whose rows
/// follow the schema change events that take them to the columns now (or, without
/// schema-change.enabled, an error naming the change). `emit` gets each batch and returns false
/// to stop early (the source is stopping). `taken` (a snapshot of its own only) hears of the
/// snapshot first. Returns the schema downstream has of every table.
std::vector<std::pair<TableId, Schema>> read_snapshot(
    PgConnection& conn, const std::string& snapshot_name, const std::vector<CapturedTable>& tables,
    const TableFilter& filter, const SnapshotSettings& settings, SnapshotProgress from,
    const std::map<TableId, Schema>& announced, const std::function<bool(SnapshotBatch)>& emit,
    const SnapshotTaken& taken = {});

}  // namespace cdcd::postgres
