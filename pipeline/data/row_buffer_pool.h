#pragma once
// Row buffers a thread gets back after another thread is done with them (the transform's input
// rows, the rows writers on threads of their own have written), kept for the thread's next
// rows instead of being freed and allocated again: malloc and free of rows were the largest
// costs of the event loop that builds them, and a buffer freed by its thread after a trip to
// another thread's cache takes malloc's slower paths.
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace cdcd {

class RowBufferPool {
  public:
    /// The calling thread's pool (RowBuilder takes from it).
    static RowBufferPool& this_thread() {
        thread_local RowBufferPool pool;
        return pool;
    }

    /// Keeps `buffer` for a later row, or frees it when the pool is full or it is large.
    void give(std::string&& buffer);
    /// Whether give() would keep a buffer of this capacity.
    bool would_keep(std::size_t capacity) const {
        // A short string's bytes live inside the string object: nothing to keep.
        return capacity > std::string().capacity() && capacity <= kMaxBufferBytes &&
               kept_bytes_ + capacity <= max_kept_bytes_;
    }
    /// Keeps up to `bytes` in all from now on, if that is more than it keeps.
    void keep_up_to(std::size_t bytes) { max_kept_bytes_ = std::max(max_kept_bytes_, bytes); }
    /// Moves a kept buffer with room for `capacity` bytes into `out` (emptied); false when none
    /// is kept (`out` is left alone, and the caller allocates as usual).
    bool take(std::string& out, std::size_t capacity) {
        return !buffers_.empty() && take_kept(out, capacity);
    }

    std::size_t size() const { return buffers_.size(); }
    std::size_t kept_bytes() const { return kept_bytes_; }

    /// Buffers larger than this are freed, not kept.
    static constexpr std::size_t kMaxBufferBytes = 4096;
    /// The most capacity a pool keeps in all unless told more (keep_up_to): a few batches' rows.
    static constexpr std::size_t kMaxKeptBytes = 1 << 20;

  private:
    // A kept buffer was last read on another thread (a writer's, the transform's): the first
    // write of a row into it waited for its lines, a quarter of the loop's time at parallelism 2
    // (GENERATED -> file). Each take asks for the lines of the buffer kFetchAhead takes later.
    static constexpr std::size_t kFetchAhead = 4;
    static constexpr std::size_t kFetchBytes = 256;
    void fetch_ahead() const;
    bool take_kept(std::string& out, std::size_t capacity);
    std::vector<std::string> buffers_;
    std::size_t kept_bytes_ = 0;
    std::size_t max_kept_bytes_ = kMaxKeptBytes;
};

}  // namespace cdcd
