#include "pipeline/data/row_buffer_return.h"

#include <algorithm>

namespace cdcd {

void RowBufferReturn::give_back(std::vector<std::string>& buffers) {
    std::lock_guard lock(mutex_);
    std::size_t kept = 0;
    for (std::string& buffer : buffers) {
        const std::size_t capacity = buffer.capacity();
        if (waiting_bytes_ + capacity > RowBufferPool::kMaxKeptBytes) break;
        waiting_bytes_ += capacity;
        waiting_.push_back(std::move(buffer));
        ++kept;
    }
    buffers.erase(buffers.begin(), buffers.begin() + static_cast<std::ptrdiff_t>(kept));
}

void RowBufferReturn::take_into(RowBufferPool& pool) {
    std::lock_guard taking(take_mutex_);
    {
        std::lock_guard lock(mutex_);
        if (waiting_.empty()) return;
        taken_.swap(waiting_);
        waiting_bytes_ = 0;
    }
    for (std::string& buffer : taken_) pool.give(std::move(buffer));
    taken_.clear();
}

std::size_t RowBufferReturn::waiting_bytes() const {
    std::lock_guard lock(mutex_);
    return waiting_bytes_;
}

}  // namespace cdcd
