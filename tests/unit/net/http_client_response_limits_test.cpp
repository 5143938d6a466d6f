// Designated initializers name only the fields a test cares about.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
// Every response is bounded: the body by the request's (or the client's) limit, the header and
// the chunk framing by fixed limits; crossing one is HttpError(TooLarge), never retried.
#include <catch2/catch.hpp>
#include <string>

#include "net/http_client.h"
#include "net/retry.h"
#include "tests/unit/net/loopback_server.h"

using namespace cdcd::net;
using namespace std::chrono_literals;
using test::LoopbackServer;
using test::Reply;
using test::SeenRequest;

namespace {

// A 200 answer whose body comes in `chunks` chunks of `chunk` bytes, without Content-Length.
std::string chunked_answer(std::size_t chunks, std::size_t chunk) {
    std::string out = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", chunk);
    for (std::size_t i = 0; i < chunks; ++i) out += size + std::string(chunk, 'x') + "\r\n";
    return out + "0\r\n\r\n";
}

// The HttpError that sending `req` throws (fails the test when none is thrown).
HttpError error_of(boost::asio::io_context& io, HttpClient& client, HttpRequest req) {
    try {
        test::run(io, [&]() -> boost::asio::awaitable<void> {
            HttpRequest r = std::move(req);
            co_await client.send(std::move(r));
        });
    } catch (const HttpError& e) {
        return e;
    }
    FAIL("no HttpError");
    throw std::logic_error("unreachable");
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("a body over the request's limit fails naming the URL, the limit and who sets it") {
    boost::asio::io_context io;
    LoopbackServer server(io, [](const SeenRequest&) {
        return Reply{.status = 200, .body = std::string(70 * 1024, 'x')};
    });
    HttpClient client(io);
    HttpError e = error_of(io, client,
                           HttpRequest{.url = server.url("/bucket/obj?Signature=s3cr3t"),
                                       .max_response_bytes = 64 * 1024,
                                       .response_limit_name = "fetch-content.max-size"});
    const std::string what = e.what();
    CHECK(e.kind() == HttpError::Kind::TooLarge);
    CHECK(e.limit() == 64 * 1024);
    CHECK(contains(what, "response too large"));
    CHECK(contains(what, server.url("/bucket/obj")));
    CHECK(contains(what, "the body exceeds 65536 bytes (64 KiB), fetch-content.max-size"));
    CHECK(!contains(what, "s3cr3t"));
}

TEST_CASE("a body exactly at the limit is read whole") {
    boost::asio::io_context io;
    LoopbackServer server(io,
                          [](const SeenRequest&) { return Reply{.body = std::string(4096, 'x')}; });
    HttpClient client(io);
    HttpResponse response;
    test::run(io, [&]() -> boost::asio::awaitable<void> {
        HttpRequest req{.url = server.url("/"), .max_response_bytes = 4096};
        response = co_await client.send(std::move(req));
    });
    CHECK(response.body.size() == 4096);
}

TEST_CASE("without a limit of its own a request gets the client's, named by the client") {
    boost::asio::io_context io;
    LoopbackServer server(io,
                          [](const SeenRequest&) { return Reply{.raw = chunked_answer(8, 1000)}; });
    HttpClient client(io, HttpClientOptions{.max_response_bytes = 5000,
                                            .response_limit_name = "the sink's fixed limit"});
    HttpError e = error_of(io, client, HttpRequest{.url = server.url("/list")});
    CHECK(e.kind() == HttpError::Kind::TooLarge);
    CHECK(contains(e.what(), "the body exceeds 5000 bytes, the sink's fixed limit"));
}

TEST_CASE("the client's default limit is megabytes, not a gigabyte") {
    CHECK(HttpClientOptions{}.max_response_bytes == 8u << 20);
    CHECK(HttpClientOptions{}.max_header_bytes == 64u * 1024);
}

TEST_CASE("a chunked body with no length is cut off at the limit, not read to its end") {
    boost::asio::io_context io;
    // 8 MiB announced by nothing: the client must stop at its 1 MiB limit.
    LoopbackServer server(
        io, [](const SeenRequest&) { return Reply{.raw = chunked_answer(128, 64 * 1024)}; });
    HttpClient client(io);
    HttpError e = error_of(
        io, client, HttpRequest{.url = server.url("/stream"), .max_response_bytes = 1 << 20});
    CHECK(e.kind() == HttpError::Kind::TooLarge);
    CHECK(contains(e.what(), "the body exceeds 1048576 bytes (1 MiB)"));
    CHECK(client.idle_connections() == 0);  // the rest of that answer is never read
}

TEST_CASE("a header over the fixed header limit fails as TooLarge") {
    boost::asio::io_context io;
    LoopbackServer server(io, [](const SeenRequest&) {
        return Reply{.headers = {{"X-Filler", std::string(70 * 1024, 'h')}}, .body = "ok"};
    });
    HttpClient client(io);
    HttpError e = error_of(io, client, HttpRequest{.url = server.url("/")});
    CHECK(e.kind() == HttpError::Kind::TooLarge);
    CHECK(contains(e.what(),
                   "the header exceeds 65536 bytes (64 KiB), the HTTP client's fixed limit"));
}

TEST_CASE("an endless chunk-size line fails as TooLarge instead of growing the buffer") {
    boost::asio::io_context io;
    // Beast's header limit does not cover chunk extensions: the read buffer's cap must.
    LoopbackServer server(io, [](const SeenRequest&) {
        return Reply{.raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10;ext=" +
                            std::string(4 << 20, 'e')};
    });
    HttpClient client(io);
    HttpError e = error_of(io, client, HttpRequest{.url = server.url("/")});
    CHECK(e.kind() == HttpError::Kind::TooLarge);
    CHECK(contains(e.what(), "a chunk-size line or the trailer exceeds"));
}

TEST_CASE("a response over its limit is not retried: the same answer would come again") {
    boost::asio::io_context io;
    LoopbackServer server(io,
                          [](const SeenRequest&) { return Reply{.body = std::string(2048, 'x')}; });
    HttpClient client(io);
    RetryPolicy policy{.max_retries = 5, .initial_backoff = 1ms};
    const Classifier ok = [](const HttpResponse&) { return Classification{}; };
    CHECK_THROWS_AS(test::run(io,
                              [&]() -> boost::asio::awaitable<void> {
                                  co_await send_with_retry(
                                      client,
                                      [&] {
                                          return HttpRequest{.url = server.url("/"),
                                                             .max_response_bytes = 1024};
                                      },
                                      ok, policy);
                              }),
                    HttpError);
    CHECK(server.requests == 1);
}

TEST_CASE("the client keeps working after an oversized answer") {
    boost::asio::io_context io;
    LoopbackServer server(io, [](const SeenRequest& r) {
        return Reply{.body = r.target == "/big" ? std::string(2048, 'x') : std::string("small")};
    });
    HttpClient client(io);
    error_of(io, client, HttpRequest{.url = server.url("/big"), .max_response_bytes = 1024});
    HttpResponse response;
    test::run(io, [&]() -> boost::asio::awaitable<void> {
        HttpRequest req{.url = server.url("/small"), .max_response_bytes = 1024};
        response = co_await client.send(std::move(req));
    });
    CHECK(response.body == "small");
}
