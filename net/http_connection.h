#pragma once
// The HTTP client's internals shared by its translation units (not a public header): a pooled
// connection and one request/response exchange over it. The exchange is a template whose Beast
// instantiations are most of the client's compile time; http_exchange_plain.cpp and
// http_exchange_tls.cpp instantiate it once each, so the two compile in parallel and a change
// to the pool logic in http_client.cpp recompiles neither.

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>

namespace cdcd::net::detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using Clock = std::chrono::steady_clock;
using SslStream = beast::ssl_stream<beast::tcp_stream>;
using Request = http::request<http::string_body>;
using ResponseParser = http::response_parser<http::string_body>;

// What the read buffer may hold beyond a whole header: one read's worth. Body bytes leave it as
// they are parsed; what else accumulates there (a chunk-size line, trailers, which Beast's
// header limit does not cover) is bounded by it.
constexpr std::size_t kReadSlack = 64 * 1024;

struct Connection {
    explicit Connection(std::size_t max_header_bytes) : buffer(max_header_bytes + kReadSlack) {}

    std::optional<beast::tcp_stream> plain;
    std::optional<SslStream> tls;
    beast::flat_buffer buffer;
    Clock::time_point opened_at = Clock::now();
    Clock::time_point idle_since;
    std::shared_ptr<void> slot;  // its place under the pool's limits, given back on destruction

    beast::tcp_stream& lowest() { return tls ? beast::get_lowest_layer(*tls) : *plain; }
};

struct ExchangeOutcome {
    beast::error_code error;
    bool got_bytes = false;  // whether any response byte arrived (for the stale-connection retry)
};

/// Writes `request` and reads the response into `parser`, both before `deadline`, over
/// whichever stream `conn` has.
asio::awaitable<ExchangeOutcome> exchange(Connection& conn, Request& request,
                                          ResponseParser& parser, Clock::time_point deadline);

/// The TLS handshake of a new connection (in http_exchange_tls.cpp, with the TLS exchange).
asio::awaitable<beast::error_code> tls_handshake(SslStream& stream);

// One instantiation each, in http_exchange_plain.cpp and http_exchange_tls.cpp.
asio::awaitable<ExchangeOutcome> exchange_plain(Connection& conn, Request& request,
                                                ResponseParser& parser, Clock::time_point deadline);
asio::awaitable<ExchangeOutcome> exchange_tls(Connection& conn, Request& request,
                                              ResponseParser& parser, Clock::time_point deadline);

template <class Stream>
asio::awaitable<ExchangeOutcome> exchange_over(Stream& stream, Connection& conn, Request& request,
                                               ResponseParser& parser, Clock::time_point deadline) {
    conn.lowest().expires_at(deadline);
    auto [wec, wn] =
        co_await http::async_write(stream, request, asio::as_tuple(asio::use_awaitable));
    (void)wn;
    if (wec) co_return ExchangeOutcome{wec, false};
    conn.lowest().expires_at(deadline);
    auto [rec, rn] =
        co_await http::async_read(stream, conn.buffer, parser, asio::as_tuple(asio::use_awaitable));
    co_return ExchangeOutcome{rec, rn > 0 || parser.got_some()};
}

}  // namespace cdcd::net::detail
