// What a connector's metrics see of the shared client, retry policy and rate limiter: requests by
// endpoint and status, errors, retries and rate-limiter waits.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
// GCC 12 at -O1 (ASan preset) mistakes asio's coroutine frame allocator for a mismatched delete
// in loopback_server.h once this file's inlining differs from the other net tests'.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#include <catch2/catch.hpp>
#include <chrono>

#include "metrics/http_observer.h"
#include "net/rate_limiter.h"
#include "net/retry.h"
#include "tests/unit/net/loopback_server.h"

using namespace cdcd;
using namespace cdcd::net;
using namespace std::chrono_literals;
using test::LoopbackServer;
using test::Reply;
using test::SeenRequest;

namespace {
Classification by_status(const HttpResponse& r) {
    if (r.status < 300) return {Outcome::Success};
    if (r.status >= 500) return {Outcome::Retryable};
    return {Outcome::Permanent};
}
}  // namespace

TEST_CASE("retries, failed responses, transport errors and limiter waits reach the metrics") {
    boost::asio::io_context io;
    int calls = 0;
    LoopbackServer server(io, [&](const SeenRequest& r) {
        if (r.target.starts_with("/forbidden")) return Reply{.status = 403};
        ++calls;
        if (calls == 1) return Reply{.reset = true};
        if (calls <= 3) return Reply{.status = 503};
        return Reply{.status = 200, .body = "done"};
    });
    metrics::Registry registry(metrics::Labels{{"pipeline", "p"}});
    metrics::ConnectorMetrics m(registry, metrics::Role::Source, "test");
    HttpClientOptions options;
    options.observer = metrics::http_observer(m);
    HttpClient client(io, options);
    RetryPolicy policy{.max_retries = 5, .initial_backoff = 2ms, .max_backoff = 4ms};
    metrics::observe_retries(policy, m, "test:items");
    RateLimiter limiter(4.0, 1.0);  // a token every 250 ms: every attempt after the first waits
    RetryResult result;
    RetryResult forbidden;
    test::run(io, [&]() -> boost::asio::awaitable<void> {
        result = co_await send_with_retry(
            client,
            [&] { return HttpRequest{.url = server.url("/items/42?x=1"), .endpoint = "GetItem"}; },
            by_status, policy, &limiter);
        forbidden = co_await send_with_retry(
            client,
            [&] { return HttpRequest{.url = server.url("/forbidden/1"), .endpoint = "Forbid"}; },
            by_status, policy);
    });
    REQUIRE(result.outcome == Outcome::Success);
    CHECK(result.attempts == 4);
    CHECK(forbidden.outcome == Outcome::Permanent);

    CHECK(m.requests("GetItem", "reset").value() == 1);
    CHECK(m.requests("GetItem", 503).value() == 2);
    CHECK(m.requests("GetItem", 200).value() == 1);
    CHECK(m.requests("Forbid", 403).value() == 1);
    CHECK(m.request_duration("GetItem").count() == 4);
    // One transport failure (observer), two 503s and one 403 (classified failures).
    CHECK(m.errors.value() == 4);
    CHECK(m.retries.value() == 3);  // a permanent failure is not retried
    // The first token is free; the three retries each wait for the next one.
    auto& waits = m.rate_limiter_wait("test:items");
    CHECK(waits.count() == 3);
    CHECK(waits.sum() > 0.45);  // ~3 × (250 ms - backoff - the request)
    CHECK(waits.sum() < 3.0);

    std::string text = registry.expose();
    CHECK(text.find("cdcd_http_requests_total{pipeline=\"p\",role=\"source\",connector=\"test\","
                    "endpoint=\"GetItem\",status=\"503\"} 2") != std::string::npos);
    CHECK(text.find("/items/42") == std::string::npos);
}

TEST_CASE("acquire reports how long it waited") {
    boost::asio::io_context io;
    RateLimiter limiter(10.0, 1.0);
    std::chrono::nanoseconds first{-1}, second{-1};
    test::run(io, [&]() -> boost::asio::awaitable<void> {
        first = co_await limiter.acquire();
        second = co_await limiter.acquire();
    });
    CHECK(first.count() == 0);
    CHECK(second >= 90ms);
    CHECK(second < 500ms);
}

TEST_CASE("answers the connector expects are requests, not errors") {
    boost::asio::io_context io;
    LoopbackServer server(io, [](const SeenRequest& r) {
        return Reply{.status = r.target.starts_with("/missing") ? 404 : 400};
    });
    metrics::Registry registry(metrics::Labels{{"pipeline", "p"}});
    metrics::ConnectorMetrics m(registry, metrics::Role::Sink, "test");
    HttpClientOptions options;
    options.observer = metrics::http_observer(m);
    HttpClient client(io, options);
    RetryPolicy policy{.max_retries = 2, .initial_backoff = 1ms};
    metrics::observe_retries(policy, m, {}, [](const HttpResponse& r) { return r.status == 404; });
    test::run(io, [&]() -> boost::asio::awaitable<void> {
        co_await send_with_retry(
            client, [&] { return HttpRequest{.url = server.url("/missing/1"), .endpoint = "Get"}; },
            by_status, policy);
        co_await send_with_retry(
            client, [&] { return HttpRequest{.url = server.url("/bad"), .endpoint = "Put"}; },
            by_status, policy);
    });
    CHECK(m.requests("Get", 404).value() == 1);
    CHECK(m.requests("Put", 400).value() == 1);
    CHECK(m.errors.value() == 1);  // the 400 only
    CHECK(m.retries.value() == 0);
}
