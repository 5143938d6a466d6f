// The exchange over a TLS connection, and its handshake: the OpenSSL stream's instantiations.
#include <boost/asio/ssl.hpp>

#include "net/http_connection.h"

namespace cdcd::net::detail {

asio::awaitable<ExchangeOutcome> exchange_tls(Connection& conn, Request& request,
                                              ResponseParser& parser, Clock::time_point deadline) {
    co_return co_await exchange_over(*conn.tls, conn, request, parser, deadline);
}

asio::awaitable<beast::error_code> tls_handshake(SslStream& stream) {
    auto [ec] = co_await stream.async_handshake(asio::ssl::stream_base::client,
                                                asio::as_tuple(asio::use_awaitable));
    co_return ec;
}

}  // namespace cdcd::net::detail
