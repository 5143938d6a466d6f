#pragma once
// What flows between stages: batches of events, checkpoint barriers, and the end of input.
#include <cstdint>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "pipeline/event/events.h"

namespace cdcd {

using EventBatch = std::vector<Event>;

/// Copies of the events of `batch` that are not data changes (its schema changes), in order:
/// what an operator kept beside the stream needs to stay in step with it.
inline EventBatch schema_changes_in(const EventBatch& batch) {
    EventBatch changes;
    for (const Event& e : batch)
        if (!is_data_change(e)) changes.push_back(e);
    return changes;
}

// Append a data change to a batch, constructed where it stays. Pushing a change built elsewhere
// (events.push_back(DataChangeEvent::insert(...))) moved all of it once more into its Event and
// destroyed what was left (GENERATED -> values: 16 % of its instructions).

template <typename Before, typename After>
DataChangeEvent& append_change(EventBatch& events, TableId table, OpType op, Before&& before,
                               After&& after, EventMeta&& meta) {
    return *std::get_if<DataChangeEvent>(
        &events.emplace_back(std::in_place_index<0>, table, op, std::forward<Before>(before),
                             std::forward<After>(after), std::move(meta)));
}
inline DataChangeEvent& append_insert(EventBatch& events, TableId table, Row after,
                                      EventMeta meta = {}) {
    return append_change(events, table, OpType::Insert, std::nullopt, std::move(after),
                         std::move(meta));
}
/// `before`: absent when the source has no before image of the row.
inline DataChangeEvent& append_update(EventBatch& events, TableId table, std::optional<Row> before,
                                      Row after, EventMeta meta = {}) {
    return append_change(events, table, OpType::Update, std::move(before), std::move(after),
                         std::move(meta));
}
inline DataChangeEvent& append_delete(EventBatch& events, TableId table, Row before,
                                      EventMeta meta = {}) {
    return append_change(events, table, OpType::Delete, std::move(before), std::nullopt,
                         std::move(meta));
}
inline DataChangeEvent& append_replace(EventBatch& events, TableId table, Row after,
                                       EventMeta meta = {}) {
    return append_change(events, table, OpType::Replace, std::nullopt, std::move(after),
                         std::move(meta));
}

/// Checkpoint barrier N: everything before it belongs to checkpoint N.
struct Barrier {
    std::uint64_t checkpoint_id = 0;
};

/// A bounded source has emitted everything.
struct EndOfInput {};

using StreamElement = std::variant<EventBatch, Barrier, EndOfInput>;

}  // namespace cdcd
