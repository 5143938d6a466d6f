// Throttling is logged at a bounded rate: the first throttled answer at once, then at most one
// line per interval counting the answers since the last line.
#include "sinks/vikingdb/throttle_log.h"

#include <catch2/catch.hpp>

using namespace cdcd::vikingdb;
using namespace std::chrono_literals;

TEST_CASE("throttle log lines are bounded to one per interval") {
    auto t = ThrottleLog::Clock::time_point{} + 1h;
    ThrottleLog log("VikingDB data-plane", 30s, [&] { return t; });
    auto first = log.note("HTTP 429 RequestLimitExceeded", 2.0);
    REQUIRE(first);
    CHECK(*first ==
          "VikingDB data-plane is throttling (HTTP 429 RequestLimitExceeded): first throttled "
          "answer; sending at most 2.00 requests/s, raised again as requests succeed; throttled "
          "requests are resent, not counted against max-retries");
    int lines = 0;
    for (int i = 0; i < 290; ++i) {  // 29 s of 10 throttles a second: silent
        t += 100ms;
        if (log.note("HTTP 429 RequestLimitExceeded", 1.0)) ++lines;
    }
    CHECK(lines == 0);
    t += 1s;
    auto next = log.note("HTTP 429 FlowLimitExceeded", 0.5);
    REQUIRE(next);
    CHECK(next->find("(HTTP 429 FlowLimitExceeded): 291 throttled answers in the last 30 s; "
                     "sending at most 0.50 requests/s") != std::string::npos);
    t += 40s;
    auto single = log.note("HTTP 429", std::nullopt);
    REQUIRE(single);
    CHECK(single->find("1 throttled answer in the last 40 s; throttled requests") !=
          std::string::npos);
}
