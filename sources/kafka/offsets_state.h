#pragma once
// The Kafka source's checkpoint state: the next offset to read per topic partition, and the
// schemas inferred so far (so that a restored source compares new messages with them and never
// re-creates a table). In the connector state envelope (pipeline/connector/connector_state.h),
// version 2, the payload is describe_state_json()'s object. Releases before the envelope wrote
// text, one record per line, which decode_state() still reads:
//   cdcd-kafka-source 1
//   o <topic> <partition> <next offset>
//   s <table schemas JSON (pipeline/schema/schema_json.h)>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "pipeline/schema/schema_json.h"

namespace cdcd::kafka {

using PartitionKey = std::pair<std::string, std::int32_t>;  // topic, partition
using Offsets = std::map<PartitionKey, std::int64_t>;       // → next offset to read

struct SourceState {
    Offsets offsets;
    TableSchemas schemas;
};

std::string encode_state(const SourceState& state);
/// Either format; throws std::runtime_error on a malformed blob.
SourceState decode_state(std::string_view blob);
/// {"offsets":[{"topic":…,"partition":…,"offset":…}],"tables":[…]} for `cdcd checkpoints show`.
std::string describe_state_json(const SourceState& state);

}  // namespace cdcd::kafka
