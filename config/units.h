// Flink-style durations and memory sizes.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cdcd::config {

// Parse a duration the way Flink's TimeUtils.parseDuration does, plus ISO-8601:
//   "10s", "10 s", "1min", "500 ms", "2 h", "1d", "PT10S", "PT1M30.5S", "P1DT2H".
// A plain number is milliseconds. Units (case-insensitive): ms/milli/millis/millisecond(s),
// s/sec/secs/second(s), m/min/mins/minute(s), h/hour(s), d/day(s).
// On failure returns nullopt and, if error is given, stores a short reason.
std::optional<std::chrono::milliseconds> parse_duration(std::string_view text,
                                                        std::string* error = nullptr);

// Parse a memory size the way Flink's MemorySize.parse does (binary units, case-insensitive):
//   "1024" (bytes), "512k", "64mb", "1 gb", "2t"; units b/bytes, k/kb/kibibytes, m/mb/mebibytes,
//   g/gb/gibibytes, t/tb/tebibytes. Returns bytes.
std::optional<std::uint64_t> parse_memory_size(std::string_view text, std::string* error = nullptr);

// "3min", "10s", "1500ms": the shortest exact rendering of a duration.
std::string format_duration(std::chrono::milliseconds d);

}  // namespace cdcd::config
