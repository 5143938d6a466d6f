// The admin endpoint answered over a real loopback socket with a minimal HTTP/1.1 client.
#include "admin/admin_server.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <catch2/catch.hpp>
#include <thread>

#include "admin/address.h"

namespace asio = boost::asio;
using namespace cdcd;

namespace {

std::string get(std::uint16_t port, const std::string& request) {
    asio::io_context io;
    asio::ip::tcp::socket socket(io);
    socket.connect({asio::ip::make_address("127.0.0.1"), port});
    asio::write(socket, asio::buffer(request));
    std::string response;
    boost::system::error_code ec;
    asio::read(socket, asio::dynamic_buffer(response), ec);  // until the server closes
    return response;
}

std::string get_path(std::uint16_t port, const std::string& path) {
    return get(port, "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
}

}  // namespace

TEST_CASE("admin addresses: host:port, [v6]:port, :port and port default to loopback") {
    auto a = admin::parse_address("0.0.0.0:8081");
    CHECK(a.host == "0.0.0.0");
    CHECK(a.port == 8081);
    CHECK(admin::parse_address("8081").host == "127.0.0.1");
    CHECK(admin::parse_address(":9").host == "127.0.0.1");
    auto v6 = admin::parse_address("[::1]:80");
    CHECK(v6.host == "::1");
    CHECK(v6.to_string() == "[::1]:80");
    CHECK(admin::parse_address("localhost:0").port == 0);
    CHECK_THROWS_AS(admin::parse_address("host:"), std::invalid_argument);
    CHECK_THROWS_AS(admin::parse_address("host:70000"), std::invalid_argument);
    CHECK_THROWS_AS(admin::parse_address("::1:80"), std::invalid_argument);
    CHECK_THROWS_AS(admin::parse_address("[::1]80"), std::invalid_argument);
    CHECK_THROWS_AS(admin::parse_address("h:8x"), std::invalid_argument);
}

TEST_CASE("admin endpoint serves metrics, health and readiness, and stops cleanly") {
    asio::io_context io;
    bool ready = false;
    admin::Routes routes;
    routes.metrics = [] { return std::string("cdcd_up 1\n"); };
    routes.ready = [&] { return ready; };
    routes.state = [&] { return std::string(ready ? "running" : "starting"); };
    admin::AdminServer server(io, admin::parse_address("127.0.0.1:0"), routes);
    REQUIRE(server.port() != 0);
    std::thread loop([&] { io.run(); });

    auto metrics = get_path(server.port(), "/metrics");
    CHECK(metrics.starts_with("HTTP/1.1 200 OK\r\n"));
    CHECK(metrics.find("Content-Type: text/plain; version=0.0.4") != std::string::npos);
    CHECK(metrics.ends_with("\r\n\r\ncdcd_up 1\n"));
    CHECK(get_path(server.port(), "/healthz").ends_with("\r\n\r\nok\n"));
    auto not_ready = get_path(server.port(), "/readyz");
    CHECK(not_ready.starts_with("HTTP/1.1 503 Service Unavailable\r\n"));
    CHECK(not_ready.ends_with("starting\n"));
    asio::post(io, [&] { ready = true; });
    auto now_ready = get_path(server.port(), "/readyz?verbose=1");
    CHECK(now_ready.starts_with("HTTP/1.1 200 OK\r\n"));
    CHECK(get_path(server.port(), "/nope").starts_with("HTTP/1.1 404"));
    auto post =
        get(server.port(),
            "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    CHECK(post.starts_with("HTTP/1.1 405"));
    // Two requests on one keep-alive connection.
    auto both = get(server.port(),
                    "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: "
                    "x\r\nConnection: close\r\n\r\n");
    CHECK(both.find("ok\n") != both.rfind("ok\n"));

    asio::post(io, [&] { server.stop(); });
    loop.join();  // returns only if stop() released the listener and every connection
}

TEST_CASE("admin endpoint reports an address it cannot bind") {
    asio::io_context io;
    admin::AdminServer first(io, admin::parse_address("127.0.0.1:0"), {});
    admin::Address taken{"127.0.0.1", first.port()};
    CHECK_THROWS_WITH(admin::AdminServer(io, taken, {}),
                      Catch::Contains("cannot listen on 127.0.0.1:"));
}

TEST_CASE("admin endpoint streams a tap's lines until its stream ends, and refuses as told") {
    asio::io_context io;
    int takes = 0;
    bool closed = false;
    std::string query_seen;
    admin::Routes routes;
    routes.tap = [&](std::string_view query) {
        query_seen = std::string(query);
        if (query == "bad") return admin::StreamAnswer{400, "tap: parameter x\n", {}};
        admin::StreamAnswer answer;
        // Three lines over three takes, an empty take between, then the end.
        answer.lines.take = [&](std::string& out) {
            ++takes;
            if (takes == 2) return true;
            if (takes <= 4) out += "{\"n\":" + std::to_string(takes) + "}\n";
            return takes < 4;
        };
        answer.lines.close = [&] { closed = true; };
        return answer;
    };
    admin::AdminServer server(io, admin::parse_address("127.0.0.1:0"), routes);
    std::thread loop([&] { io.run(); });

    auto streamed = get_path(server.port(), "/tap?point=sink&limit=3");
    CHECK(streamed.starts_with("HTTP/1.1 200 OK\r\n"));
    CHECK(streamed.find("Content-Type: application/x-ndjson") != std::string::npos);
    CHECK(streamed.find("Content-Length") == std::string::npos);
    CHECK(streamed.ends_with("\r\n\r\n{\"n\":1}\n{\"n\":3}\n{\"n\":4}\n"));
    auto refused = get_path(server.port(), "/tap?bad");
    CHECK(refused.starts_with("HTTP/1.1 400 Bad Request\r\n"));
    CHECK(refused.ends_with("tap: parameter x\n"));
    CHECK(get(server.port(), "HEAD /tap HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
              .starts_with("HTTP/1.1 405"));

    asio::post(io, [&] { server.stop(); });
    loop.join();
    CHECK(query_seen == "bad");
    CHECK(closed);
}

TEST_CASE("admin endpoint ends a tap whose client went away") {
    asio::io_context io;
    bool closed = false;
    admin::Routes routes;
    routes.tap = [&](std::string_view) {
        admin::StreamAnswer answer;
        answer.lines.take = [](std::string&) { return true; };  // nothing yet, never ends
        answer.lines.close = [&] { closed = true; };
        return answer;
    };
    admin::AdminServer server(io, admin::parse_address("127.0.0.1:0"), routes);
    std::thread loop([&] { io.run(); });
    {
        asio::io_context client;
        asio::ip::tcp::socket socket(client);
        socket.connect({asio::ip::make_address("127.0.0.1"), server.port()});
        asio::write(socket, asio::buffer(std::string("GET /tap HTTP/1.1\r\nHost: x\r\n\r\n")));
        std::string head(64, '\0');
        socket.read_some(asio::buffer(head));
        CHECK(head.starts_with("HTTP/1.1 200 OK"));
    }  // the client closes
    for (int i = 0; i < 100; ++i) {
        bool done = false;
        asio::post(io, [&] { done = closed; });
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        if (done) break;
    }
    asio::post(io, [&] {
        CHECK(closed);  // before stop(): the closed connection ended the tap
        server.stop();
    });
    loop.join();
}
