#include "pipeline/runtime/bad_record_log.h"

#include <spdlog/spdlog.h>

namespace cdcd {

namespace {

constexpr std::uint64_t kLinesPerWindow = 10;
constexpr std::chrono::seconds kLogWindow{10};

}  // namespace

BadRecordLog::BadRecordLog(std::string stage, std::string connector)
    : stage_(std::move(stage)), connector_(std::move(connector)) {}

void BadRecordLog::log(const BadRecord& record, const char* action) {
    auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(mutex_);
    Window& w = windows_[record.reason];
    if (w.logged == 0 || now - w.opened >= kLogWindow) {
        if (w.suppressed > 0)
            spdlog::warn("{} {}: {} more bad records ({}) not logged in the last {} s", stage_,
                         connector_, w.suppressed, record.reason, kLogWindow.count());
        w = Window{now, 0, 0};
    }
    if (w.logged >= kLinesPerWindow) {
        ++w.suppressed;
        return;
    }
    ++w.logged;
    std::string where = record.position.empty() ? "" : " at " + record.position;
    spdlog::warn("{} {}: bad record{} ({}), {}: {}", stage_, connector_, where, record.reason,
                 action == std::string_view("skip") ? "skipped" : "dead-lettered", record.error);
}

}  // namespace cdcd
