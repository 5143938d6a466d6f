#pragma once
// Rows handed from one thread to another arrive out of the receiving core's caches: a stage that
// walks a batch asks for a later event's row bytes while it works on the current one, and a stage
// that reads a batch column by column (the transform) asks for every row before the first column.
#include <algorithm>
#include <cstddef>
#include <optional>
#include <string_view>
#include <variant>

#include "pipeline/connector/event_selection.h"
#include "pipeline/event/events.h"
#include "pipeline/util/prefetch.h"

namespace cdcd {

/// How many events ahead of the one being worked on to fetch: far enough for the fetch to land,
/// near enough that the rows are still cached when their turn comes.
inline constexpr std::size_t kRowPrefetchDistance = 4;

/// How much of a row a fetch asks for: a typical row's fixed part and its strings; a large
/// document's rest is read in order, which the hardware prefetcher follows.
inline constexpr std::size_t kRowPrefetchBytes = 256;

/// Asks for the lines of `bytes`, up to kRowPrefetchBytes.
inline void prefetch_row_bytes(std::string_view bytes) {
    prefetch_bytes_for_read(bytes.data(), std::min(bytes.size(), kRowPrefetchBytes));
}

inline void prefetch_row(const std::optional<Row>& row) {
    if (row) prefetch_row_bytes(row->bytes());
}

/// Fetches the row images of `events[k + kRowPrefetchDistance]`, if there is one.
inline void prefetch_rows_ahead(const EventSelection& events, std::size_t k) {
    if (k + kRowPrefetchDistance >= events.size()) return;
    if (const auto* d = std::get_if<DataChangeEvent>(&events[k + kRowPrefetchDistance])) {
        prefetch_row(d->before);
        prefetch_row(d->after);
    }
}

}  // namespace cdcd
