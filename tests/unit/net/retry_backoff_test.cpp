// The retry schedule, with the jitter's random source injected: exponential, capped, jittered
// within [d/2, d]; Retry-After honoured up to the cap; throttles waited out for Retry-After.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <catch2/catch.hpp>
#include <chrono>

#include "net/retry.h"

using namespace cdcd::net;
using namespace std::chrono_literals;
using std::chrono::milliseconds;

namespace {
RetryPolicy with_random(RetryPolicy p, double u) {
    p.random = [u] { return u; };
    return p;
}
HttpResponse answer(int status, std::string retry_after = {}) {
    HttpResponse r;
    r.status = status;
    if (!retry_after.empty()) r.headers.add("Retry-After", retry_after);
    return r;
}
}  // namespace

TEST_CASE("the backoff doubles from initial_backoff up to max_backoff, jittered into [d/2, d]") {
    RetryPolicy p{.initial_backoff = 1s, .max_backoff = 10s};
    auto low = with_random(p, 0.0), mid = with_random(p, 0.5), high = with_random(p, 1.0);
    const milliseconds d[] = {1s, 2s, 4s, 8s, 10s, 10s};
    for (int i = 0; i < 6; ++i) {
        CHECK(low.backoff(i) == d[i] / 2);
        CHECK(mid.backoff(i) == d[i] * 3 / 4);
        CHECK(high.backoff(i) == d[i]);
    }
    CHECK(high.backoff(200) == 10s);  // no overflow far out
    // The default random source stays within the bounds.
    for (int i = 0; i < 200; ++i) {
        auto b = p.backoff(i % 6);
        CHECK(b >= d[i % 6] / 2);
        CHECK(b <= d[i % 6]);
    }
}

TEST_CASE("the VikingDB sink's default schedule: 3 retries span 17.5 to 35 s") {
    // sinks/vikingdb: max-retries 3, retry.initial-backoff 5s, retry.max-backoff 60s. An outage
    // shorter than the shortest span, from a request's first failure, is always ridden out.
    RetryPolicy p{.max_retries = 3, .initial_backoff = 5s, .max_backoff = 60s};
    auto span = [&](double u) {
        auto q = with_random(p, u);
        milliseconds total{0};
        for (int i = 0; i < q.max_retries; ++i) total += q.backoff(i);
        return total;
    };
    CHECK(span(0.0) == 17500ms);
    CHECK(span(1.0) == 35s);
}

TEST_CASE("Retry-After lengthens the wait before a retry, and beyond the cap it gives up") {
    auto p = with_random(RetryPolicy{.initial_backoff = 1s, .retry_after_cap = 30s}, 0.0);
    CHECK(retry_delay(p, 0, 0ms, answer(503)) == 500ms);
    CHECK(retry_delay(p, 0, 700ms, answer(503)) == 700ms);        // the classifier's minimum
    CHECK(retry_delay(p, 0, 0ms, answer(503, "7")) == 7s);        // longer than the backoff
    CHECK(retry_delay(p, 3, 0ms, answer(503, "1")) == 4s);        // shorter: the backoff wins
    CHECK(retry_delay(p, 0, 0ms, answer(503, "soon")) == 500ms);  // unparsable: ignored
    CHECK(!retry_delay(p, 0, 0ms, answer(503, "31")));
}

TEST_CASE("a throttled answer waits its Retry-After, capped, and never gives up on it") {
    RetryPolicy p{.retry_after_cap = 30s};
    CHECK(throttle_delay(p, answer(429)) == 0ms);  // the adaptive rate paces the resend
    CHECK(throttle_delay(p, answer(429, "2")) == 2s);
    CHECK(throttle_delay(p, answer(429, "3600")) == 30s);
}
