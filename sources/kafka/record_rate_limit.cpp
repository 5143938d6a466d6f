#include "sources/kafka/record_rate_limit.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>

namespace cdcd::kafka {

namespace asio = boost::asio;

namespace {
// How long a rate-limit wait sleeps before it looks at SourceOutput::stopping() again.
constexpr std::chrono::milliseconds kThrottleSlice{200};
}  // namespace

asio::awaitable<bool> wait_for_record_rate(net::RateLimiter* limiter, const EventBatch& events,
                                           SourceOutput& output,
                                           metrics::ConnectorMetrics& metrics) {
    if (!limiter) co_return true;
    std::size_t records = 0;
    for (const Event& e : events)
        if (is_data_change(e)) ++records;
    if (records == 0) co_return true;
    const auto start = std::chrono::steady_clock::now();
    const auto due = start + limiter->reserve(static_cast<double>(records));
    // In slices, so that a drain (SIGTERM) does not wait for a slow rate.
    asio::steady_timer timer(co_await asio::this_coro::executor);
    while (std::chrono::steady_clock::now() < due) {
        if (output.stopping()) co_return false;
        timer.expires_at(std::min(due, std::chrono::steady_clock::now() + kThrottleSlice));
        co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    }
    if (auto waited = std::chrono::steady_clock::now() - start; due > start)
        metrics.observe_rate_limiter_wait(
            "records", std::chrono::duration_cast<std::chrono::nanoseconds>(waited));
    co_return true;
}

}  // namespace cdcd::kafka
