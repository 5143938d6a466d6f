#include "kafka_client/bootstrap_again.h"

#include <spdlog/spdlog.h>

namespace cdcd::kafka {

bool BootstrapAgain::due(Clock::time_point now) const {
    return !servers_.empty() && (last_ == Clock::time_point{} || now - last_ >= kAtMostEvery);
}

void BootstrapAgain::operator()(rd_kafka_t* rk, const std::string& why, Clock::time_point now) {
    if (!due(now)) return;
    const bool streak = last_ != Clock::time_point{} && now - last_ < kStreak;
    last_ = now;
    rd_kafka_brokers_add(rk, servers_.c_str());
    if (!streak) {
        spdlog::info("{}: {}; adding bootstrap.servers back", rd_kafka_name(rk), why);
        logged_ = now;
        unlogged_ = 0;
        return;
    }
    if (now - logged_ < kLogEvery) {
        ++unlogged_;
        spdlog::debug("{}: {}; adding bootstrap.servers back", rd_kafka_name(rk), why);
        return;
    }
    spdlog::info(
        "{}: {}; adding bootstrap.servers back (still: {} more times since the last "
        "such line, {} s ago)",
        rd_kafka_name(rk), why, unlogged_ + 1,
        std::chrono::duration_cast<std::chrono::seconds>(now - logged_).count());
    logged_ = now;
    unlogged_ = 0;
}

}  // namespace cdcd::kafka
