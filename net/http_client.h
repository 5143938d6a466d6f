#pragma once
// The shared asynchronous HTTP/1.1 client of every HTTP connector. Boost.Beast and OpenSSL stay
// inside net/http_*.cpp (pimpl): including this header costs no Beast compile time.
//
//   net::HttpClient client(io);
//   net::HttpRequest req{.method = "GET", .url = "https://api.dingtalk.com/v2.0/wiki/nodes?x=1"};
//   net::HttpResponse resp = co_await client.send(std::move(req));  // throws net::HttpError
//
// https URLs use TLS with the peer certificate verified against the system CA store and SNI set
// (verify_tls=false only by explicit option); http is meant for loopback emulators. Connections
// are kept alive and pooled per origin (scheme://host:port).
//
// Every response is bounded: its header by HttpClientOptions::max_header_bytes, its body by the
// request's max_response_bytes (or the client's). A response over a limit fails with HttpError
// Kind::TooLarge as soon as the limit is crossed (a Content-Length over it before any body byte
// is read), and send_with_retry never retries it: the same answer would come again.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cdcd::net {

/// Header fields in order; lookup by name is case-insensitive.
class Headers {
  public:
    Headers() = default;
    Headers(std::initializer_list<std::pair<std::string, std::string>> items) : items_(items) {}

    /// The first value of `name`, or nullptr.
    const std::string* find(std::string_view name) const;
    std::string get(std::string_view name, const std::string& fallback = {}) const;
    bool contains(std::string_view name) const { return find(name) != nullptr; }
    /// Replaces every field named `name` with one holding `value`.
    void set(std::string name, std::string value);
    void add(std::string name, std::string value) {
        items_.emplace_back(std::move(name), std::move(value));
    }
    const std::vector<std::pair<std::string, std::string>>& items() const { return items_; }

  private:
    std::vector<std::pair<std::string, std::string>> items_;
};

struct HttpRequest {
    std::string method = "GET";
    std::string url;  // http(s)://host[:port]/path?query
    Headers headers;
    std::string body;
    std::chrono::milliseconds timeout{30'000};  // connect + write + read of this request
    /// Names the request in HttpClientOptions::observer (a metrics label): a stable operation
    /// name or path template. Empty: the URL's path.
    std::string endpoint;
    /// The most body bytes read for this request; 0: HttpClientOptions::max_response_bytes.
    std::size_t max_response_bytes = 0;
    /// What sets that limit, for the TooLarge error: the option to raise ("fetch-content.max-size")
    /// or whose fixed limit it is. Empty: HttpClientOptions::response_limit_name.
    std::string response_limit_name;
};

struct HttpResponse {
    int status = 0;
    Headers headers;
    std::string body;

    std::string header(std::string_view name) const { return headers.get(name); }
};

/// A transport failure: no HTTP response was received. The URL never carries the query string.
class HttpError : public std::runtime_error {
  public:
    /// TooLarge: the response's header or body exceeds its limit (limit() bytes); never retried.
    enum class Kind { InvalidUrl, Resolve, Connect, Tls, Timeout, Reset, Protocol, TooLarge };
    HttpError(Kind kind, std::string url, const std::string& detail, std::size_t limit = 0);
    Kind kind() const { return kind_; }
    const std::string& url() const { return url_; }
    /// The limit exceeded (TooLarge), in bytes; 0 otherwise.
    std::size_t limit() const { return limit_; }

  private:
    Kind kind_;
    std::string url_;
    std::size_t limit_;
};

const char* to_string(HttpError::Kind kind);

/// What the client reports about each request it completes or fails (HttpClientOptions::observer).
struct HttpObservation {
    std::string_view method;
    std::string_view endpoint;  // HttpRequest::endpoint, or the URL's path (never the query)
    int status = 0;             // the response's status; 0 when the request failed
    std::optional<HttpError::Kind> error;  // set when the request failed
    std::chrono::nanoseconds elapsed{0};
};

struct HttpClientOptions {
    bool verify_tls = true;
    std::size_t max_idle_per_origin = 16;
    std::chrono::milliseconds idle_timeout{50'000};  // pooled connections idle this long close
    /// Bounds connecting alone (resolve, TCP connect, TLS handshake); the request's timeout then
    /// runs from the moment the connection is ready. 0: the request's timeout covers connecting.
    std::chrono::milliseconds connect_timeout{0};
    /// A connection this old (since it was opened) is closed instead of reused. 0: no limit.
    std::chrono::milliseconds max_connection_lifetime{0};
    /// A pooled connection idle this long is checked before reuse (closed by the peer, or bytes
    /// nobody asked for: it is closed and another one taken). 0: never checked (a connection the
    /// peer closed is still replaced once, when the request on it fails before any answer).
    std::chrono::milliseconds validate_after_inactivity{0};
    /// Connections open at once, in use or pooled: in all, and per origin. 0: unlimited. A request
    /// that finds every one busy waits for one within its timeout; `pool_limit_name` names the
    /// setting that raises the limit in that timeout's error.
    std::size_t max_connections = 0;
    std::size_t max_connections_per_origin = 0;
    std::string pool_limit_name = "the HTTP client's connection limit";
    /// The default body limit of a request (HttpRequest::max_response_bytes overrides it): what a
    /// connector's API answers may hold, with room to spare. Each one in flight may hold this much.
    std::size_t max_response_bytes = 8ULL << 20;
    /// Names that limit in the TooLarge error (see HttpRequest::response_limit_name).
    std::string response_limit_name = "the HTTP client's default limit";
    /// Status line and header fields together; a fixed limit (real answers hold a few KiB).
    std::size_t max_header_bytes = 64 * 1024;
    std::string user_agent = "cdcd/0.1";
    /// Called on the event loop once per send(), after the response or the failure (metrics:
    /// see metrics/http_observer.h). Must not throw.
    std::function<void(const HttpObservation&)> observer;
};

class HttpClient {
  public:
    explicit HttpClient(boost::asio::io_context& io, HttpClientOptions options = {});
    ~HttpClient();
    HttpClient(const HttpClient&) = delete;
    HttpClient& operator=(const HttpClient&) = delete;

    /// Sends one request on a pooled (or new) connection. Any HTTP status is a response; only
    /// transport failures throw HttpError. A stale pooled connection is replaced transparently.
    boost::asio::awaitable<HttpResponse> send(HttpRequest request);

    /// Connections opened so far (for tests and metrics).
    std::size_t connections_opened() const;
    /// Idle connections in the pool now.
    std::size_t idle_connections() const;
    /// Connections open now (in use or pooled).
    std::size_t open_connections() const;
    /// Pooled connections closed because validation found them closed by the peer (or unusable).
    std::size_t stale_connections_closed() const;
    /// Closes every pooled connection idle for `idle` or longer, and those older than
    /// max_connection_lifetime (an idle-connection evictor calls this periodically).
    void close_idle(std::chrono::milliseconds idle);

    struct Impl;

  private:
    static boost::asio::awaitable<HttpResponse> send_request(std::shared_ptr<Impl> impl,
                                                             HttpRequest request);
    std::shared_ptr<Impl> impl_;
};

}  // namespace cdcd::net
