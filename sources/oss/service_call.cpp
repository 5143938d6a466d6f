#include "sources/oss/service_call.h"

#include <chrono>

namespace cdcd::oss {

net::RetryPolicy service_retry_policy(std::function<bool()> cancelled) {
    net::RetryPolicy policy;
    policy.max_retries = 8;
    policy.initial_backoff = std::chrono::milliseconds(200);
    policy.max_backoff = std::chrono::milliseconds(10'000);
    policy.cancelled = std::move(cancelled);
    return policy;
}

long long now_seconds() {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::string skewed_clock_note(const std::string& service) {
    return ": this host's clock is more than 15 minutes from " + service +
           "'s; set it right (NTP), and the source goes on by itself";
}

}  // namespace cdcd::oss
