#pragma once
// A spdlog file sink that can reopen its file (SIGHUP after logrotate moved it away).
#include <spdlog/details/file_helper.h>
#include <spdlog/sinks/base_sink.h>

#include <mutex>
#include <string>

namespace cdcd::cli {

class ReopenableFileSink final : public spdlog::sinks::base_sink<std::mutex> {
  public:
    explicit ReopenableFileSink(std::string path) : path_(std::move(path)) {
        file_.open(path_, false);
    }

    /// Closes the file and opens `path` again (appending; creating it if it was moved away).
    void reopen() {
        std::lock_guard<std::mutex> lock(mutex_);
        file_.reopen(false);
    }

  protected:
    void sink_it_(const spdlog::details::log_msg& msg) override {
        spdlog::memory_buf_t formatted;
        formatter_->format(msg, formatted);
        file_.write(formatted);
    }
    void flush_() override { file_.flush(); }

  private:
    std::string path_;
    spdlog::details::file_helper file_;
};

}  // namespace cdcd::cli
