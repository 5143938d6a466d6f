#include "pipeline/data/row_buffer_pool.h"

#include <algorithm>

#include "pipeline/util/prefetch.h"

namespace cdcd {

void RowBufferPool::give(std::string&& buffer) {
    const std::size_t capacity = buffer.capacity();
    if (!would_keep(capacity)) return;
    kept_bytes_ += capacity;
    buffers_.push_back(std::move(buffer));
}

void RowBufferPool::fetch_ahead() const {
    if (buffers_.size() < kFetchAhead) return;
    const std::string& later = buffers_[buffers_.size() - kFetchAhead];
    prefetch_bytes_for_write(later.data(), std::min(later.capacity(), kFetchBytes));
}

bool RowBufferPool::take_kept(std::string& out, std::size_t capacity) {
    // Rows of a table are alike in size: a kept buffer too small for this one is dropped rather
    // than left to block the others. The buffer moves straight into `out` (no temporary: these
    // moves were half of a row's cost in the pool).
    for (int tries = 0; tries < 2 && !buffers_.empty(); ++tries) {
        std::string& last = buffers_.back();
        const std::size_t kept = last.capacity();
        kept_bytes_ -= kept;
        if (kept >= capacity) {
            out = std::move(last);
            buffers_.pop_back();
            fetch_ahead();
            out.clear();
            return true;
        }
        buffers_.pop_back();  // frees it
    }
    return false;
}

}  // namespace cdcd
