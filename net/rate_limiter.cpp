#include "net/rate_limiter.h"

#include <algorithm>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <map>
#include <stdexcept>

namespace cdcd::net {

using Clock = std::chrono::steady_clock;

RateLimiter::RateLimiter(double rate_per_second, double burst)
    : rate_(rate_per_second), burst_(std::max(1.0, burst)), tokens_(burst_), last_(Clock::now()) {
    if (!(rate_per_second > 0)) throw std::invalid_argument("rate limiter rate must be positive");
}

std::chrono::nanoseconds RateLimiter::reserve(double tokens) {
    std::lock_guard lock(mutex_);
    auto now = Clock::now();
    double elapsed = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    tokens_ = std::min(burst_, tokens_ + elapsed * rate_);
    tokens_ -= tokens;
    if (tokens_ >= 0) return std::chrono::nanoseconds(0);
    return std::chrono::nanoseconds(static_cast<std::int64_t>(-tokens_ / rate_ * 1e9));
}

boost::asio::awaitable<std::chrono::nanoseconds> RateLimiter::acquire(double tokens) {
    auto wait = reserve(tokens);
    if (wait.count() <= 0) co_return std::chrono::nanoseconds(0);
    const auto start = Clock::now();
    boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor);
    timer.expires_after(wait);
    co_await timer.async_wait(boost::asio::use_awaitable);
    co_return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start);
}

namespace {
std::mutex registry_mutex;
std::map<std::string, std::shared_ptr<RateLimiter>>& registry() {
    static std::map<std::string, std::shared_ptr<RateLimiter>> limiters;
    return limiters;
}
}  // namespace

std::shared_ptr<RateLimiter> RateLimiterRegistry::get(const std::string& name,
                                                      double rate_per_second, double burst) {
    std::lock_guard lock(registry_mutex);
    auto& slot = registry()[name];
    if (!slot) slot = std::make_shared<RateLimiter>(rate_per_second, burst);
    return slot;
}

void RateLimiterRegistry::clear() {
    std::lock_guard lock(registry_mutex);
    registry().clear();
}

}  // namespace cdcd::net
