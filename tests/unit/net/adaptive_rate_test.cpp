// The AIMD request rate on a hand-driven clock: unlimited until throttled, halved once per round
// of throttled answers, raised additively by successes, paced slots.
#include "net/adaptive_rate.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <vector>

using namespace cdcd::net;
using namespace std::chrono_literals;
using Clock = AdaptiveRate::Clock;

namespace {
struct FakeClock {
    Clock::time_point t = Clock::time_point{} + 1h;
    std::function<Clock::time_point()> fn() {
        return [this] { return t; };
    }
};
}  // namespace

TEST_CASE(
    "no limit until the first throttle, which halves the rate measured over the last second") {
    FakeClock clock;
    AdaptiveRate rate({}, clock.fn());
    std::vector<double> seen;
    rate.on_change([&](double r) { seen.push_back(r); });
    // Eight sends in 0.7 s go out at once; one more, from 1.5 s ago, no longer counts.
    rate.reserve();
    clock.t += 1500ms;
    for (int i = 0; i < 8; ++i) {
        CHECK(rate.reserve() == Clock::duration::zero());
        clock.t += 100ms;
    }
    CHECK(!rate.rate());
    rate.on_success();  // unlimited: nothing to raise
    CHECK(seen.empty());
    REQUIRE(rate.on_throttle(clock.t - 50ms));
    REQUIRE(rate.rate());
    CHECK(*rate.rate() == Approx(4.0));  // 8 in the last second, halved
    CHECK(seen == std::vector<double>{4.0});
    // The resend waits one interval at the new rate, the next one more.
    CHECK(rate.reserve() == 250ms);
    CHECK(rate.reserve() == 500ms);
}

TEST_CASE("throttled answers to requests sent before the last decrease do not halve again") {
    FakeClock clock;
    AdaptiveRate rate({}, clock.fn());
    for (int i = 0; i < 4; ++i) rate.reserve();
    auto burst_sent = clock.t;
    clock.t += 10ms;
    REQUIRE(rate.on_throttle(burst_sent));
    CHECK(*rate.rate() == Approx(2.0));
    // The other three of the burst answer 429 too: already accounted for.
    clock.t += 5ms;
    CHECK(!rate.on_throttle(burst_sent));
    CHECK(!rate.on_throttle(burst_sent));
    CHECK(*rate.rate() == Approx(2.0));
    // A request sent at the lowered rate and still throttled halves it again.
    clock.t += 500ms;
    CHECK(rate.on_throttle(clock.t - 100ms));
    CHECK(*rate.rate() == Approx(1.0));
}

TEST_CASE("successes raise the rate additively, halving stops at the floor") {
    FakeClock clock;
    AdaptiveRate rate({.min_rate = 0.5, .max_rate = 6, .increase = 1}, clock.fn());
    rate.reserve();
    rate.on_throttle(clock.t);
    CHECK(*rate.rate() == Approx(0.5));  // 1 sent: half is 0.5, the floor
    clock.t += 1s;
    rate.on_throttle(clock.t);
    CHECK(*rate.rate() == Approx(0.5));
    // Below 1 request/s each success adds the full step, above it step / rate: +1 request/s
    // per second of requests succeeding at the limit.
    rate.on_success();
    CHECK(*rate.rate() == Approx(1.5));
    rate.on_success();
    CHECK(*rate.rate() == Approx(1.5 + 1 / 1.5));
    for (int i = 0; i < 100 && rate.rate(); ++i) rate.on_success();
    CHECK(!rate.rate());  // past max_rate: unlimited again
}

TEST_CASE("slots are spaced at the rate and a free slot is not saved up") {
    FakeClock clock;
    AdaptiveRate rate({.min_rate = 0.1}, clock.fn());
    rate.reserve();
    rate.reserve();
    rate.reserve();
    rate.reserve();
    rate.on_throttle(clock.t);  // 2 requests/s
    CHECK(rate.reserve() == 500ms);
    CHECK(rate.reserve() == 1000ms);
    clock.t += 10s;  // idle: the next request goes at once, the one after it waits 500 ms
    CHECK(rate.reserve() == Clock::duration::zero());
    CHECK(rate.reserve() == 500ms);
}
