#pragma once
// URL parsing for the HTTP client (http/https only) and RFC 3986 percent-encoding.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cdcd::net {

struct Url {
    std::string scheme;  // "http" or "https", lower case
    std::string host;    // without brackets for IPv6 literals
    std::uint16_t port = 0;
    std::string path = "/";  // as written (already encoded), never empty
    std::string query;       // after '?', without it; empty when absent

    bool tls() const { return scheme == "https"; }
    /// "path?query", what goes on the request line.
    std::string target() const;
    /// "scheme://host:port", the connection pool key.
    std::string origin() const;
    /// The URL without its query string (which may hold secrets), for messages.
    std::string redacted() const;
};

/// Parses "http(s)://host[:port][/path][?query]" (fragment dropped). nullopt with *error set on
/// anything else.
std::optional<Url> parse_url(std::string_view text, std::string* error = nullptr);

/// Percent-encodes everything but RFC 3986 unreserved characters (A-Z a-z 0-9 - . _ ~), with
/// upper-case hex; `keep_slash` also leaves '/' alone (for paths).
std::string percent_encode(std::string_view text, bool keep_slash = false);
/// Decodes %XX escapes (and nothing else: '+' stays '+'). Invalid escapes are kept verbatim.
std::string percent_decode(std::string_view text);

/// "a=1&b=x%20y" from pairs, each key and value percent-encoded.
std::string build_query(const std::vector<std::pair<std::string, std::string>>& params);

}  // namespace cdcd::net
