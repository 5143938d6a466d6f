// The HTTP client: its pool, connecting and the request loop. The Beast instantiations of one
// exchange are in http_exchange_plain.cpp and http_exchange_tls.cpp (see http_connection.h).
// GCC 12 mistakes asio's coroutine-frame allocator (operator new and delete of the frame's own
// class) for a mismatched delete once send_request's inlining changes (as in
// tests/unit/net/retry_metrics_test.cpp).
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#include "net/http_client.h"

#include <openssl/ssl.h>
#include <sys/socket.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/ssl.hpp>
#include <cerrno>
#include <deque>
#include <list>
#include <map>
#include <optional>

#include "net/http_connection.h"
#include "net/url.h"
#include "text/ascii.h"

namespace cdcd::net {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

const std::string* Headers::find(std::string_view name) const {
    for (const auto& [k, v] : items_)
        if (ascii::iequals(k, name)) return &v;
    return nullptr;
}

std::string Headers::get(std::string_view name, const std::string& fallback) const {
    const std::string* v = find(name);
    return v ? *v : fallback;
}

void Headers::set(std::string name, std::string value) {
    std::erase_if(items_, [&](const auto& kv) { return ascii::iequals(kv.first, name); });
    items_.emplace_back(std::move(name), std::move(value));
}

const char* to_string(HttpError::Kind kind) {
    switch (kind) {
        case HttpError::Kind::InvalidUrl:
            return "invalid URL";
        case HttpError::Kind::Resolve:
            return "name resolution failed";
        case HttpError::Kind::Connect:
            return "connect failed";
        case HttpError::Kind::Tls:
            return "TLS handshake failed";
        case HttpError::Kind::Timeout:
            return "timed out";
        case HttpError::Kind::Reset:
            return "connection reset";
        case HttpError::Kind::Protocol:
            return "malformed response";
        case HttpError::Kind::TooLarge:
            return "response too large";
    }
    return "error";
}

HttpError::HttpError(Kind kind, std::string url, const std::string& detail, std::size_t limit)
    : std::runtime_error(std::string("HTTP ") + to_string(kind) + " (" + url + ")" +
                         (detail.empty() ? "" : ": " + detail)),
      kind_(kind),
      url_(std::move(url)),
      limit_(limit) {}

using detail::Connection;
using detail::kReadSlack;

struct HttpClient::Impl : std::enable_shared_from_this<HttpClient::Impl> {
    Impl(asio::io_context& io_, HttpClientOptions options_)
        : io(io_), options(std::move(options_)), ssl(asio::ssl::context::tls_client) {
        ssl.set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                        asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                        asio::ssl::context::no_tlsv1_1);
        if (options.verify_tls) {
            ssl.set_default_verify_paths();
            ssl.set_verify_mode(asio::ssl::verify_peer);
        } else {
            ssl.set_verify_mode(asio::ssl::verify_none);
        }
    }

    asio::io_context& io;
    HttpClientOptions options;
    asio::ssl::context ssl;
    std::map<std::string, std::deque<std::unique_ptr<Connection>>> idle;
    std::size_t opened = 0;

    std::size_t open_total = 0;
    std::map<std::string, std::size_t> open_by_origin;
    std::list<asio::steady_timer*> slot_waiters;  // requests waiting for a connection slot
    std::size_t stale_closed = 0;

    bool expired(const Connection& conn, Clock::time_point now) const {
        return options.max_connection_lifetime.count() > 0 &&
               now - conn.opened_at >= options.max_connection_lifetime;
    }

