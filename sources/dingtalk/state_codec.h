#pragma once
// The source's checkpoint state and its JSON encoding, in the connector state envelope
// (pipeline/connector/connector_state.h) as `dingtalk-cdc` version 1, whose payload is
//   {"rawJson":false,"excluded":["nodeId",...],"workspaces":[{"id":..,"root":..,"phase":"snapshot",
//     "cursor":[ms,"docId"],"docs":[["docId",ms,"hash16hex"],...],
//     "retry":[["docId",failures,nextMs],...]},...]}
// Per workspace (split): the read phase, the cursor (the last emitted document by modification
// time), a fingerprint per emitted document, so that a restart neither loses an update nor
// re-emits an unchanged document, and the documents waiting to be read again (absent in states
// written before it existed: none). Releases before the envelope stored the payload bare, with
// "v":1 as its first field; decode_state() reads both.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "sources/dingtalk/change_detector.h"
#include "sources/dingtalk/retry_schedule.h"

namespace cdcd::dingtalk {

enum class Phase {
    Baseline,     // latest-offset: the first scan records fingerprints without emitting
    Snapshot,     // emitting the current content as INSERT
    Incremental,  // emitting changes as REPLACE
};

const char* to_string(Phase p);

struct SplitState {
    std::string workspace_id;
    std::string root_node_id;
    Phase phase = Phase::Snapshot;
    std::int64_t cursor_ms = 0;
    std::string cursor_id;
    Fingerprints docs;
    /// Documents in `docs` whose last read failed (not readable, too large): read again when due.
    RetrySchedule retries;

    friend bool operator==(const SplitState&, const SplitState&) = default;
};

struct SourceState {
    bool include_raw_json = false;
    /// The scan.document.exclude-node-ids honoured since the job's first discovery (absent in
    /// states written before it was kept): an id added later does not hide what the job has
    /// discovered already (the spec: discovery is cumulative).
    std::optional<std::set<std::string>> excluded;
    std::map<std::string, SplitState> splits;  // by workspace id

    friend bool operator==(const SourceState&, const SourceState&) = default;
};

std::string encode_state(const SourceState& state);
/// Throws std::invalid_argument on malformed input.
SourceState decode_state(std::string_view text);

}  // namespace cdcd::dingtalk
