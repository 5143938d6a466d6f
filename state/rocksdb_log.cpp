#include "state/rocksdb_log.h"

#include <rocksdb/env.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <string>

namespace cdcd::state {

namespace {

class SpdlogLogger final : public rocksdb::Logger {
  public:
    SpdlogLogger() : rocksdb::Logger(rocksdb::InfoLogLevel::DEBUG_LEVEL) {}

    using rocksdb::Logger::Logv;
    void Logv(const rocksdb::InfoLogLevel level, const char* format, va_list ap) override {
        spdlog::level::level_enum to =
            level >= rocksdb::InfoLogLevel::ERROR_LEVEL  ? spdlog::level::err
            : level >= rocksdb::InfoLogLevel::WARN_LEVEL ? spdlog::level::warn
                                                         : spdlog::level::debug;
        if (!spdlog::should_log(to)) return;
        // Nothing may throw into RocksDB.
        try {
            log(to, format, ap);
        } catch (...) {
        }
    }

  protected:
    rocksdb::Status CloseImpl() override { return rocksdb::Status::OK(); }

  private:
    static void log(spdlog::level::level_enum to, const char* format, va_list ap) {
        char buf[1024];
        va_list copy;
        va_copy(copy, ap);
        int n = std::vsnprintf(buf, sizeof buf, format, copy);
        va_end(copy);
        if (n < 0) return;
        std::string message(buf,
                            std::min<std::size_t>(static_cast<std::size_t>(n), sizeof buf - 1));
        spdlog::log(to, "rocksdb: {}", message);
    }
};

}  // namespace

std::shared_ptr<rocksdb::Logger> make_rocksdb_logger() {
    return std::make_shared<SpdlogLogger>();
}

}  // namespace cdcd::state
