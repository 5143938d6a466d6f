#pragma once
// `--admin-address` / `pipeline.admin.address`: HOST:PORT, [IPv6]:PORT, :PORT or PORT. Without a
// host the endpoint listens on loopback (127.0.0.1) only.
#include <cstdint>
#include <string>
#include <string_view>

namespace cdcd::admin {

struct Address {
    std::string host = "127.0.0.1";
    std::uint16_t port = 0;  // 0: any free port (logged at start)

    /// host:port, with brackets around an IPv6 host.
    std::string to_string() const;
};

/// Throws std::invalid_argument naming the problem.
Address parse_address(std::string_view text);

/// For a client of a daemon's admin endpoint (cdcd top, cdcd tap): `address` is an
/// --admin-address (PORT, HOST:PORT, [IPv6]:PORT) or an http:// URL. Returns "http://HOST:PORT";
/// `path` (when given) gets what a URL had after it ("" otherwise). Throws std::invalid_argument
/// naming the problem (https, no host, port 0).
std::string endpoint_base_url(std::string_view address, std::string* path = nullptr);

}  // namespace cdcd::admin
