#pragma once
// A Kafka sink writer's part of a checkpoint: the schemas of its tables and, with exactly-once,
// the sink's transactions not yet known committed (transactions.h); and how the parts of one
// checkpoint's writers become those of another number of writers (a changed parallelism).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cdcd::kafka {

/// What a checkpoint records about the sink's transactions.
struct TransactionsState {
    std::string group;  // the marker group
    std::string token;  // the offsets' metadata
    struct Pending {
        std::uint64_t checkpoint = 0;
        std::string topic;  // the marker's topic (partition 0)
        bool operator==(const Pending&) const = default;
    };
    std::vector<Pending> pending;  // prepared, not known committed; ascending checkpoints
    std::string ids;  // the transactional ids' base (<ids>-0-<slot>); empty in older states
    bool operator==(const TransactionsState&) const = default;
};

/// The writer state of an at-least-once Kafka writer: its table schemas (JSON, or empty for none),
/// in the connector state envelope (pipeline/connector/connector_state.h), `kafka-sink` version 1:
///   {"tables":[...]}
std::string encode_writer_state(const std::string& schemas_json);
/// The writer state of an exactly-once Kafka writer: its table schemas and the transactions,
///   {"tables":[...],"transactions":{"group":..,"token":..,"ids":..,
///                                   "pending":[{"checkpoint":..,"topic":..}]}}
std::string encode_writer_state(const std::string& schemas_json, const TransactionsState& txn);
/// Accepts both, and what releases before the envelope stored: that object bare, or the bare
/// schemas' array (at-least-once), or nothing.
struct DecodedWriterState {
    std::string schemas_json;  // empty when there are none
    std::optional<TransactionsState> transactions;
};
DecodedWriterState decode_writer_state(std::string_view state);

/// The writer states of one checkpoint's writers, merged into the state every writer of another
/// parallelism restores from: the tables any of them had, and the transactions any of them listed
/// as pending (the writers' lists differ only by a commit that came between their barriers, and a
/// transaction listed once too often is only checked for its marker once more). Throws when the
/// states name different transaction histories (marker groups, tokens or ids).
std::string merge_writer_states(const std::vector<std::string>& states);

}  // namespace cdcd::kafka
