// Throttled answers through send_with_retry against a loopback server: with an adaptive rate
// they are resent without counting against max_retries and slow the rate; without one they are
// ordinary retryable failures (what connectors without an adaptive rate keep doing).
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"  // see retry_metrics_test.cpp
#include <catch2/catch.hpp>
#include <chrono>

#include "net/retry.h"
#include "tests/unit/net/loopback_server.h"

using namespace cdcd::net;
using namespace std::chrono_literals;
using test::LoopbackServer;
using test::Reply;
using test::SeenRequest;

namespace {
Classification throttle_aware(const HttpResponse& r) {
    if (r.status < 300) return {Outcome::Success};
    if (r.status == 429) return {Outcome::Throttled};
    if (r.status >= 500) return {Outcome::Retryable};
    return {Outcome::Permanent};
}

struct Counts {
    int throttles = 0, retries = 0, failures = 0;
};

RetryPolicy counted(RetryPolicy p, Counts& c) {
    p.on_throttle = [&c](const HttpResponse&) { ++c.throttles; };
    p.on_retry = [&c] { ++c.retries; };
    p.on_failure = [&c](const HttpResponse&) { ++c.failures; };
    return p;
}
}  // namespace

TEST_CASE("throttled answers are resent at a lowered rate, not counted against max_retries") {
    boost::asio::io_context io;
    int calls = 0;
    // 6 throttles, a 503, 2 more throttles, then success: with max_retries 1, only the 503
    // counts.
    LoopbackServer server(io, [&](const SeenRequest&) {
        ++calls;
        if (calls == 7) return Reply{.status = 503};
        if (calls <= 9) return Reply{.status = 429};
        return Reply{.status = 200, .body = "ok"};
    });
    HttpClient client(io);
    Counts counts;
    // A floor of 200 requests/s keeps the pacing short.
    auto rate = std::make_shared<AdaptiveRate>(AdaptiveRate::Options{.min_rate = 200});
    RetryPolicy policy =
        counted({.max_retries = 1, .initial_backoff = 1ms, .max_backoff = 2ms}, counts);
    policy.adaptive_rate = rate;
    RetryResult result;
    test::run(io, [&]() -> boost::asio::awaitable<void> {
        result = co_await send_with_retry(
            client, [&] { return HttpRequest{.url = server.url("/t")}; }, throttle_aware, policy);
    });
    CHECK(result.outcome == Outcome::Success);
    CHECK(result.response.body == "ok");
    CHECK(result.attempts == 10);
    CHECK(result.throttled == 8);
    CHECK(counts.throttles == 8);
    CHECK(counts.retries == 1);   // after the 503 only
    CHECK(counts.failures == 1);  // the 503: throttles are no failures
    REQUIRE(rate->rate());        // limited now, raised once by the success
    CHECK(*rate->rate() == Approx(200 + 1.0 / 200));
}

TEST_CASE("without an adaptive rate a throttled answer is a retryable failure") {
    boost::asio::io_context io;
    LoopbackServer server(io, [&](const SeenRequest&) { return Reply{.status = 429}; });
    HttpClient client(io);
    Counts counts;
    RetryPolicy policy =
        counted({.max_retries = 2, .initial_backoff = 1ms, .max_backoff = 2ms}, counts);
    RetryResult result;
    test::run(io, [&]() -> boost::asio::awaitable<void> {
        result = co_await send_with_retry(
            client, [&] { return HttpRequest{.url = server.url("/t")}; }, throttle_aware, policy);
    });
    CHECK(result.outcome == Outcome::Retryable);
    CHECK(result.attempts == 3);
    CHECK(result.throttled == 0);
    CHECK(counts.throttles == 0);
    CHECK(counts.retries == 2);
    CHECK(counts.failures == 3);
}

TEST_CASE("retries that run out report how long they took") {
    boost::asio::io_context io;
    LoopbackServer server(io, [&](const SeenRequest&) { return Reply{.status = 503}; });
    HttpClient client(io);
    RetryPolicy policy{.max_retries = 2, .initial_backoff = 40ms, .max_backoff = 40ms};
    policy.random = [] { return 0.0; };  // waits of 20 ms each
    RetryResult result;
    test::run(io, [&]() -> boost::asio::awaitable<void> {
        result = co_await send_with_retry(
            client, [&] { return HttpRequest{.url = server.url("/t")}; }, throttle_aware, policy);
    });
    CHECK(result.outcome == Outcome::Retryable);
    CHECK(result.attempts == 3);
    CHECK(result.elapsed >= 40ms);
}
