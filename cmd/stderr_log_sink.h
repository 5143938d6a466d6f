#pragma once
// The log sink for stderr. When stderr is a pipe or a socket (a log collector, `2>&1 | tee`), a
// reader that stops reading fills it, and a plain write then blocks the thread that logs, which
// is the pipeline's event loop: it stopped moving data and could not even drain on SIGTERM. Here
// a line waits at most a moment for room and is otherwise dropped (counted, and the count written
// once the reader is back), so the pipeline goes on and its checkpoints stay the record. Files
// and terminals are written as before.
#include <spdlog/sinks/base_sink.h>

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string_view>

namespace cdcd::cli {

class StderrLogSink final : public spdlog::sinks::base_sink<std::mutex> {
  public:
    /// How long a line waits for room before it is dropped, when none is being dropped.
    static constexpr std::chrono::milliseconds kWaitForRoom{100};

    explicit StderrLogSink(int fd = 2);

    /// Writes `text` as a log line is written (for what is said outside the logger: the error
    /// that ends the process, which must not wait for ever on a reader that stopped either).
    void write_text(std::string_view text);

  protected:
    void sink_it_(const spdlog::details::log_msg& msg) override;
    void flush_() override {}

  private:
    void write_line(std::string_view line);  // the caller holds mutex_
    // Writes all of [data, data + size), waiting for room up to `wait` in all; false when the
    // rest had to be dropped.
    bool write_within(const char* data, std::size_t size, std::chrono::milliseconds wait);

    int fd_;
    bool stream_ = false;  // a pipe or a socket: a reader sets the pace
    bool socket_ = false;
    std::size_t dropped_ = 0;  // lines dropped since the last one written
    bool cut_ = false;         // the last line written stopped before its end
};

}  // namespace cdcd::cli
