// The only translation unit of the admin endpoint that instantiates Boost.Beast.
#include "admin/admin_server.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

#include "metrics/registry.h"

namespace cdcd::admin {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using asio::awaitable;
using asio::use_awaitable;

namespace {
constexpr auto kIdleTimeout = std::chrono::seconds(10);
// Connections kept open at once: a client that opens connections without end must not take the
// file descriptors the pipeline needs (its state store, its sources and sinks). One past it
// closes the connection that has waited longest for a request (a leaked one, not a probe that
// has just connected), or, when every one is busy answering, the new one.
constexpr std::size_t kMaxSessions = 64;
// A failed accept (out of file descriptors: EMFILE, ENFILE) leaves the connection queued, so
// one retried at once fails again at once: the loop would spin, logging a warning each time.
constexpr auto kAcceptRetryDelay = std::chrono::milliseconds(200);
// Warnings of the same kind (failed accepts, connections closed past kMaxSessions) once in this.
constexpr auto kWarningInterval = std::chrono::seconds(10);
// How often a tap's queue is looked at: lines reach the client at most this late.
constexpr auto kTapPollInterval = std::chrono::milliseconds(50);

tcp::endpoint resolve(asio::io_context& io, const Address& address) {
    boost::system::error_code ec;
    auto ip = asio::ip::make_address(address.host, ec);
    if (!ec) return {ip, address.port};
    tcp::resolver resolver(io);
    auto results = resolver.resolve(address.host, std::to_string(address.port), ec);
    if (ec || results.empty())
        throw std::runtime_error("admin endpoint: cannot resolve " + address.host + ": " +
                                 ec.message());
    return results.begin()->endpoint();
}
}  // namespace

struct AdminServer::Impl : std::enable_shared_from_this<Impl> {
    Impl(asio::io_context& io, Routes r) : io(io), acceptor(io), routes(std::move(r)) {}

    http::response<http::string_body> handle(const http::request<http::string_body>& req) {
        http::response<http::string_body> res;
        res.version(req.version());
        res.keep_alive(req.keep_alive());
        res.set(http::field::server, "cdcd");
        res.set(http::field::content_type, "text/plain; charset=utf-8");
        std::string_view target(req.target().data(), req.target().size());
        std::string_view path = target.substr(0, target.find('?'));
        if (req.method() != http::verb::get && req.method() != http::verb::head) {
            res.result(http::status::method_not_allowed);
            res.set(http::field::allow, "GET, HEAD");
            res.body() = "method not allowed\n";
        } else if (path == "/metrics") {
            res.result(http::status::ok);
            res.set(http::field::content_type, metrics::kExpositionContentType);
            res.body() = routes.metrics ? routes.metrics() : std::string();
        } else if (path == "/healthz") {
            res.result(http::status::ok);
            res.body() = "ok\n";
        } else if (path == "/readyz") {
            bool ready = routes.ready && routes.ready();
            res.result(ready ? http::status::ok : http::status::service_unavailable);
            res.body() =
                (routes.state ? routes.state() : std::string(ready ? "ready" : "not ready")) + "\n";
        } else if (path == "/tap" && routes.tap) {
            // GET /tap is streamed by session(); only HEAD arrives here.
            res.result(http::status::method_not_allowed);
            res.set(http::field::allow, "GET");
            res.body() = "/tap streams: GET only\n";
        } else {
            res.result(http::status::not_found);
            res.body() = routes.tap ? "not found: try /metrics, /healthz, /readyz or /tap\n"
                                    : "not found: try /metrics, /healthz or /readyz\n";
        }
        res.prepare_payload();
        if (req.method() == http::verb::head) res.body().clear();
        return res;
    }

