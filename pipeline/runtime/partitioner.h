#pragma once
// Assigns data changes to sink writers (pipeline.sink.partitioning.strategy, Flink CDC's
// HashFunctionStrategy): by a hash of their primary-key values, so every change of one key goes
// to the same writer, in order (tables without a primary key hash by table id); or by table id
// alone, so one writer has every change of a table, in order.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "pipeline/connector/stream.h"
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
    std::size_t writer_of(const DataChangeEvent& event, std::size_t writers) const {
        if (writers <= 1) return 0;
        // A key of one integer column (most tables): inline, a few instructions an event; the
        // same hash as the general walk.
        if (single_fixed_ != kNoColumn) {
            const std::optional<Row>& row = key_row(event);
            if (row) {
                RowView v = row->view();
                if (single_fixed_ < v.arity()) {
                    std::uint64_t value =
                        v.is_null(single_fixed_)
                            ? 0
                            : static_cast<std::uint64_t>(v.get_long(single_fixed_));
                    return reduce(mix(0, value), writers);
                }
            }
        }
        return writer_of_walk(event, writers);
    }

    /// How many events ahead of writer_of a batch's walk asks for the row line it reads first.
    /// A source runs a few batches ahead of the partitioning, so a batch's rows have left the
    /// core's caches when their turn comes: without the fetch, that first read was 85 % of
    /// writer_of and 15 % of the loop at parallelism 2 (perf, GENERATED → file).
    static constexpr std::size_t kPrefetchDistance = 8;
    /// Asks for the first line of the row writer_of will read for `event`.
    static void prefetch_key(const DataChangeEvent& event) {
        const std::optional<Row>& row = key_row(event);
        if (row && !row->bytes().empty()) prefetch_for_read(row->bytes().data());
    }

  private:
    /// The row a change's key is read from: its after image, a delete's before image.
    static const std::optional<Row>& key_row(const DataChangeEvent& event) {
        return event.after ? event.after : event.before;
    }
    struct KeyColumn {
        std::size_t index;
        bool variable_length;
    };
    static constexpr std::size_t kNoColumn = static_cast<std::size_t>(-1);

    /// splitmix64's finaliser over the running hash.
    static std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
        h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
        h ^= h >> 30;
        h *= 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 27;
        return h;
    }
    /// The same writer as h % writers; a power of two takes a mask, not a division (tens of
    /// cycles an event on the loop, which at parallelism 2 sets the pace).
    static std::size_t reduce(std::uint64_t h, std::size_t writers) {
        if ((writers & (writers - 1)) == 0) return static_cast<std::size_t>(h & (writers - 1));
        return static_cast<std::size_t>(h % writers);
    }
    /// Every key column in turn, the table id when there is no key or no row.
    std::size_t writer_of_walk(const DataChangeEvent& event, std::size_t writers) const;

    bool by_key_ = false;  // else by table id
    std::vector<KeyColumn> columns_;
    std::size_t single_fixed_ = kNoColumn;  // the key's column when it is one fixed-length column
};

/// The positions in `events` of each writer's events, into `parts` (one per writer, cleared
/// first), ascending: each data change's at the writer PartitionKey picks for it, every other
/// event's at every writer. `sink_schema(TableId) -> const Schema*` is asked once per run of one
/// table's changes.
template <typename SinkSchema>
void partition_positions(const EventBatch& events, std::vector<std::vector<std::uint32_t>>& parts,
                         PartitioningStrategy strategy, const SinkSchema& sink_schema) {
    const std::size_t count = events.size();
    const std::size_t writers = parts.size();
    for (auto& part : parts) {
        part.clear();
        part.reserve(2 * count / writers + 16);
    }
    // Batches usually hold one table's events: its key is found once per run of them.
    TableId table;
    std::optional<PartitionKey> key;
    for (std::size_t k = 0; k < count; ++k) {
        if (k + PartitionKey::kPrefetchDistance < count)
            if (const auto* ahead =
                    std::get_if<DataChangeEvent>(&events[k + PartitionKey::kPrefetchDistance]))
                PartitionKey::prefetch_key(*ahead);
        const auto position = static_cast<std::uint32_t>(k);
        if (const auto* data = std::get_if<DataChangeEvent>(&events[k])) {
            if (!key || table != data->table) {
                table = data->table;
                key.emplace(sink_schema(data->table), strategy);
            }
            parts[key->writer_of(*data, writers)].push_back(position);
        } else {
            for (auto& part : parts) part.push_back(position);
        }
    }
}

/// Moves `events` into `parts` (one per writer; `events` is left empty), as partition_positions
/// assigns them: for writers on threads of their own (shared_batch.h says why).
template <typename SinkSchema>
void partition_events(EventBatch& events, std::vector<EventBatch>& parts,
                      PartitioningStrategy strategy, const SinkSchema& sink_schema) {
    thread_local std::vector<std::vector<std::uint32_t>> positions;
    positions.resize(parts.size());
    partition_positions(events, positions, strategy, sink_schema);
    for (std::size_t w = 0; w < parts.size(); ++w) {
        parts[w].reserve(positions[w].size());
        for (std::uint32_t k : positions[w]) {
            if (auto* data = std::get_if<DataChangeEvent>(&events[k]))
                // Moved as the change it is: moving the variant dispatched on its type per event.
                parts[w].emplace_back(std::in_place_index<0>, std::move(*data));
            else
                parts[w].push_back(events[k]);
        }
    }
    events.clear();
}

}  // namespace cdcd
