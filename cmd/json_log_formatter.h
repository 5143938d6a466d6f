#pragma once
// --log-format json: one JSON object per log line, {"time","level","logger","message"}. Every
// field is escaped and made valid UTF-8, so a message carrying text from outside (a server's
// error, a record's value) can neither break a line nor forge another one.
#include <spdlog/formatter.h>

#include <memory>

namespace cdcd::cli {

class JsonLogFormatter final : public spdlog::formatter {
  public:
    void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override;
    std::unique_ptr<spdlog::formatter> clone() const override;
};

}  // namespace cdcd::cli
