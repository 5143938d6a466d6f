#pragma once
// Rows handed from one thread to another arrive out of the receiving core's caches: a stage that
// walks a batch asks for a later event's row bytes while it works on the current one.
#include <cstddef>
#include <optional>
#include <variant>

#include "pipeline/event/events.h"

namespace cdcd {

/// How many events ahead of the one being worked on to fetch: far enough for the fetch to land,
/// near enough that the rows are still cached when their turn comes.
inline constexpr std::size_t kRowPrefetchDistance = 4;

inline void prefetch_row(const std::optional<Row>& row) {
    if (!row) return;
    const char* p = row->bytes().data();
    __builtin_prefetch(p);
    if (row->bytes().size() > 64) __builtin_prefetch(p + 64);
}

/// Fetches the row images of `events[k + kRowPrefetchDistance]`, if there is one.
inline void prefetch_rows_ahead(const EventBatch& events, std::size_t k) {
    if (k + kRowPrefetchDistance >= events.size()) return;
    if (const auto* d = std::get_if<DataChangeEvent>(&events[k + kRowPrefetchDistance])) {
        prefetch_row(d->before);
        prefetch_row(d->after);
    }
}

}  // namespace cdcd
