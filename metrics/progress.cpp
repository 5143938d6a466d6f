#include "metrics/progress.h"

#include <spdlog/spdlog.h>

#include <cstdio>

namespace cdcd::metrics {

ProgressReporter::ProgressReporter(Registry& registry, std::string connector, std::string phase,
                                   std::int64_t total, std::int64_t done, Clock::duration interval)
    : name_(connector + " " + phase),
      done_gauge_(registry.gauge("cdcd_progress_items_done",
                                 "Items done in a long phase (snapshot, scan)",
                                 {{"connector", connector}, {"phase", phase}})),
      total_gauge_(registry.gauge("cdcd_progress_items_total",
                                  "Items in a long phase, 0 when unknown",
                                  {{"connector", connector}, {"phase", phase}})),
      rate_gauge_(registry.gauge("cdcd_progress_items_per_second",
                                 "Items per second in a long phase, over the last report interval",
                                 {{"connector", connector}, {"phase", phase}})),
      interval_(interval),
      total_(total),
      done_(done),
      done_at_last_report_(done),
      started_(Clock::now()),
      last_report_(started_) {
    done_gauge_.set(static_cast<double>(done_));
    total_gauge_.set(static_cast<double>(total_));
    rate_gauge_.set(0);
}

void ProgressReporter::set_total(std::int64_t total) {
    total_ = total;
    total_gauge_.set(static_cast<double>(total));
}

void ProgressReporter::advance_at(std::int64_t items, Clock::time_point now) {
    done_ += items;
    done_gauge_.set(static_cast<double>(done_));
    if (now - last_report_ >= interval_) report(now);
}

void ProgressReporter::report(Clock::time_point now) {
    double seconds = std::chrono::duration<double>(now - last_report_).count();
    double rate = seconds > 0 ? static_cast<double>(done_ - done_at_last_report_) / seconds : 0;
    rate_gauge_.set(rate);
    spdlog::info("{}: {}", name_, describe(rate));
    last_report_ = now;
    done_at_last_report_ = done_;
    ++reports_;
}

std::string ProgressReporter::describe(double rate) const {
    std::string s = std::to_string(done_);
    if (total_ > 0) {
        char pct[32];
        std::snprintf(pct, sizeof pct, " (%.1f%%)",
                      100.0 * static_cast<double>(done_) / static_cast<double>(total_));
        s += " of " + std::to_string(total_) + " items" + pct;
    } else {
        s += " items";
    }
    s += ", " + std::to_string(static_cast<std::int64_t>(rate)) + "/s";
    if (total_ > 0 && rate > 0 && done_ < total_)
        s += ", about " +
             std::to_string(static_cast<std::int64_t>(static_cast<double>(total_ - done_) / rate) +
                            1) +
             " s left";
    return s;
}

void ProgressReporter::finish() {
    if (finished_) return;
    finished_ = true;
    auto now = Clock::now();
    double seconds = std::chrono::duration<double>(now - started_).count();
    double rate = seconds > 0 ? static_cast<double>(done_) / seconds : 0;
    rate_gauge_.set(0);
    spdlog::info("{}: done, {} items in {:.1f} s ({}/s)", name_, done_, seconds,
                 static_cast<std::int64_t>(rate));
}

}  // namespace cdcd::metrics