    // Whether an idle pooled connection is still usable: the peer has not closed it and sent
    // nothing (an HTTP/1.1 server speaks only when asked). A non-blocking peek, no I/O wait.
    static bool still_open(Connection& conn) {
        auto& sock = conn.lowest().socket();
        char byte = 0;
        ssize_t n = ::recv(sock.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
        return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    }

    std::unique_ptr<Connection> take_idle(const std::string& origin) {
        auto it = idle.find(origin);
        if (it == idle.end()) return nullptr;
        auto now = Clock::now();
        while (!it->second.empty()) {
            auto conn = std::move(it->second.back());
            it->second.pop_back();
            if (now - conn->idle_since >= options.idle_timeout || expired(*conn, now)) continue;
            if (options.validate_after_inactivity.count() > 0 &&
                now - conn->idle_since >= options.validate_after_inactivity && !still_open(*conn)) {
                ++stale_closed;
                continue;
            }
            return conn;
        }
        return nullptr;
    }

    void give_back(const std::string& origin, std::unique_ptr<Connection> conn) {
        auto& list = idle[origin];
        if (list.size() >= options.max_idle_per_origin) return;
        conn->idle_since = Clock::now();
        if (expired(*conn, conn->idle_since)) return;
        list.push_back(std::move(conn));
        wake_slot_waiters();  // one waiting for this origin may now reuse it
    }

    void close_idle(std::chrono::milliseconds idle_for) {
        auto now = Clock::now();
        for (auto& [origin, list] : idle)
            std::erase_if(list, [&](const std::unique_ptr<Connection>& c) {
                return now - c->idle_since >= idle_for || expired(*c, now);
            });
    }

    bool origin_full(const std::string& origin) const {
        if (options.max_connections_per_origin == 0) return false;
        auto it = open_by_origin.find(origin);
        return it != open_by_origin.end() && it->second >= options.max_connections_per_origin;
    }

    bool total_full() const {
        return options.max_connections > 0 && open_total >= options.max_connections;
    }

    // Closes the longest-idle pooled connection of another origin, to make room under
    // max_connections; false when there is none.
    bool close_idle_elsewhere(const std::string& origin) {
        std::deque<std::unique_ptr<Connection>>* oldest = nullptr;
        for (auto& [o, list] : idle)
            if (o != origin && !list.empty() &&
                (!oldest || list.front()->idle_since < oldest->front()->idle_since))
                oldest = &list;
        if (!oldest) return false;
        oldest->pop_front();
        return true;
    }

    void wake_slot_waiters() {
        for (auto* t : slot_waiters) t->cancel();
    }

    void release_slot(const std::string& origin) {
        --open_total;
        if (--open_by_origin[origin] == 0) open_by_origin.erase(origin);
        wake_slot_waiters();
    }

    // Counts one more open connection to `origin`; the handle gives it back when destroyed.
    std::shared_ptr<void> take_slot(const std::string& origin) {
        ++open_total;
        ++open_by_origin[origin];
        std::weak_ptr<Impl> self = weak_from_this();
        return std::shared_ptr<void>(nullptr, [self, origin](void*) {
            if (auto impl = self.lock()) impl->release_slot(origin);
        });
    }

    // A pooled connection to `origin`, or a new one when the pool's limits leave room; else
    // waits (until `deadline`) for one in use to be given back or closed.
    asio::awaitable<std::unique_ptr<Connection>> lease(const Url& url, Clock::time_point deadline,
                                                       const std::string& shown, bool* reused) {
        const std::string origin = url.origin();
        for (;;) {
            if (auto conn = take_idle(origin)) {
                *reused = true;
                co_return conn;
            }
            if (!origin_full(origin) && (!total_full() || close_idle_elsewhere(origin))) {
                *reused = false;
                co_return co_await connect(url, deadline, take_slot(origin), shown);
            }
            if (Clock::now() >= deadline)
                throw HttpError(
                    HttpError::Kind::Timeout, shown,
                    "waiting for a free connection: all " +
                        std::to_string(origin_full(origin) ? open_by_origin[origin] : open_total) +
                        " are in use (" + options.pool_limit_name + ")");
            asio::steady_timer timer(io);
            timer.expires_at(deadline);
            // Leaves the list however the wait ends (also when the event loop is destroyed with
            // this coroutine suspended), so no one cancels a timer that is gone.
            struct Waiting {
                std::list<asio::steady_timer*>& list;
                std::list<asio::steady_timer*>::iterator where;
                ~Waiting() { list.erase(where); }
            } waiting{slot_waiters, slot_waiters.insert(slot_waiters.end(), &timer)};
            co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
        }
    }

    asio::awaitable<std::unique_ptr<Connection>> connect(const Url& url, Clock::time_point deadline,
                                                         std::shared_ptr<void> slot,
                                                         const std::string& shown) {
        auto conn = std::make_unique<Connection>(options.max_header_bytes);
        conn->slot = std::move(slot);
        // With a connect timeout of its own, connecting is bounded by it alone.
        if (options.connect_timeout.count() > 0) deadline = Clock::now() + options.connect_timeout;
        tcp::resolver resolver(io);
        // Arguments are named: GCC 12 mishandles temporaries inside a co_await expression.
        const std::string service = std::to_string(url.port);
        auto [rec, results] =
            co_await resolver.async_resolve(url.host, service, asio::as_tuple(asio::use_awaitable));
        if (rec) throw HttpError(HttpError::Kind::Resolve, shown, rec.message());
        if (url.tls()) {
            conn->tls.emplace(io, ssl);
            if (!SSL_set_tlsext_host_name(conn->tls->native_handle(), url.host.c_str()))
                throw HttpError(HttpError::Kind::Tls, shown, "cannot set SNI host name");
            if (options.verify_tls)
                conn->tls->set_verify_callback(asio::ssl::host_name_verification(url.host));
        } else {
            conn->plain.emplace(io);
        }
        auto& low = conn->lowest();
        low.expires_at(deadline);
        auto [cec, ep] = co_await low.async_connect(results, asio::as_tuple(asio::use_awaitable));
        (void)ep;
        if (cec == beast::error::timeout)
            throw HttpError(HttpError::Kind::Timeout, shown,
                            options.connect_timeout.count() > 0
                                ? "while connecting (connect timeout " +
                                      std::to_string(options.connect_timeout.count()) + " ms)"
                                : std::string("while connecting"));
        if (cec) throw HttpError(HttpError::Kind::Connect, shown, cec.message());
        low.socket().set_option(tcp::no_delay(true));
        if (conn->tls) {
            low.expires_at(deadline);
            beast::error_code hec = co_await detail::tls_handshake(*conn->tls);
            if (hec == beast::error::timeout)
                throw HttpError(HttpError::Kind::Timeout, shown, "during the TLS handshake");
            if (hec) throw HttpError(HttpError::Kind::Tls, shown, hec.message());
        }
        ++opened;
        conn->opened_at = Clock::now();
        co_return conn;
    }
};

namespace {

HttpError::Kind classify(const beast::error_code& ec) {
    if (ec == beast::error::timeout) return HttpError::Kind::Timeout;
    if (ec == http::error::body_limit || ec == http::error::header_limit ||
        ec == http::error::buffer_overflow)
        return HttpError::Kind::TooLarge;
    if (ec == http::error::end_of_stream || ec == asio::error::eof ||
        ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
        ec == asio::error::connection_aborted || ec == asio::ssl::error::stream_truncated)
        return HttpError::Kind::Reset;
    return HttpError::Kind::Protocol;
}

}  // namespace

HttpClient::HttpClient(asio::io_context& io, HttpClientOptions options)
    : impl_(std::make_shared<Impl>(io, std::move(options))) {}

HttpClient::~HttpClient() = default;

std::size_t HttpClient::connections_opened() const {
    return impl_->opened;
}

std::size_t HttpClient::idle_connections() const {
    std::size_t n = 0;
    for (const auto& [origin, list] : impl_->idle) n += list.size();
    return n;
}

std::size_t HttpClient::open_connections() const {
    return impl_->open_total;
}

std::size_t HttpClient::stale_connections_closed() const {
    return impl_->stale_closed;
}

void HttpClient::close_idle(std::chrono::milliseconds idle) {
    impl_->close_idle(idle);
}

namespace {

std::string bytes_text(std::size_t n) {
    std::string text = std::to_string(n) + " bytes";
    if (n >= (1U << 20) && n % (1U << 20) == 0)
        text += " (" + std::to_string(n >> 20) + " MiB)";
    else if (n >= 1024 && n % 1024 == 0)
        text += " (" + std::to_string(n >> 10) + " KiB)";
    return text;
}

// The TooLarge error of a response that crossed a limit: which part, the limit, who sets it.
HttpError too_large(const beast::error_code& ec, const std::string& shown, std::size_t body_limit,
                    const std::string& body_limit_name, std::size_t header_limit) {
    if (ec == http::error::body_limit)
        return HttpError(HttpError::Kind::TooLarge, shown,
                         "the body exceeds " + bytes_text(body_limit) + ", " + body_limit_name,
                         body_limit);
    if (ec == http::error::header_limit)
        return HttpError(
            HttpError::Kind::TooLarge, shown,
            "the header exceeds " + bytes_text(header_limit) + ", the HTTP client's fixed limit",
            header_limit);
    return HttpError(HttpError::Kind::TooLarge, shown,
                     "a chunk-size line or the trailer exceeds " +
                         bytes_text(header_limit + kReadSlack) + ", the HTTP client's fixed limit",
                     header_limit + kReadSlack);
}

std::string_view path_of(std::string_view url) {
    auto scheme = url.find("://");
    auto start = url.find('/', scheme == std::string_view::npos ? 0 : scheme + 3);
    if (start == std::string_view::npos) return "/";
    auto end = url.find_first_of("?#", start);
    return url.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
}
}  // namespace

asio::awaitable<HttpResponse> HttpClient::send(HttpRequest request) {
    auto impl = impl_;  // keeps the pool alive while this coroutine runs
    if (!impl->options.observer) co_return co_await send_request(impl, std::move(request));
    const std::string method = request.method;
    const std::string endpoint =
        request.endpoint.empty() ? std::string(path_of(request.url)) : request.endpoint;
    const auto started = Clock::now();
    HttpObservation observation;
    observation.method = method;
    observation.endpoint = endpoint;
    std::optional<HttpResponse> response;
    try {
        response = co_await send_request(impl, std::move(request));
    } catch (const HttpError& e) {
        observation.error = e.kind();
        observation.elapsed = Clock::now() - started;
        impl->options.observer(observation);
        throw;
    }
    observation.status = response->status;
    observation.elapsed = Clock::now() - started;
    impl->options.observer(observation);
    co_return std::move(*response);
}

asio::awaitable<HttpResponse> HttpClient::send_request(std::shared_ptr<Impl> impl,
                                                       HttpRequest request) {
    std::string error;
    auto url = parse_url(request.url, &error);
    if (!url) {
        auto q = request.url.find('?');
        throw HttpError(HttpError::Kind::InvalidUrl, request.url.substr(0, q), error);
    }
    const std::string shown = url->redacted();
    const std::string origin = url->origin();
    auto deadline = Clock::now() + request.timeout;
    const std::size_t body_limit = request.max_response_bytes != 0
                                       ? request.max_response_bytes
                                       : impl->options.max_response_bytes;
    const std::string body_limit_name = !request.response_limit_name.empty()
                                            ? request.response_limit_name
                                            : impl->options.response_limit_name;

    http::request<http::string_body> req;
    auto verb = http::string_to_verb(request.method);
    if (verb == http::verb::unknown)
        req.method_string(request.method);
    else
        req.method(verb);
    req.target(url->target());
    req.version(11);
    bool default_port = url->port == (url->tls() ? 443 : 80);
    req.set(http::field::host,
            default_port ? url->host : url->host + ":" + std::to_string(url->port));
    req.set(http::field::user_agent, impl->options.user_agent);
    for (const auto& [k, v] : request.headers.items()) req.set(k, v);
    req.keep_alive(true);
    req.body() = std::move(request.body);
    req.prepare_payload();

    for (int attempt = 0;; ++attempt) {
        bool reused = false;
        auto conn = co_await impl->lease(*url, deadline, shown, &reused);
        // With a connect timeout of its own, connecting is not part of the request's time.
        if (!reused && impl->options.connect_timeout.count() > 0)
            deadline = Clock::now() + request.timeout;

        http::response_parser<http::string_body> parser;
        parser.body_limit(body_limit);
        parser.header_limit(static_cast<std::uint32_t>(impl->options.max_header_bytes));
        if (request.method == "HEAD") parser.skip(true);
        auto [ec, got_bytes] = co_await detail::exchange(*conn, req, parser, deadline);
        if (ec) {
            auto kind = classify(ec);
            if (kind == HttpError::Kind::TooLarge)
                throw too_large(ec, shown, body_limit, body_limit_name,
                                impl->options.max_header_bytes);
            // A pooled connection the server closed while idle: retry once on a fresh one.
            if (reused && !got_bytes && kind == HttpError::Kind::Reset && attempt == 0) continue;
            throw HttpError(kind, shown, ec.message());
        }
        auto& msg = parser.get();
        HttpResponse response;
        response.status = static_cast<int>(msg.result_int());
        for (const auto& field : msg)
            response.headers.add(std::string(field.name_string()), std::string(field.value()));
        response.body = std::move(msg.body());
        if (msg.keep_alive() && parser.is_done()) {
            conn->lowest().expires_never();
            impl->give_back(origin, std::move(conn));
        }
        co_return response;
    }
}

}  // namespace cdcd::net
