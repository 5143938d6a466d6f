#include "pipeline/runtime/tap_token_bucket.h"

#include <algorithm>

namespace cdcd {

TapTokenBucket::TapTokenBucket(double rate_per_second, double burst, Clock::time_point now)
    : rate_(rate_per_second), burst_(std::max(1.0, burst)), tokens_(burst_), last_(now) {}

std::size_t TapTokenBucket::available(Clock::time_point now) {
    if (now > last_) {
        tokens_ =
            std::min(burst_, tokens_ + std::chrono::duration<double>(now - last_).count() * rate_);
        last_ = now;
    }
    return static_cast<std::size_t>(tokens_);
}

void TapTokenBucket::take(std::size_t n) {
    tokens_ = std::max(0.0, tokens_ - static_cast<double>(n));
}

}  // namespace cdcd
