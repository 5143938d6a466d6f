// The exchange over a plain TCP connection, and the dispatch between plain and TLS.
#include "net/http_connection.h"

namespace cdcd::net::detail {

asio::awaitable<ExchangeOutcome> exchange_plain(Connection& conn, Request& request,
                                                ResponseParser& parser,
                                                Clock::time_point deadline) {
    co_return co_await exchange_over(*conn.plain, conn, request, parser, deadline);
}

asio::awaitable<ExchangeOutcome> exchange(Connection& conn, Request& request,
                                          ResponseParser& parser, Clock::time_point deadline) {
    if (conn.tls) co_return co_await exchange_tls(conn, request, parser, deadline);
    co_return co_await exchange_plain(conn, request, parser, deadline);
}

}  // namespace cdcd::net::detail
