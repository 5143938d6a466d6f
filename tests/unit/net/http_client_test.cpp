// Designated initializers name only the fields a test cares about.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include "net/http_client.h"

#include <catch2/catch.hpp>
#include <chrono>

#include "net/retry.h"
#include "tests/unit/net/loopback_server.h"

// Requests are named locals: GCC 12 mishandles temporaries inside a co_await expression.

using namespace cdcd::net;
using namespace std::chrono_literals;
using test::LoopbackServer;
using test::Reply;
using test::SeenRequest;
using Clock = std::chrono::steady_clock;

TEST_CASE("keep-alive connections are reused across requests") {
    boost::asio::io_context io;
    LoopbackServer server(io, [](const SeenRequest& r) {
        return Reply{.status = 200, .body = r.method + " " + r.target + " " + r.body};
    });
    HttpClient client(io);
    std::vector<HttpResponse> responses;
    test::run(io, [&]() -> boost::asio::awaitable<void> {
        for (int i = 0; i < 3; ++i) {
            HttpRequest req{.method = i == 1 ? "POST" : "GET",
                            .url = server.url("/path/" + std::to_string(i) + "?a=1"),
                            .body = i == 1 ? "payload" : ""};
            responses.push_back(co_await client.send(std::move(req)));
        }
    });
    REQUIRE(responses.size() == 3);
    CHECK(responses[0].status == 200);
    CHECK(responses[0].body == "GET /path/0?a=1 ");
    CHECK(responses[1].body == "POST /path/1?a=1 payload");
    CHECK(responses[2].header("content-length") == "16");
    CHECK(responses[2].header("CONTENT-LENGTH") == "16");
    CHECK(server.connections == 1);
    CHECK(client.connections_opened() == 1);
    CHECK(client.idle_connections() == 1);
}

TEST_CASE("concurrent requests open separate connections, then pool them") {
    boost::asio::io_context io;
    LoopbackServer server(io, [](const SeenRequest&) { return Reply{.delay = 50ms}; });
    HttpClient client(io);
    int done = 0;
    for (int i = 0; i < 3; ++i)
        boost::asio::co_spawn(
            io,
            [&]() -> boost::asio::awaitable<void> {
                HttpRequest req{.url = server.url("/")};
                co_await client.send(std::move(req));
                ++done;
            },
            boost::asio::detached);
    io.run_for(2s);
    CHECK(done == 3);
    CHECK(server.connections == 3);
    CHECK(client.idle_connections() == 3);
}

TEST_CASE("a request that exceeds its timeout throws HttpError(Timeout) without the query") {
    boost::asio::io_context io;
    LoopbackServer server(io, [](const SeenRequest&) { return Reply{.delay = 3s}; });
    HttpClient client(io);
    auto start = Clock::now();
    try {
        test::run(io, [&]() -> boost::asio::awaitable<void> {
            HttpRequest req{.url = server.url("/slow?token=secret123"), .timeout = 200ms};
            co_await client.send(std::move(req));
        });
        FAIL("no timeout");
    } catch (const HttpError& e) {
        CHECK(e.kind() == HttpError::Kind::Timeout);
        CHECK(std::string(e.what()).find("secret123") == std::string::npos);
        CHECK(e.url().find("/slow") != std::string::npos);
    }
    CHECK(Clock::now() - start < 2s);
}

TEST_CASE("a connection closed without an answer is a Reset error, refused is Connect") {
    boost::asio::io_context io;
    LoopbackServer server(io, [](const SeenRequest&) { return Reply{.reset = true}; });
    HttpClient client(io);
    try {
        test::run(io, [&]() -> boost::asio::awaitable<void> {
            HttpRequest req{.url = server.url("/")};
            co_await client.send(std::move(req));
        });
        FAIL("no error");
    } catch (const HttpError& e) {
        CHECK(e.kind() == HttpError::Kind::Reset);
    }
    try {
        test::run(io, [&]() -> boost::asio::awaitable<void> {
            HttpRequest req{.url = "http://127.0.0.1:1/", .timeout = 2s};
            co_await client.send(std::move(req));
        });
        FAIL("no error");
    } catch (const HttpError& e) {
        CHECK(e.kind() == HttpError::Kind::Connect);
    }
}

namespace {
Classification by_status(const HttpResponse& r) {
    if (r.status < 300) return {Outcome::Success};
    if (r.status == 429 || r.status >= 500) return {Outcome::Retryable};
    return {Outcome::Permanent};
}
}  // namespace

TEST_CASE("retries honour Retry-After, then succeed") {
    boost::asio::io_context io;
    int calls = 0;
    LoopbackServer server(io, [&](const SeenRequest&) {
        ++calls;
        if (calls <= 2) return Reply{.status = 429, .headers = {{"Retry-After", "1"}}};
        return Reply{.status = 200, .body = "ok"};
    });
    HttpClient client(io);
    RetryPolicy policy{.max_retries = 3, .initial_backoff = 10ms};
    RetryResult result;
    auto start = Clock::now();
    test::run(io, [&]() -> boost::asio::awaitable<void> {
        result = co_await send_with_retry(
            client, [&] { return HttpRequest{.url = server.url("/r")}; }, by_status, policy);
    });
    auto elapsed = Clock::now() - start;
    CHECK(result.outcome == Outcome::Success);
    CHECK(result.attempts == 3);
    CHECK(result.response.body == "ok");
    CHECK(elapsed >= 2s);
    CHECK(elapsed < 4s);
}

