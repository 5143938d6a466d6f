#pragma once
// The lines a tap sampled and the admin endpoint has not sent yet, bounded in lines and bytes.
// The pipeline's thread pushes and never waits for the client: a full queue drops the new line
// and counts it. Thread-safe (the transform and sink points push from other threads than the
// event loop that sends).
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>

namespace cdcd {

class TapLineQueue {
  public:
    TapLineQueue(std::size_t max_lines, std::size_t max_bytes);
    /// False (and the line counted as dropped) when it does not fit.
    bool push(std::string line);
    /// Appends every queued line to `out`; returns how many.
    std::size_t take_all(std::string& out);
    std::uint64_t dropped() const;

  private:
    const std::size_t max_lines_;
    const std::size_t max_bytes_;
    mutable std::mutex mutex_;
    std::deque<std::string> lines_;
    std::size_t bytes_ = 0;
    std::uint64_t dropped_ = 0;
};

}  // namespace cdcd
