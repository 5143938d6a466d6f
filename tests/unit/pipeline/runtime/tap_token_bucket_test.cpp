// The tap's sampling budget: full at start, refilled at the rate, never above the burst.
#include "pipeline/runtime/tap_token_bucket.h"

#include <catch2/catch.hpp>

using namespace cdcd;
using namespace std::chrono_literals;

TEST_CASE("a tap's token bucket gives the rate per second and saves up to the burst") {
    auto t0 = TapTokenBucket::Clock::time_point{} + 1h;
    TapTokenBucket bucket(100, 10, t0);
    CHECK(bucket.available(t0) == 10);
    bucket.take(10);
    CHECK(bucket.available(t0) == 0);
    CHECK(bucket.available(t0 + 50ms) == 5);  // 100/s for 50 ms
    bucket.take(5);
    CHECK(bucket.available(t0 + 10s) == 10);  // capped at the burst
    bucket.take(3);
    CHECK(bucket.available(t0 + 10s) == 7);
    CHECK(bucket.available(t0 + 9s) == 7);  // time going back adds nothing
}

TEST_CASE("over a second a tap's bucket grants the rate, however often it is asked") {
    auto t = TapTokenBucket::Clock::time_point{} + 1h;
    TapTokenBucket bucket(100, 10, t);
    std::size_t granted = 0;
    for (int i = 0; i < 10'000; ++i) {  // a batch every 100 µs for one second
        t += 100us;
        std::size_t n = bucket.available(t);
        bucket.take(n);
        granted += n;
    }
    CHECK(granted >= 100);
    CHECK(granted <= 110);  // the rate plus the initial burst
}

TEST_CASE("a tap's bucket below one token a tenth of a second still grants one") {
    auto t0 = TapTokenBucket::Clock::time_point{} + 1h;
    TapTokenBucket bucket(1, 0.1, t0);
    CHECK(bucket.available(t0) == 1);
    bucket.take(1);
    CHECK(bucket.available(t0 + 500ms) == 0);
    CHECK(bucket.available(t0 + 1s) == 1);
}
