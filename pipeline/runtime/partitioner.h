#pragma once
// Assigns data changes to sink writers (pipeline.sink.partitioning.strategy, Flink CDC's
// HashFunctionStrategy): by a hash of their primary-key values, so every change of one key goes
// to the same writer, in order (tables without a primary key hash by table id); or by table id
// alone, so one writer has every change of a table, in order.
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "pipeline/event/events.h"

namespace cdcd {

enum class PartitioningStrategy {
    /// The sink's own partitioning; no cdcd sink defines one, so this is PrimaryKey (Flink's
    /// default hash function, which hashes the primary key).
    SinkDefined,
    PrimaryKey,
    TableId,
};

/// SINK_DEFINED, PRIMARY_KEY or TABLE_ID (the option's canonical spellings); nullopt otherwise.
std::optional<PartitioningStrategy> parse_partitioning_strategy(std::string_view text);

/// What a table's data changes are hashed by, found once per table and schema (not per change).
class PartitionKey {
  public:
    /// `schema`: the table's on the sink side (null: unknown, hashed by table id).
    PartitionKey(const Schema* schema, PartitioningStrategy strategy);
    /// Writer index in [0, writers) for `event`, a change of that table.
    std::size_t writer_of(const DataChangeEvent& event, std::size_t writers) const;

  private:
    struct KeyColumn {
        std::size_t index;
        bool variable_length;
    };
    bool by_key_ = false;  // else by table id
    std::vector<KeyColumn> columns_;
};

}  // namespace cdcd
