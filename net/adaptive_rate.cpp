#include "net/adaptive_rate.h"

#include <algorithm>

namespace cdcd::net {

namespace {
constexpr auto kMeasureWindow = std::chrono::seconds(1);
// Sends remembered for the measurement; beyond this the rate is at least this high anyway.
constexpr std::size_t kMaxRecent = 4096;

AdaptiveRate::Clock::duration interval(double rate) {
    return std::chrono::duration_cast<AdaptiveRate::Clock::duration>(
        std::chrono::duration<double>(1.0 / rate));
}
}  // namespace

AdaptiveRate::AdaptiveRate(Options options, std::function<Clock::time_point()> now)
    : options_(options), now_(std::move(now)) {}

AdaptiveRate::Clock::duration AdaptiveRate::reserve() {
    std::lock_guard lock(mutex_);
    auto now = now_();
    if (!rate_) {
        while (!recent_.empty() && now - recent_.front() > kMeasureWindow) recent_.pop_front();
        if (recent_.size() < kMaxRecent) recent_.push_back(now);
        return Clock::duration::zero();
    }
    auto slot = std::max(now, next_slot_);
    next_slot_ = slot + interval(*rate_);
    return slot - now;
}

bool AdaptiveRate::on_throttle(Clock::time_point sent_at) {
    std::optional<double> changed_to;
    {
        std::lock_guard lock(mutex_);
        if (sent_at < last_decrease_) return false;
        auto now = now_();
        while (!recent_.empty() && now - recent_.front() > kMeasureWindow) recent_.pop_front();
        double from =
            rate_ ? *rate_ : static_cast<double>(std::max<std::size_t>(recent_.size(), 1));
        rate_ = std::max(options_.min_rate, from / 2);
        recent_.clear();
        last_decrease_ = now;
        next_slot_ = std::max(next_slot_, now + interval(*rate_));
        changed_to = rate_;
    }
    changed(changed_to);
    return true;
}

void AdaptiveRate::on_success() {
    std::optional<double> changed_to;
    {
        std::lock_guard lock(mutex_);
        if (!rate_) return;
        *rate_ += options_.increase / std::max(*rate_, 1.0);
        if (*rate_ > options_.max_rate) rate_.reset();
        changed_to = rate_;
    }
    changed(changed_to);
}

std::optional<double> AdaptiveRate::rate() const {
    std::lock_guard lock(mutex_);
    return rate_;
}

void AdaptiveRate::changed(std::optional<double> rate) const {
    if (observer_) observer_(rate ? *rate : 0.0);
}

}  // namespace cdcd::net
