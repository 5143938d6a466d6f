#include "cmd/tap/tap_stream.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <charconv>
#include <istream>

#include "net/url.h"

namespace cdcd::tap {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

StreamResult stream_get(const std::string& url,
                        const std::function<bool(std::string_view)>& on_body) {
    StreamResult result;
    std::string why;
    auto maybe = net::parse_url(url, &why);
    if (!maybe || maybe->tls()) {
        result.error = url + ": " + (maybe ? "the admin endpoint speaks plain HTTP" : why);
        return result;
    }
    const net::Url& parsed = *maybe;
    asio::io_context io;
    tcp::socket socket(io);
    boost::system::error_code ec;
    tcp::resolver resolver(io);
    auto endpoints = resolver.resolve(parsed.host, std::to_string(parsed.port), ec);
    if (!ec) asio::connect(socket, endpoints, ec);
    if (ec) {
        result.error = "cannot connect to " + parsed.host + ":" + std::to_string(parsed.port) +
                       ": " + ec.message();
        return result;
    }
    std::string request = "GET " + parsed.target() + " HTTP/1.1\r\nHost: " + parsed.host + ":" +
                          std::to_string(parsed.port) +
                          "\r\nUser-Agent: cdcd-tap\r\nAccept: application/x-ndjson\r\n"
                          "Connection: close\r\n\r\n";
    asio::write(socket, asio::buffer(request), ec);
    asio::streambuf buffer;
    if (!ec) asio::read_until(socket, buffer, "\r\n\r\n", ec);
    if (ec) {
        result.error = "no answer from " + url + ": " + ec.message();
        return result;
    }
    std::string head(asio::buffers_begin(buffer.data()), asio::buffers_end(buffer.data()));
    std::size_t head_end = head.find("\r\n\r\n") + 4;
    buffer.consume(head_end);
    // "HTTP/1.1 200 OK"
    auto space = head.find(' ');
    if (!head.starts_with("HTTP/1.") || space == std::string::npos ||
        std::from_chars(head.data() + space + 1, head.data() + head.size(), result.status).ec !=
            std::errc()) {
        result.error = "not an HTTP answer from " + url;
        return result;
    }
    std::string body(asio::buffers_begin(buffer.data()), asio::buffers_end(buffer.data()));
    buffer.consume(buffer.size());
    char piece[16384];
    if (result.status != 200) {
        // An error's body is short and has a Content-Length; read what comes until the close.
        while (body.size() < 4096) {
            std::size_t n = socket.read_some(asio::buffer(piece), ec);
            if (ec) break;
            body.append(piece, n);
        }
        while (!body.empty() && (body.back() == '\n' || body.back() == '\r')) body.pop_back();
        result.error = body;
        return result;
    }
    if (!body.empty() && !on_body(body)) return result;
    while (true) {
        std::size_t n = socket.read_some(asio::buffer(piece), ec);
        if (n > 0 && !on_body(std::string_view(piece, n))) return result;
        if (ec == asio::error::eof) return result;
        if (ec) {
            result.complete = false;
            result.error = "the stream from " + url + " broke: " + ec.message();
            return result;
        }
    }
}

}  // namespace cdcd::tap
