#pragma once
// Reads the captured tables inside one snapshot (the replication slot's exported snapshot, or a
// fresh REPEATABLE READ one for scan.startup.mode snapshot): per table a CreateTableEvent, then
// its rows as inserts, fetched through a cursor scan.snapshot.fetch.size rows at a time. Each
// table is read whole (no chunks).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/connector/bad_records.h"
#include "pipeline/connector/stream.h"
#include "sources/postgres/catalog.h"

namespace cdcd::postgres {

struct SnapshotBatch {
    EventBatch events;
    std::vector<BadRecord> bad_records;
};

/// Reads `tables` on `conn` inside one transaction; `snapshot_name` empty: a snapshot of its own.
/// `emit` gets each batch (at most fetch_size rows) and returns false to stop early (the source is
/// stopping). Returns every table's schema.
std::vector<std::pair<TableId, Schema>> read_snapshot(
    PgConnection& conn, const std::string& snapshot_name, const std::vector<CapturedTable>& tables,
    const TableFilter& filter, int fetch_size, const std::function<bool(SnapshotBatch)>& emit);

}  // namespace cdcd::postgres
