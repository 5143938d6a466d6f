#pragma once
// The oss-cdc source's checkpoint state: the phase and the progress of each reader. In the
// connector state envelope (pipeline/connector/connector_state.h) as `oss-cdc` version 2:
//   {"phase":"incremental",
//    "snapshot":{"prefix_index":0,"start_after_base64":"..","emitted":42},
//    "mns":{"skip_before_ms":1700000000000},
//    "polling":{"baseline_done":true,"scans":7,"prefixes":["<base64>",...]}}
// Object keys are bytes to the source, so start_after is base64; each polling prefix is its
// KeyIndex's compact encoding (front-coded keys + fingerprints, polling_state.h) in base64, which
// keeps a state of millions of objects near its binary size. Version 1, before the envelope,
// was binary (varint version 1, varint phase, then each reader's encode()); decode_state() still
// reads it.
#include <cstdint>
#include <string>
#include <string_view>

#include "sources/oss/mns_reader.h"
#include "sources/oss/polling_state.h"
#include "sources/oss/snapshot_reader.h"

namespace cdcd::oss {

enum class SourcePhase : std::uint8_t { Start = 0, Snapshot = 1, Incremental = 2, Done = 3 };

const char* to_string(SourcePhase phase);

struct SourceState {
    int version = 2;  // of the format it was read from (describe_state shows it)
    SourcePhase phase = SourcePhase::Start;
    SnapshotProgress snapshot;
    MnsState mns;
    PollingState polling;
};

/// Version 2, in the envelope.
std::string encode_state(SourcePhase phase, const SnapshotProgress& snapshot, const MnsState& mns,
                         const PollingState& polling);
/// Either version; throws StateError naming what is wrong.
SourceState decode_state(std::string_view state);

}  // namespace cdcd::oss
