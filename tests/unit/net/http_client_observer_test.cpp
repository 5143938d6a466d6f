// The client's observer hook: one call per request, with endpoint, status or error, and time.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <catch2/catch.hpp>
#include <chrono>

#include "net/http_client.h"
#include "tests/unit/net/loopback_server.h"

using namespace cdcd::net;
using test::LoopbackServer;
using test::Reply;
using test::SeenRequest;

namespace {
struct Seen {
    std::string method, endpoint;
    int status;
    std::optional<HttpError::Kind> error;
    std::chrono::nanoseconds elapsed;
};
}  // namespace

TEST_CASE("the observer sees every request with its endpoint and status") {
    boost::asio::io_context io;
    LoopbackServer server(io, [](const SeenRequest& r) {
        return Reply{.status = r.target.starts_with("/missing") ? 404 : 200, .body = "x"};
    });
    std::vector<Seen> seen;
    HttpClientOptions options;
    options.observer = [&](const HttpObservation& o) {
        seen.push_back(
            {std::string(o.method), std::string(o.endpoint), o.status, o.error, o.elapsed});
    };
    HttpClient client(io, options);
    test::run(io, [&]() -> boost::asio::awaitable<void> {
        HttpRequest named{.method = "POST",
                          .url = server.url("/v1/nodes/123?token=secret"),
                          .endpoint = "GetNode"};
        co_await client.send(std::move(named));
        HttpRequest unnamed{.url = server.url("/missing/7?q=1")};
        co_await client.send(std::move(unnamed));
    });
    REQUIRE(seen.size() == 2);
    CHECK(seen[0].method == "POST");
    CHECK(seen[0].endpoint == "GetNode");
    CHECK(seen[0].status == 200);
    CHECK(!seen[0].error);
    CHECK(seen[0].elapsed.count() > 0);
    CHECK(seen[1].endpoint == "/missing/7");  // the path, never the query
    CHECK(seen[1].status == 404);
}

TEST_CASE("the observer sees transport failures with their kind") {
    boost::asio::io_context io;
    std::vector<Seen> seen;
    HttpClientOptions options;
    options.observer = [&](const HttpObservation& o) {
        seen.push_back(
            {std::string(o.method), std::string(o.endpoint), o.status, o.error, o.elapsed});
    };
    HttpClient client(io, options);
    bool threw = false;
    test::run(io, [&]() -> boost::asio::awaitable<void> {
        // Port 1 on loopback: nothing listens, the connection is refused.
        HttpRequest req{.url = "http://127.0.0.1:1/x", .endpoint = "Nothing"};
        try {
            co_await client.send(std::move(req));
        } catch (const HttpError&) {
            threw = true;
        }
    });
    CHECK(threw);
    REQUIRE(seen.size() == 1);
    CHECK(seen[0].status == 0);
    REQUIRE(seen[0].error);
    CHECK(*seen[0].error == HttpError::Kind::Connect);
}
