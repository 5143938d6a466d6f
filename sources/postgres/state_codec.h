#pragma once
// The postgres source's checkpoint state, in the connector state envelope
// (pipeline/connector/connector_state.h), version 1:
//   {"slot":"cdcd_orders","phase":"stream","lsn":"0/16B3748","txn_events":0,"tables":[...]}
//   {..."phase":"snapshot",..."snapshot":{"done":["public.a"],"table":"public.b","after":["42"]}}
// `lsn` is where streaming resumes: the end of the last transaction whose changes were all
// emitted (or the slot's consistent point after the snapshot); `txn_events` counts the changes of
// the next transaction already emitted (a large transaction spans several batches), which a
// restart skips. `phase` snapshot: the snapshot was not finished; a restart takes it again.
// `tables`: the schemas announced so far (pipeline/schema/schema_json.h), so that a restart
// neither re-creates a table nor misses a change to it.
// `resumed` (either phase, absent when empty): each read of the snapshot's rest after a restart,
// in a snapshot of its own: where it began, that snapshot's visibility and the WAL position after
// it was taken (backfill_filter.h), until the stream is past the last one:
//   "resumed":[{"from":{"done":[],"table":"public.b","after":["42"]},"snapshot":"750:754:751",
//               "high":"0/16C0000"}]
// `creating_slot_after` (lsn 0/0 only): the source is about to create slot `slot` (scan.startup
// .mode initial), and the WAL insert position before it did: a restart that finds the slot, not
// in use and reserving WAL from at or after that position, knows it made it (the kill came
// before a checkpoint named its position) and drops it to start over. Any other existing slot
// is refused, as someone else's.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/schema/schema_json.h"
#include "sources/postgres/pgoutput_decoder.h"
#include "sources/postgres/txn_snapshot.h"

namespace cdcd::postgres {

enum class Phase { Snapshot, Stream };

struct SnapshotProgress {
    std::vector<std::string> done;   // tables read whole (TableId::str())
    std::string table;               // the table being read; empty: none
    std::vector<std::string> after;  // its primary key's last emitted value (text); empty: none
    friend bool operator==(const SnapshotProgress&, const SnapshotProgress&) = default;
};

/// A read of the snapshot's rest after a restart (scan.incremental.snapshot.backfill.skip false).
struct ResumedRead {
    SnapshotProgress from;  // what had been emitted before it began
    TxnSnapshot snapshot;   // the snapshot it read in
    Lsn high = 0;           // pg_current_wal_insert_lsn() after the snapshot was taken
    friend bool operator==(const ResumedRead&, const ResumedRead&) = default;
};

struct SourceState {
    std::string slot;
    Phase phase = Phase::Snapshot;
    Lsn lsn = 0;
    std::uint64_t txn_events = 0;
    SnapshotProgress snapshot;  // phase snapshot only
    std::vector<ResumedRead> resumed;
    std::optional<Lsn> creating_slot_after;
    TableSchemas tables;
};

std::string encode_state(const SourceState& state);
/// Throws ConnectorStateError (a std::runtime_error) naming what is wrong.
SourceState decode_state(std::string_view blob);
/// The payload alone, for `cdcd checkpoints show`.
std::string describe_state_json(const SourceState& state);

}  // namespace cdcd::postgres