    static awaitable<void> session(std::shared_ptr<Impl> self,
                                   std::shared_ptr<beast::tcp_stream> stream) {
        beast::flat_buffer buffer;
        while (!self->stopped) {
            stream->expires_after(kIdleTimeout);
            http::request<http::string_body> req;
            self->set_waiting(stream, std::chrono::steady_clock::now());
            auto [ec, n] =
                co_await http::async_read(*stream, buffer, req, asio::as_tuple(use_awaitable));
            self->set_waiting(stream, kBusy);
            if (ec) break;
            std::string_view target(req.target().data(), req.target().size());
            if (req.method() == http::verb::get && self->routes.tap &&
                target.substr(0, target.find('?')) == "/tap") {
                auto q = target.find('?');
                StreamAnswer answer = self->routes.tap(
                    q == std::string_view::npos ? std::string_view() : target.substr(q + 1));
                if (answer.status == 200) {
                    co_await stream_lines(self, stream, req.version(), std::move(answer.lines));
                    break;
                }
                http::response<http::string_body> refusal{static_cast<http::status>(answer.status),
                                                          req.version()};
                refusal.set(http::field::server, "cdcd");
                refusal.set(http::field::content_type, "text/plain; charset=utf-8");
                refusal.keep_alive(req.keep_alive());
                refusal.body() = std::move(answer.message);
                refusal.prepare_payload();
                stream->expires_after(kIdleTimeout);
                auto [wec, wn] =
                    co_await http::async_write(*stream, refusal, asio::as_tuple(use_awaitable));
                if (wec || !refusal.keep_alive()) break;
                continue;
            }
            auto res = self->handle(req);
            stream->expires_after(kIdleTimeout);
            auto [wec, wn] =
                co_await http::async_write(*stream, res, asio::as_tuple(use_awaitable));
            if (wec || !res.keep_alive()) break;
        }
        beast::error_code ignored;
        stream->socket().shutdown(tcp::socket::shutdown_send, ignored);
        stream->socket().close(ignored);
        self->sessions.erase(stream);
    }

    /// A tap's body: its lines as they come, until take() ends it, the client goes (a read on
    /// the socket ends) or the server stops. Lines queue in the tap while a write is pending.
    static awaitable<void> stream_lines(std::shared_ptr<Impl> self,
                                        std::shared_ptr<beast::tcp_stream> stream, unsigned version,
                                        LineStream lines) {
        http::response<http::empty_body> head{http::status::ok, version};
        head.set(http::field::server, "cdcd");
        head.set(http::field::content_type, "application/x-ndjson");
        head.set(http::field::cache_control, "no-store");
        head.keep_alive(false);  // the body ends when the connection does
        http::response_serializer<http::empty_body> serializer{head};
        stream->expires_after(kIdleTimeout);
        auto [hec, hn] =
            co_await http::async_write_header(*stream, serializer, asio::as_tuple(use_awaitable));
        struct Watch {
            explicit Watch(const asio::any_io_executor& ex) : timer(ex) {}
            asio::steady_timer timer;
            bool client_gone = false;
        };
        auto watch = std::make_shared<Watch>(self->io.get_executor());
        if (!hec) {
            // The client sends nothing more: a read that ends means it closed the connection.
            asio::co_spawn(
                self->io,
                [stream, watch]() -> awaitable<void> {
                    char scratch[256];
                    while (true) {
                        auto [ec, n] = co_await stream->socket().async_read_some(
                            asio::buffer(scratch), asio::as_tuple(use_awaitable));
                        if (ec) break;
                    }
                    watch->client_gone = true;
                    watch->timer.cancel();
                },
                asio::detached);
        }
        std::string chunk;
        bool more = !hec;
        while (more && !self->stopped && !watch->client_gone) {
            chunk.clear();
            more = lines.take(chunk);
            if (!chunk.empty()) {
                stream->expires_after(kIdleTimeout);
                // Through the stream, so that a client that reads nothing for 10 s is dropped.
                auto [ec, n] = co_await asio::async_write(*stream, asio::buffer(chunk),
                                                          asio::as_tuple(use_awaitable));
                if (ec) break;
                continue;
            }
            if (!more) break;
            watch->timer.expires_after(kTapPollInterval);
            co_await watch->timer.async_wait(asio::as_tuple(use_awaitable));
        }
        if (lines.close) lines.close();
    }

