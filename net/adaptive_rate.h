#pragma once
// A request rate that follows the server's throttling (AIMD, as TCP does with its window): no
// limit until the first throttled answer, then halved on each throttle and raised additively on
// each success, and no limit again once it climbs past a ceiling. Every request to the throttled
// service takes its send slot here:
//
//   auto rate = std::make_shared<net::AdaptiveRate>();  // one per quota, shared by all senders
//   co_await net::sleep_for(rate->reserve());           // paced at the current rate
//   auto sent_at = rate->now();  ... send ...
//   throttled ? rate->on_throttle(sent_at) : rate->on_success();
//
// Logic only, on an injected clock, so tests drive it deterministically; net::send_with_retry
// (RetryPolicy::adaptive_rate) does the sleeping.
#include <chrono>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>

namespace cdcd::net {

class AdaptiveRate {
  public:
    using Clock = std::chrono::steady_clock;

    struct Options {
        /// The floor halving stops at, in requests/s: one request every 10 s.
        double min_rate = 0.1;
        /// Above this the rate is no longer limited (requests/s).
        double max_rate = 1000;
        /// Additive increase: each success adds increase / max(rate, 1), so while requests
        /// succeed at the limit r (r a second) it climbs by `increase` requests/s per second.
        double increase = 1.0;
    };

    explicit AdaptiveRate(Options options, std::function<Clock::time_point()> now = Clock::now);
    AdaptiveRate() : AdaptiveRate(Options{}) {}

    /// Takes the next send slot: how long to wait before sending (zero while unlimited or when
    /// the slot is free now).
    Clock::duration reserve();
    /// A throttled answer to a request sent at `sent_at`: halves the rate (the first throttle
    /// starts from half the rate measured over the last second). Once per round: a request sent
    /// before the last decrease was sent too fast already and is accounted for by it, so a
    /// burst of throttled answers halves once. The next slot moves at least one interval away.
    /// Returns true when the rate was lowered.
    bool on_throttle(Clock::time_point sent_at);
    /// An accepted request: raises the rate additively.
    void on_success();

    /// The current limit in requests/s; nullopt while unlimited.
    std::optional<double> rate() const;
    Clock::time_point now() const { return now_(); }

    /// Called after every change of the limit, with the new one (0 when unlimited again).
    void on_change(std::function<void(double)> observer) { observer_ = std::move(observer); }

  private:
    void changed(std::optional<double> rate) const;

    Options options_;
    std::function<Clock::time_point()> now_;
    std::function<void(double)> observer_;
    mutable std::mutex mutex_;
    std::optional<double> rate_;
    Clock::time_point next_slot_{};
    Clock::time_point last_decrease_ = Clock::time_point::min();
    std::deque<Clock::time_point> recent_;  // send times in the last second, while unlimited
};

}  // namespace cdcd::net
