#include "kafka_client/bootstrap_again.h"

#include <spdlog/spdlog.h>

namespace cdcd::kafka {

bool BootstrapAgain::due() const {
    constexpr auto kAtMostEvery = std::chrono::seconds(5);
    return !servers_.empty() && (last_ == std::chrono::steady_clock::time_point{} ||
                                 std::chrono::steady_clock::now() - last_ >= kAtMostEvery);
}

void BootstrapAgain::operator()(rd_kafka_t* rk, const std::string& why) {
    if (!due()) return;
    last_ = std::chrono::steady_clock::now();
    spdlog::info("{}: {}; adding bootstrap.servers back", rd_kafka_name(rk), why);
    rd_kafka_brokers_add(rk, servers_.c_str());
}

}  // namespace cdcd::kafka