    static awaitable<void> accept_loop(std::shared_ptr<Impl> self) {
        asio::steady_timer retry(self->io);
        while (!self->stopped) {
            auto [ec, socket] = co_await self->acceptor.async_accept(asio::as_tuple(use_awaitable));
            if (self->stopped) co_return;
            if (ec) {
                if (ec == asio::error::operation_aborted) co_return;
                const std::string why = ec.message();
                self->accept_failures.note([&why](std::uint64_t more) {
                    spdlog::warn("admin endpoint: accept failed: {}; retrying every {} ms{}", why,
                                 kAcceptRetryDelay.count(), since(more));
                });
                retry.expires_after(kAcceptRetryDelay);
                co_await retry.async_wait(asio::as_tuple(use_awaitable));
                continue;
            }
            if (self->sessions.size() >= kMaxSessions && !self->close_longest_waiting()) {
                self->refusals.note([](std::uint64_t more) {
                    spdlog::warn(
                        "admin endpoint: {} connections open and answering, the most it keeps: "
                        "closed a new one{}",
                        kMaxSessions, since(more));
                });
                boost::system::error_code ignored;
                socket.close(ignored);
                continue;
            }
            auto stream = std::make_shared<beast::tcp_stream>(std::move(socket));
            self->sessions.emplace(stream, kBusy);
            asio::co_spawn(self->io, session(self, std::move(stream)), asio::detached);
        }
    }

    void set_waiting(const std::shared_ptr<beast::tcp_stream>& stream,
                     std::chrono::steady_clock::time_point since_when) {
        if (auto it = sessions.find(stream); it != sessions.end()) it->second = since_when;
    }

    /// Closes the connection that has waited longest for a request; false when none waits. Its
    /// session ends (and leaves `sessions`) once its read returns.
    bool close_longest_waiting() {
        auto longest =
            std::min_element(sessions.begin(), sessions.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; });
        if (longest == sessions.end() || longest->second == kBusy) return false;
        const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::steady_clock::now() - longest->second);
        evictions.note([&waited](std::uint64_t more) {
            spdlog::warn(
                "admin endpoint: {} connections open, the most it keeps: closed the one that had "
                "waited longest for a request ({} ms){}",
                kMaxSessions, waited.count(), since(more));
        });
        longest->second = kBusy;  // closing: not to be chosen again
        boost::system::error_code ignored;
        longest->first->socket().close(ignored);
        return true;
    }

    static std::string since(std::uint64_t unsaid) {
        return unsaid == 0 ? std::string()
                           : fmt::format(" ({} more since the last such warning)", unsaid);
    }

    /// A warning said at most once per kWarningInterval, with how many were not said since.
    struct RateLimitedWarning {
        std::chrono::steady_clock::time_point last{};
        std::uint64_t unsaid = 0;
        bool said = false;

        template <typename Say>
        void note(Say say) {
            const auto now = std::chrono::steady_clock::now();
            if (said && now - last < kWarningInterval) {
                ++unsaid;
                return;
            }
            say(unsaid);
            said = true;
            last = now;
            unsaid = 0;
        }
    };

    asio::io_context& io;
    tcp::acceptor acceptor;
    Routes routes;
    // Open connections, each with the time since when it has waited for a request (kBusy while
    // it reads or answers one, or streams a tap).
    static constexpr auto kBusy = std::chrono::steady_clock::time_point::max();
    std::map<std::shared_ptr<beast::tcp_stream>, std::chrono::steady_clock::time_point> sessions;
    RateLimitedWarning accept_failures;
    RateLimitedWarning evictions;
    RateLimitedWarning refusals;
    bool stopped = false;
};

AdminServer::AdminServer(asio::io_context& io, const Address& address, Routes routes)
    : impl_(std::make_shared<Impl>(io, std::move(routes))) {
    auto endpoint = resolve(io, address);
    boost::system::error_code ec;
    auto& acceptor = impl_->acceptor;
    acceptor.open(endpoint.protocol(), ec);
    if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor.bind(endpoint, ec);
    if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
    if (ec)
        throw std::runtime_error("admin endpoint: cannot listen on " + address.to_string() + ": " +
                                 ec.message());
    asio::co_spawn(io, Impl::accept_loop(impl_), asio::detached);
}

AdminServer::~AdminServer() {
    stop();
}

std::uint16_t AdminServer::port() const {
    boost::system::error_code ec;
    auto endpoint = impl_->acceptor.local_endpoint(ec);
    return ec ? 0 : endpoint.port();
}

void AdminServer::stop() {
    if (impl_->stopped) return;
    impl_->stopped = true;
    boost::system::error_code ignored;
    impl_->acceptor.close(ignored);
    for (const auto& session : impl_->sessions) session.first->socket().close(ignored);
}

}  // namespace cdcd::admin
