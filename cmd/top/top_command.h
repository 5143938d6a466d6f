#pragma once
// `cdcd top [ADDRESS ...] [--interval D] [--once]`: a live view of running daemons' admin
// endpoints, refreshed every interval, 80 columns or the terminal's width; q quits. Without a
// terminal (or with --once) it prints one frame, rates measured over one interval, and exits.
#include <chrono>
#include <string>
#include <vector>

#include "cmd/top/top_view.h"

namespace cdcd::top {

struct TopOptions {
    std::vector<std::string> addresses;  // empty: 127.0.0.1:8081 (docs/operations.md)
    std::chrono::milliseconds interval{1000};
    bool once = false;
};

/// The screen's lines for these scrapes: a header, then each daemon's part (top_view.h).
std::vector<std::string> frame_lines(const std::vector<Scrape>& now,
                                     const std::vector<Scrape>& before, const TopOptions& options,
                                     std::size_t width);

/// Returns the exit status: 0, or 1 when --once found no daemon readable.
int top_command(TopOptions options);

}  // namespace cdcd::top
