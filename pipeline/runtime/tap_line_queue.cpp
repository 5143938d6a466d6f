#include "pipeline/runtime/tap_line_queue.h"

namespace cdcd {

TapLineQueue::TapLineQueue(std::size_t max_lines, std::size_t max_bytes)
    : max_lines_(max_lines), max_bytes_(max_bytes) {}

bool TapLineQueue::push(std::string line) {
    std::lock_guard lock(mutex_);
    if (lines_.size() >= max_lines_ || bytes_ + line.size() > max_bytes_) {
        ++dropped_;
        return false;
    }
    bytes_ += line.size();
    lines_.push_back(std::move(line));
    return true;
}

std::size_t TapLineQueue::take_all(std::string& out) {
    std::deque<std::string> taken;
    {
        std::lock_guard lock(mutex_);
        taken.swap(lines_);
        bytes_ = 0;
    }
    for (const auto& line : taken) out += line;
    return taken.size();
}

std::uint64_t TapLineQueue::dropped() const {
    std::lock_guard lock(mutex_);
    return dropped_;
}

}  // namespace cdcd
