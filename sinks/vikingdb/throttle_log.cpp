#include "sinks/vikingdb/throttle_log.h"

#include <cstdio>

namespace cdcd::vikingdb {

ThrottleLog::ThrottleLog(std::string what, Clock::duration interval,
                         std::function<Clock::time_point()> now)
    : what_(std::move(what)), interval_(interval), now_(std::move(now)) {}

std::optional<std::string> ThrottleLog::note(const std::string& answer,
                                             std::optional<double> rate) {
    ++unreported_;
    auto now = now_();
    if (last_line_ && now - *last_line_ < interval_) return std::nullopt;
    std::string line = what_ + " is throttling (" + answer + "): ";
    if (last_line_) {
        auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now - *last_line_);
        line += std::to_string(unreported_) + " throttled answer" + (unreported_ == 1 ? "" : "s") +
                " in the last " + std::to_string(seconds.count()) + " s";
    } else {
        line += "first throttled answer";
    }
    if (rate) {
        char text[32];
        std::snprintf(text, sizeof text, "%.2f", *rate);
        line += std::string("; sending at most ") + text +
                " requests/s, raised again as requests succeed";
    }
    line += "; throttled requests are resent, not counted against max-retries";
    last_line_ = now;
    unreported_ = 0;
    return line;
}

}  // namespace cdcd::vikingdb
