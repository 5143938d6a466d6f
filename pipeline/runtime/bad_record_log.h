#pragma once
// The log lines of one stage's bad records, at a bounded rate: a burst logs its first lines in
// full, then one line per window with the count of those it did not log, so a flood of bad
// input cannot flood the log. One stage may run on several threads (the transform's lanes, the
// loop's own operator, the source readers' operators), each with its BadRecordStage: they share
// one BadRecordLog, so the bound is the stage's, not each thread's.
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "pipeline/connector/bad_records.h"

namespace cdcd {

class BadRecordLog {
  public:
    BadRecordLog(std::string stage, std::string connector);

    /// Logs `record`, skipped or dead-lettered (`action`), unless its reason's window is full.
    /// Safe from any thread.
    void log(const BadRecord& record, const char* action);

  private:
    struct Window {
        std::chrono::steady_clock::time_point opened;
        std::uint64_t logged = 0;
        std::uint64_t suppressed = 0;
    };
    std::string stage_;
    std::string connector_;
    std::mutex mutex_;
    std::map<std::string, Window> windows_;  // per reason
};

}  // namespace cdcd
