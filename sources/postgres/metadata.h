#pragma once
// The metadata columns of Flink CDC's Postgres connector (metadata.list): op_ts (the commit time
// of the change in milliseconds since the epoch, 0 for a snapshot row), table_name,
// database_name and schema_name; carried in each data change's meta under those names.
#include <optional>
#include <string>
#include <vector>

#include "pipeline/connector/registry.h"
#include "pipeline/event/events.h"

namespace cdcd::postgres {

enum class MetadataField { OpTs, TableName, DatabaseName, SchemaName };

std::optional<MetadataField> metadata_field(const std::string& name);
const char* metadata_name(MetadataField field);
/// BIGINT NOT NULL for op_ts, STRING NOT NULL for the names, as Flink CDC declares them.
DataType metadata_type(MetadataField field);

/// `metadata.list` (comma-separated) as fields; throws std::invalid_argument naming an unknown
/// one.
std::vector<MetadataField> parse_metadata_list(const std::string& list);

/// The meta of one change: `op_ts_ms` is the commit time (0 in the snapshot).
EventMeta metadata_of(const std::vector<MetadataField>& fields, const std::string& database,
                      const std::string& schema, const std::string& table, std::int64_t op_ts_ms);

}  // namespace cdcd::postgres
