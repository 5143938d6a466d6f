#include "cmd/teardown_watchdog.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

using cdcd::service::TeardownWatchdog;
using namespace std::chrono_literals;

namespace {

struct Expiry {
    int calls = 0;
    int exit_code = -1;
    std::chrono::milliseconds bound{0};
};

}  // namespace

TEST_CASE("a teardown that outlasts its bound ends with the run's exit code",
          "[teardown_watchdog]") {
    Expiry expiry;
    {
        TeardownWatchdog watchdog([&](int code, std::chrono::milliseconds bound) {
            ++expiry.calls;
            expiry.exit_code = code;
            expiry.bound = bound;
        });
        watchdog.arm(20ms, 3);
        std::this_thread::sleep_for(300ms);  // a connector's close that does not return in time
    }
    CHECK(expiry.calls == 1);
    CHECK(expiry.exit_code == 3);
    CHECK(expiry.bound == 20ms);
}

TEST_CASE("a teardown within its bound goes on to a normal exit", "[teardown_watchdog]") {
    int calls = 0;
    const auto began = std::chrono::steady_clock::now();
    {
        TeardownWatchdog watchdog([&](int, std::chrono::milliseconds) { ++calls; });
        watchdog.arm(10s, 0);
    }  // the teardown is over at once: the watchdog is disarmed, not waited out
    CHECK(calls == 0);
    CHECK(std::chrono::steady_clock::now() - began < 5s);
}

TEST_CASE("a watchdog never armed (the run threw) does nothing", "[teardown_watchdog]") {
    int calls = 0;
    {
        TeardownWatchdog watchdog([&](int, std::chrono::milliseconds) { ++calls; });
    }
    CHECK(calls == 0);
}

TEST_CASE("the teardown gets what is left of the stop's deadline, at least a few seconds",
          "[teardown_watchdog]") {
    using cdcd::service::kMinTeardown;
    using cdcd::service::teardown_bound;
    const auto now = std::chrono::steady_clock::now();
    // A run that ended without a drain (a bounded source, a failure): the whole timeout.
    CHECK(teardown_bound(30s, std::nullopt, now) == 30s);
    // A drain that took 2 s of 30: the rest, so that the stop as a whole keeps to 30 s.
    CHECK(teardown_bound(30s, now + 28s, now) == 28s);
    // A drain that ran into its timeout: still a few seconds to close.
    CHECK(teardown_bound(30s, now - 1s, now) == kMinTeardown);
    // ... but never more than the timeout itself.
    CHECK(teardown_bound(2s, now - 1s, now) == 2s);
}
