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
#include "pipeline/util/prefetch.h"

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

    /// How many events ahead of writer_of a batch's walk asks for the row line it reads first.
    /// A source runs a few batches ahead of the partitioning, so a batch's rows have left the
    /// core's caches when their turn comes: without the fetch, that first read was 85 % of
    /// writer_of and 15 % of the loop at parallelism 2 (perf, GENERATED → file).
    static constexpr std::size_t kPrefetchDistance = 8;
    /// Asks for the first line of the row writer_of will read for `event`.
    static void prefetch_key(const DataChangeEvent& event) {
        const std::optional<Row>& row = event.after ? event.after : event.before;
        if (row && !row->bytes().empty()) prefetch_for_read(row->bytes().data());
    }

  private:
    struct KeyColumn {
        std::size_t index;
        bool variable_length;
    };
    bool by_key_ = false;  // else by table id
    std::vector<KeyColumn> columns_;
};

}  // namespace cdcd
