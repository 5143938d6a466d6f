#pragma once
// Reads /metrics of each daemon `cdcd top` watches, all at once, each within a timeout; a daemon
// that cannot be read is reported as such (its Scrape's error), never an exception.
#include <chrono>
#include <string>
#include <vector>

#include "cmd/top/top_view.h"

namespace cdcd::top {

/// The URL of a daemon's /metrics from what the user typed: PORT, HOST:PORT, [IPv6]:PORT (as
/// --admin-address takes them, loopback when no host), or an http:// URL (/metrics when it has
/// no path). Throws std::invalid_argument naming the problem.
std::string metrics_url(const std::string& address);

/// One scrape of every daemon, in `addresses` order (the addresses as the user typed them).
std::vector<Scrape> scrape_all(const std::vector<std::string>& addresses,
                               std::chrono::milliseconds timeout);

}  // namespace cdcd::top
