#pragma once
// Token-bucket rate limiters, shared by name across the process:
//
//   auto limiter = net::RateLimiterRegistry::get("dingtalk:<app-key>:content", 10.0, 1.0);
//   co_await limiter->acquire();   // waits on the event loop, never blocks a thread
//
// acquire() reserves a token at once (the bucket may go negative) and then sleeps until the
// reservation is due, so waiters are served in arrival order without polling.
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>

namespace cdcd::net {

class RateLimiter {
  public:
    /// rate_per_second > 0; burst >= 1 (tokens the bucket holds when idle).
    RateLimiter(double rate_per_second, double burst);

    /// Waits until `tokens` may be spent; returns how long it waited (zero when it did not).
    boost::asio::awaitable<std::chrono::nanoseconds> acquire(double tokens = 1.0);
    /// Reserves `tokens` and returns how long the caller must wait before using them.
    std::chrono::nanoseconds reserve(double tokens = 1.0);

    double rate() const { return rate_; }
    double burst() const { return burst_; }

  private:
    mutable std::mutex mutex_;
    double rate_;
    double burst_;
    double tokens_;
    std::chrono::steady_clock::time_point last_;
};

class RateLimiterRegistry {
  public:
    /// The limiter named `name`, created with (rate, burst) on first use; later calls get the
    /// same limiter whatever rate they pass (the first declaration wins, as for a shared quota).
    static std::shared_ptr<RateLimiter> get(const std::string& name, double rate_per_second,
                                            double burst = 1.0);
    /// Forgets every limiter (tests).
    static void clear();
};

}  // namespace cdcd::net
