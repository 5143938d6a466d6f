// Designated initializers name only the fields a test cares about.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include "net/rate_limiter.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <chrono>

#include "tests/unit/net/loopback_server.h"

using namespace cdcd::net;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

TEST_CASE("a token bucket spaces acquisitions at its rate after the burst") {
    boost::asio::io_context io;
    RateLimiter limiter(20.0, 1.0);
    auto start = Clock::now();
    test::run(io, [&]() -> boost::asio::awaitable<void> {
        for (int i = 0; i < 21; ++i) co_await limiter.acquire();
    });
    auto elapsed = Clock::now() - start;
    CHECK(elapsed >= 950ms);
    CHECK(elapsed < 1500ms);
}

TEST_CASE("the burst is served at once, concurrent waiters share the rate") {
    boost::asio::io_context io;
    RateLimiter limiter(10.0, 5.0);
    std::vector<Clock::duration> when;
    auto start = Clock::now();
    for (int i = 0; i < 15; ++i)
        boost::asio::co_spawn(
            io,
            [&]() -> boost::asio::awaitable<void> {
                co_await limiter.acquire();
                when.push_back(Clock::now() - start);
            },
            boost::asio::detached);
    io.run();
    REQUIRE(when.size() == 15);
    std::sort(when.begin(), when.end());
    CHECK(when[4] < 100ms);    // the burst of 5
    CHECK(when[14] >= 950ms);  // 10 more at 10/s
    CHECK(when[14] < 1500ms);
}

TEST_CASE("acquire does not block the event loop") {
    boost::asio::io_context io;
    RateLimiter limiter(2.0, 1.0);
    int ticks = 0;
    boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
            for (int i = 0; i < 3; ++i) co_await limiter.acquire();
        },
        boost::asio::detached);
    boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
            boost::asio::steady_timer t(io);
            for (int i = 0; i < 5; ++i) {
                t.expires_after(100ms);
                co_await t.async_wait(boost::asio::use_awaitable);
                ++ticks;
            }
        },
        boost::asio::detached);
    io.run();
    CHECK(ticks == 5);
}

TEST_CASE("limiters are shared by name") {
    RateLimiterRegistry::clear();
    auto a = RateLimiterRegistry::get("dingtalk:app:content", 10, 1);
    auto b = RateLimiterRegistry::get("dingtalk:app:content", 99, 3);
    auto c = RateLimiterRegistry::get("dingtalk:other:content", 10, 1);
    CHECK(a == b);
    CHECK(a != c);
    CHECK(b->rate() == 10);
    CHECK_THROWS(RateLimiter(0, 1));
}
