// Designated initializers name only the fields a test cares about.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
// The connection pool's settings: connect timeout, connection lifetime, validation of idle
// connections before reuse, eviction of idle ones, and the limits on open connections.
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "net/http_client.h"
#include "tests/unit/net/loopback_server.h"

// Requests are named locals: GCC 12 mishandles temporaries inside a co_await expression.

using namespace cdcd::net;
using namespace std::chrono_literals;
using test::LoopbackServer;
using test::Reply;
using test::SeenRequest;
using Clock = std::chrono::steady_clock;
namespace asio = boost::asio;

namespace {

asio::awaitable<void> pause(std::chrono::milliseconds d) {
    asio::steady_timer t(co_await asio::this_coro::executor);
    t.expires_after(d);
    co_await t.async_wait(asio::use_awaitable);
}

}  // namespace

TEST_CASE("connect_timeout bounds connecting alone, not the exchange") {
    asio::io_context io;
    // A listener whose accept queue is full: the kernel drops further SYNs, connect() hangs.
    asio::ip::tcp::acceptor full(io, {asio::ip::make_address("127.0.0.1"), 0});
    full.listen(0);
    std::vector<asio::ip::tcp::socket> queued;
    for (int i = 0; i < 3; ++i) {
        queued.emplace_back(io);
        queued.back().async_connect(full.local_endpoint(), [](auto) {});
    }
    io.run_for(100ms);
    io.restart();
    HttpClient client(io, HttpClientOptions{.connect_timeout = 300ms});
    auto start = Clock::now();
    try {
        test::run(io, [&]() -> asio::awaitable<void> {
            HttpRequest req{
                .url = "http://127.0.0.1:" + std::to_string(full.local_endpoint().port()) + "/",
                .timeout = 10s};
            co_await client.send(std::move(req));
        });
        FAIL("connected");
    } catch (const HttpError& e) {
        CHECK(e.kind() == HttpError::Kind::Timeout);
        CHECK(std::string(e.what()).find("connect timeout 300 ms") != std::string::npos);
    }
    CHECK(Clock::now() - start < 3s);

    // A slow answer over a fast connection is not cut short by the connect timeout.
    LoopbackServer slow(io, [](const SeenRequest&) { return Reply{.delay = 500ms}; });
    HttpResponse r;
    test::run(io, [&]() -> asio::awaitable<void> {
        HttpRequest req{.url = slow.url("/"), .timeout = 5s};
        r = co_await client.send(std::move(req));
    });
    CHECK(r.status == 200);
}

TEST_CASE("a connection older than max_connection_lifetime is closed, not reused") {
    asio::io_context io;
    LoopbackServer server(io, [](const SeenRequest&) { return Reply{}; });
    HttpClient client(io, HttpClientOptions{.max_connection_lifetime = 300ms});
    test::run(io, [&]() -> asio::awaitable<void> {
        for (int i = 0; i < 4; ++i) {  // 0, 200, 400, 600 ms
            HttpRequest req{.url = server.url("/")};
            co_await client.send(std::move(req));
            co_await pause(200ms);
        }
    });
    CHECK(server.requests == 4);
    CHECK(server.connections == 2);  // the first served 0 and 200 ms; the second 400 and 600 ms
}

TEST_CASE("validate_after_inactivity replaces pooled connections the server closed") {
    asio::io_context io;
    LoopbackServer server(io, [](const SeenRequest&) { return Reply{.close_after = true}; });
    auto two_then_one = [&](HttpClient& client) {
        // Two connections pooled, both closed by the server; then one more request.
        test::run(io, [&]() -> asio::awaitable<void> {
            int done = 0;
            for (int i = 0; i < 2; ++i)
                asio::co_spawn(
                    io,
                    [&]() -> asio::awaitable<void> {
                        HttpRequest req{.url = server.url("/")};
                        co_await client.send(std::move(req));
                        ++done;
                    },
                    asio::detached);
            while (done < 2) co_await pause(10ms);
            co_await pause(100ms);
            HttpRequest req{.url = server.url("/")};
            co_await client.send(std::move(req));
        });
    };
    HttpClient checked(io, HttpClientOptions{.validate_after_inactivity = 50ms});
    two_then_one(checked);
    CHECK(checked.stale_connections_closed() == 2);
    // Unchecked, the request tries both dead connections and fails.
    HttpClient unchecked(io);
    CHECK_THROWS_AS(two_then_one(unchecked), HttpError);
}

TEST_CASE("close_idle evicts connections idle that long, keeps fresher ones") {
    asio::io_context io;
    LoopbackServer server(io, [](const SeenRequest&) { return Reply{}; });
    HttpClient client(io);
    test::run(io, [&]() -> asio::awaitable<void> {
        HttpRequest req{.url = server.url("/")};
        co_await client.send(std::move(req));
        co_await pause(200ms);
    });
    client.close_idle(1s);
    CHECK(client.idle_connections() == 1);
    client.close_idle(100ms);
    CHECK(client.idle_connections() == 0);
    CHECK(client.open_connections() == 0);
}

TEST_CASE("max_connections bounds open connections and requests wait for a free one") {
    asio::io_context io;
    int in_flight = 0, peak = 0;
    LoopbackServer server(io, [&](const SeenRequest&) {
        peak = std::max(peak, ++in_flight);
        return Reply{.delay = 50ms};
    });
    HttpClient client(io, HttpClientOptions{.max_connections = 2});
    int done = 0;
    std::size_t most_open = 0;
    test::run(io, [&]() -> asio::awaitable<void> {
        for (int i = 0; i < 6; ++i)
            asio::co_spawn(
                io,
                [&]() -> asio::awaitable<void> {
                    HttpRequest req{.url = server.url("/")};
                    co_await client.send(std::move(req));
                    --in_flight;
                    ++done;
                },
                asio::detached);
        while (done < 6) {
            most_open = std::max(most_open, client.open_connections());
            co_await pause(5ms);
        }
    });
    CHECK(done == 6);
    CHECK(server.connections == 2);
    CHECK(most_open == 2);
}

TEST_CASE("a request that finds every connection busy past its timeout names the limit") {
    asio::io_context io;
    LoopbackServer server(io, [](const SeenRequest&) { return Reply{.delay = 1s}; });
    HttpClient client(io, HttpClientOptions{.max_connections_per_origin = 1,
                                            .pool_limit_name = "`connection.max-per-route` 1"});
    std::string error;
    test::run(io, [&]() -> asio::awaitable<void> {
        asio::co_spawn(
            io,
            [&]() -> asio::awaitable<void> {
                HttpRequest req{.url = server.url("/")};
                co_await client.send(std::move(req));
            },
            asio::detached);
        co_await pause(50ms);
        try {
            HttpRequest req{.url = server.url("/"), .timeout = 200ms};
            co_await client.send(std::move(req));
        } catch (const HttpError& e) {
            error = e.what();
        }
    });
    CHECK(error.find("waiting for a free connection") != std::string::npos);
    CHECK(error.find("`connection.max-per-route` 1") != std::string::npos);
}
