#pragma once
// Rows that came back to the thread that built them (the transform's input rows, rows writers
// on threads of their own have written): their buffers go to the thread's row buffer pool, where
// its next rows are built, or back to the source's own thread when it built them there.
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "pipeline/connector/stream.h"
#include "pipeline/data/row_buffer_pool.h"
#include "pipeline/data/row_buffer_return.h"
#include "pipeline/event/events.h"

namespace cdcd {

/// Hands `take` the buffer of every row image of `events` (a before image ahead of its after).
template <typename Take>
void release_row_buffers(EventBatch& events, Take&& take) {
    for (Event& e : events)
        if (auto* d = std::get_if<DataChangeEvent>(&e)) {
            if (d->before) take(std::move(*d->before).release());
            if (d->after) take(std::move(*d->after).release());
        }
}

/// Moves the row buffers of `events` to the calling thread's pool (what it does not keep is freed).
inline void keep_row_buffers(EventBatch& events) {
    RowBufferPool& pool = RowBufferPool::this_thread();
    release_row_buffers(events, [&pool](std::string&& buffer) { pool.give(std::move(buffer)); });
}

/// Sends the row buffers of `rows` (optional), then of `events`, back to the thread that built
/// them, under one lock (what does not fit is freed on the calling thread).
inline void return_row_buffers(EventBatch& events, RowBufferReturn& home,
                               std::vector<Row>* rows = nullptr) {
    thread_local std::vector<std::string> spare;  // its capacity is kept between batches
    if (rows)
        for (Row& row : *rows) spare.push_back(std::move(row).release());
    release_row_buffers(events, [](std::string&& buffer) { spare.push_back(std::move(buffer)); });
    home.give_back(spare);
    spare.clear();
}

}  // namespace cdcd
