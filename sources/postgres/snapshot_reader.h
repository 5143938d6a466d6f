#pragma once
// Reads the captured tables inside one snapshot (the replication slot's exported snapshot, or a
// REPEATABLE READ one of its own): per table a CreateTableEvent, then its rows as inserts. A
// table with a primary key is read in chunks of scan.incremental.snapshot.chunk.size rows in key
// order (`WHERE (key) > (last key) ORDER BY key LIMIT n`), and every batch says how far it went
// (SnapshotProgress), so that a restart reads on after the last key emitted; a table without one
// is read whole through a cursor.
#include <functional>
#include <optional>
#include <set>
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
};

struct SnapshotSettings {
    int fetch_size = 1024;                // rows per batch handed over
    int chunk_size = 8096;                // rows per query of a table with a primary key
    std::vector<MetadataField> metadata;  // metadata.list (op_ts 0 in the snapshot)
    ValueModes modes;                     // debezium.*: how types map and values read
};

/// Reads `tables` on `conn` inside one transaction (`snapshot_name` empty: a snapshot of its
/// own), from `from` on; `announced`: tables whose CreateTableEvent was already emitted. `emit`
/// gets each batch and returns false to stop early (the source is stopping). Returns the schema
/// of every table read.
std::vector<std::pair<TableId, Schema>> read_snapshot(
    PgConnection& conn, const std::string& snapshot_name, const std::vector<CapturedTable>& tables,
    const TableFilter& filter, const SnapshotSettings& settings, SnapshotProgress from,
    const std::set<TableId>& announced, const std::function<bool(SnapshotBatch)>& emit);

}  // namespace cdcd::postgres
