#pragma once
// A tiny HTTP/1.1 server on 127.0.0.1 for the net tests: plain Asio (no Beast), keep-alive,
// scripted replies, connection and request counters.
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <string>

namespace cdcd::net::test {

struct SeenRequest {
    std::string method, target, body;
    std::map<std::string, std::string> headers;  // lower-case names
};

struct Reply {
    int status = 200;
    std::map<std::string, std::string> headers;
    std::string body;
    std::chrono::milliseconds delay{0};
    bool reset = false;        // close the connection without answering
    std::string raw;           // when set: written as is instead of the response above
    bool close_after = false;  // close the connection after answering (no Connection: close)
};

class LoopbackServer {
  public:
    using Handler = std::function<Reply(const SeenRequest&)>;

    LoopbackServer(boost::asio::io_context& io, Handler handler)
        : io_(io),
          acceptor_(io, {boost::asio::ip::make_address("127.0.0.1"), 0}),
          handler_(std::move(handler)) {
        boost::asio::co_spawn(io_, accept_loop(), boost::asio::detached);
    }

    std::string url(const std::string& path = "/") const {
        return "http://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port()) + path;
    }
    int connections = 0;
    int requests = 0;

  private:
    boost::asio::awaitable<void> accept_loop() {
        for (;;) {
            auto [ec, socket] =
                co_await acceptor_.async_accept(boost::asio::as_tuple(boost::asio::use_awaitable));
            if (ec) co_return;
            ++connections;
            boost::asio::co_spawn(io_, serve(std::move(socket)), boost::asio::detached);
        }
    }

    boost::asio::awaitable<void> serve(boost::asio::ip::tcp::socket socket) {
        using boost::asio::as_tuple;
        using boost::asio::use_awaitable;
        std::string buffer;
        for (;;) {
            auto [ec, n] = co_await boost::asio::async_read_until(
                socket, boost::asio::dynamic_buffer(buffer), "\r\n\r\n", as_tuple(use_awaitable));
            if (ec) co_return;
            SeenRequest req;
            std::string head = buffer.substr(0, n);
            buffer.erase(0, n);
            auto line_end = head.find("\r\n");
            auto line = head.substr(0, line_end);
            auto sp1 = line.find(' '), sp2 = line.rfind(' ');
            req.method = line.substr(0, sp1);
            req.target = line.substr(sp1 + 1, sp2 - sp1 - 1);
            std::size_t pos = line_end + 2;
            while (pos < head.size()) {
                auto end = head.find("\r\n", pos);
                if (end == pos) break;
                auto colon = head.find(':', pos);
                std::string name = head.substr(pos, colon - pos);
                for (auto& c : name)
                    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
                std::string value = head.substr(colon + 1, end - colon - 1);
                while (!value.empty() && value.front() == ' ') value.erase(0, 1);
                req.headers[name] = value;
                pos = end + 2;
            }
            std::size_t length =
                req.headers.count("content-length") ? std::stoul(req.headers["content-length"]) : 0;
            if (buffer.size() < length) {
                auto [rec, rn] = co_await boost::asio::async_read(
                    socket, boost::asio::dynamic_buffer(buffer),
                    boost::asio::transfer_exactly(length - buffer.size()), as_tuple(use_awaitable));
                (void)rn;
                if (rec) co_return;
            }
            req.body = buffer.substr(0, length);
            buffer.erase(0, length);
            ++requests;
            Reply reply = handler_(req);
            if (reply.delay.count() > 0) {
                boost::asio::steady_timer timer(io_);
                timer.expires_after(reply.delay);
                co_await timer.async_wait(as_tuple(use_awaitable));
            }
            if (reply.reset) co_return;
            std::string out = std::move(reply.raw);
            if (out.empty()) {
                out = "HTTP/1.1 " + std::to_string(reply.status) + " X\r\n";
                for (const auto& [k, v] : reply.headers) out += k + ": " + v + "\r\n";
                out += "Content-Length: " + std::to_string(reply.body.size()) + "\r\n\r\n" +
                       reply.body;
            }
            auto [wec, wn] = co_await boost::asio::async_write(socket, boost::asio::buffer(out),
                                                               as_tuple(use_awaitable));
            (void)wn;
            if (wec || reply.close_after) co_return;
        }
    }

    boost::asio::io_context& io_;
    boost::asio::ip::tcp::acceptor acceptor_;
    Handler handler_;
};

/// Runs the coroutine function `coro` (a callable returning an awaitable, kept alive by co_spawn)
/// on `io` to completion, rethrowing its exception.
template <class Coro>
void run(boost::asio::io_context& io, Coro coro) {
    std::exception_ptr error;
    bool done = false;
    boost::asio::co_spawn(io, std::move(coro), [&](std::exception_ptr e) {
        error = e;
        done = true;
        io.stop();
    });
    io.run();
    io.restart();
    if (error) std::rethrow_exception(error);
    if (!done) throw std::runtime_error("coroutine did not finish");
}

}  // namespace cdcd::net::test
