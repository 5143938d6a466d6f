#pragma once
// Row buffers on their way back, from any thread, to a thread that builds rows for others (a
// source that decodes on a thread of its own): the rows it built return to its pool instead of
// being freed where they were written. A thread freeing another thread's allocations takes
// malloc's slow path under that thread's arena lock, and the builder then allocates anew: both
// were a tenth of a Kafka relay's CPU time.
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "pipeline/data/row_buffer_pool.h"

namespace cdcd {

class RowBufferReturn {
  public:
    /// Any thread: moves `buffers` in, up to RowBufferPool::kMaxKeptBytes waiting; those that do
    /// not fit are left in `buffers` (the caller frees them). Takes the lock once.
    void give_back(std::vector<std::string>& buffers);
    /// A thread that builds the rows: moves what came back into `pool`. Several may take (the
    /// Kafka source's split readers, a consumer thread each); one takes at a time.
    void take_into(RowBufferPool& pool);

    /// Bytes of capacity waiting to be taken (for tests).
    std::size_t waiting_bytes() const;

  private:
    mutable std::mutex mutex_;
    std::vector<std::string> waiting_;
    std::size_t waiting_bytes_ = 0;
    std::mutex take_mutex_;           // held through take_into
    std::vector<std::string> taken_;  // take_into's (take_mutex_), kept for its capacity
};

}  // namespace cdcd