TEST_CASE("a Retry-After above the cap fails at once") {
    boost::asio::io_context io;
    LoopbackServer server(io, [&](const SeenRequest&) {
        return Reply{.status = 503, .headers = {{"Retry-After", "120"}}};
    });
    HttpClient client(io);
    RetryPolicy policy{.max_retries = 3, .initial_backoff = 10ms, .retry_after_cap = 60s};
    RetryResult result;
    auto start = Clock::now();
    test::run(io, [&]() -> boost::asio::awaitable<void> {
        result = co_await send_with_retry(
            client, [&] { return HttpRequest{.url = server.url("/r")}; }, by_status, policy);
    });
    CHECK(result.outcome == Outcome::Retryable);
    CHECK(result.retry_after_too_long);
    CHECK(server.requests == 1);
    CHECK(Clock::now() - start < 1s);
}

TEST_CASE("permanent errors are never retried, retryable ones stop after max-retries") {
    boost::asio::io_context io;
    int status = 403;
    LoopbackServer server(io, [&](const SeenRequest&) { return Reply{.status = status}; });
    HttpClient client(io);
    RetryPolicy policy{.max_retries = 2, .initial_backoff = 5ms};
    RetryResult result;
    auto once = [&]() {
        test::run(io, [&]() -> boost::asio::awaitable<void> {
            result = co_await send_with_retry(
                client, [&] { return HttpRequest{.url = server.url("/p")}; }, by_status, policy);
        });
    };
    once();
    CHECK(result.outcome == Outcome::Permanent);
    CHECK(result.attempts == 1);
    CHECK(server.requests == 1);
    status = 500;
    once();
    CHECK(result.outcome == Outcome::Retryable);
    CHECK(result.attempts == 3);
    CHECK(server.requests == 4);
}

TEST_CASE("transport errors are retried and rethrown when retries run out") {
    boost::asio::io_context io;
    int calls = 0;
    LoopbackServer server(io, [&](const SeenRequest&) {
        ++calls;
        return calls == 1 ? Reply{.reset = true} : Reply{.status = 200};
    });
    HttpClient client(io);
    RetryPolicy policy{.max_retries = 2, .initial_backoff = 5ms};
    RetryResult result;
    test::run(io, [&]() -> boost::asio::awaitable<void> {
        result = co_await send_with_retry(
            client, [&] { return HttpRequest{.url = server.url("/t")}; }, by_status, policy);
    });
    CHECK(result.outcome == Outcome::Success);
    CHECK(result.attempts == 2);
    CHECK_THROWS_AS(test::run(io,
                              [&]() -> boost::asio::awaitable<void> {
                                  co_await send_with_retry(
                                      client,
                                      [] { return HttpRequest{.url = "http://127.0.0.1:1/"}; },
                                      by_status, policy);
                              }()),
                    HttpError);
}

TEST_CASE("Retry-After parsing") {
    CHECK(parse_retry_after("3") == std::chrono::milliseconds(3000));
    CHECK(parse_retry_after(" 0.5 ") == std::chrono::milliseconds(500));
    CHECK(!parse_retry_after("soon"));
    CHECK(!parse_retry_after("-1"));
    // Found by the small_parsers fuzz target: a wait past what milliseconds hold was converted
    // with undefined behaviour; it is now as long as can be (every caller caps it).
    CHECK(parse_retry_after("888888887877763876") == std::chrono::milliseconds::max());
    CHECK(parse_retry_after("1e300") == std::chrono::milliseconds::max());
    CHECK(!parse_retry_after("nan"));
    CHECK(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT") == std::chrono::milliseconds(0));
    // Found by the small_parsers fuzz target: a date with fields out of range (year -1994, a
    // day or hour in the millions) overflowed system_clock in from_time_t; it is no date.
    CHECK(!parse_retry_after("Sun, 06 Nov-1994 08:49:37 GMT"));
    CHECK(!parse_retry_after("Sun, 999999999 Nov 1994 08:49:37 GMT"));
    CHECK(!parse_retry_after("Sun, 06 Nov 1994 2147483647:49:37 GMT"));
    CHECK(parse_retry_after("Fri, 31 Dec 9999 23:59:59 GMT") > std::chrono::hours(24 * 365));
    RetryPolicy p{.initial_backoff = 100ms, .max_backoff = 1s};
    for (int i = 0; i < 20; ++i) {
        auto d = p.backoff(i);
        CHECK(d <= 1s);
        CHECK(d >= std::min<std::chrono::milliseconds>(50ms * (1 << std::min(i, 5)), 500ms));
    }
}
