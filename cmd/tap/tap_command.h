#pragma once
// `cdcd tap [ADDRESS] [--point P] [--table SELECTOR] [--rate N] [--limit N]`: prints, as JSON
// lines on stdout, the events a running daemon's /tap samples at one point of its pipeline.
#include <cstdint>
#include <string>

namespace cdcd::tap {

struct TapOptions {
    std::string address;  // empty: 127.0.0.1:8081 (docs/operations.md)
    std::string point = "transform";
    std::string table;        // a table selector; empty: every table
    std::uint32_t rate = 0;   // 0: the daemon's default
    std::uint64_t limit = 0;  // 0: until interrupted or the daemon goes
};

/// The URL of GET /tap for these options: the address as --admin-address takes it (PORT,
/// HOST:PORT, [IPv6]:PORT) or an http:// URL of the endpoint; the query percent-encoded. Throws
/// std::invalid_argument naming a bad address.
std::string tap_url(const TapOptions& options);

/// Returns the exit status: 0 once the limit was printed or the daemon closed the stream, 1 when
/// it cannot be reached or refuses (the reason on stderr).
int tap_command(const TapOptions& options);

}  // namespace cdcd::tap
