#include "kafka_client/bootstrap_again.h"

#include <spdlog/spdlog.h>

namespace cdcd::kafka {

void BootstrapAgain::operator()(rd_kafka_t* rk, const std::string& why) {
    constexpr auto kAtMostEvery = std::chrono::seconds(5);
    const auto now = std::chrono::steady_clock::now();
    if (servers_.empty() ||
        (last_ != std::chrono::steady_clock::time_point{} && now - last_ < kAtMostEvery))
        return;
    last_ = now;
    spdlog::info("{}: {}; adding bootstrap.servers back", rd_kafka_name(rk), why);
    rd_kafka_brokers_add(rk, servers_.c_str());
}

}  // namespace cdcd::kafka
