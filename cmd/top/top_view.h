#pragma once
// What `cdcd top` shows of one daemon, from two scrapes of its /metrics: the lines of its part of
// the screen, each cut to the terminal's width. Pure functions of the samples, so the screen can
// be tested line by line without a terminal.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "cmd/top/prometheus_text.h"

namespace cdcd::top {

struct Scrape {
    std::string address;               // as the user gave it
    std::optional<std::string> error;  // why /metrics could not be read; samples are then empty
    std::vector<Sample> samples;
    double at = 0;    // steady-clock seconds when it was read (rates)
    double wall = 0;  // Unix seconds when it was read (uptime, checkpoint age)
};

/// One daemon's lines: a title (pipeline, address, readiness, uptime, CPU, memory), then events
/// per second in and out of each stage, the checkpoint, failures and bad records, the lag per
/// source partition and the progress of long phases. Rates need `before` (the previous scrape of
/// the same daemon); without it they show as "-".
std::vector<std::string> daemon_lines(const Scrape& now, const Scrape* before, std::size_t width);

/// 1234567 → "1,234,567" (negative and fractional values rounded toward zero).
std::string grouped(double value);
/// Seconds → "45s", "3m07s", "2h05m", "3d04h"; "-" for a negative or non-finite value.
std::string span(double seconds);
/// Bytes → "512 B", "1.5 kB", "26 MB", "3.2 GB" (powers of 1000, as the metric's unit says).
std::string bytes(double value);
/// `text` cut to `width` columns (counted in UTF-8 code points), padded with nothing.
std::string fit(const std::string& text, std::size_t width);

}  // namespace cdcd::top
