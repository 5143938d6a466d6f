#pragma once
// Rows that came back to the thread that built them (the transform's input rows, rows writers
// on threads of their own have written): their buffers go to the thread's row buffer pool, where
// its next rows are built.
#include <utility>
#include <variant>

#include "pipeline/data/row_buffer_pool.h"
#include "pipeline/event/events.h"

namespace cdcd {

/// Moves the row buffers of `events` to the calling thread's pool (what it does not keep is freed).
inline void keep_row_buffers(EventBatch& events) {
    RowBufferPool& pool = RowBufferPool::this_thread();
    for (Event& e : events)
        if (auto* d = std::get_if<DataChangeEvent>(&e)) {
            if (d->before) pool.give(std::move(*d->before).release());
            if (d->after) pool.give(std::move(*d->after).release());
        }
}

}  // namespace cdcd
