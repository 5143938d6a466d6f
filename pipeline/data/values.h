#pragma once
// Scalar value representations that do not fit a machine word as-is.
#include <cstdint>
#include <string>

namespace cdcd {

/// DECIMAL(p, s): unscaled integer; the precision and scale come from the column's type.
struct Decimal {
    __int128 unscaled = 0;
    friend bool operator==(const Decimal&, const Decimal&) = default;
    /// Plain notation at the given scale: 7.123, -0.50, 12.
    std::string to_string(int scale) const;
    /// Parses "12.5", "-0.001", "1e3"; rescales (HALF_UP) to `scale`. False on bad text or
    /// overflow.
    static bool parse(std::string_view text, int scale, Decimal& out);
};

/// TIMESTAMP and TIMESTAMP_LTZ: milliseconds since the epoch and the nanoseconds within that
/// millisecond (Flink's TimestampData / LocalZonedTimestampData). For TIMESTAMP the epoch is read
/// as a wall-clock time with no zone.
struct Timestamp {
    std::int64_t millis = 0;
    std::int32_t nanos_of_milli = 0;
    friend bool operator==(const Timestamp&, const Timestamp&) = default;
    friend auto operator<=>(const Timestamp&, const Timestamp&) = default;
};

/// TIMESTAMP_TZ: an instant and the UTC offset it was written with.
struct ZonedTimestamp {
    Timestamp instant;
    std::int32_t offset_seconds = 0;
    friend bool operator==(const ZonedTimestamp&, const ZonedTimestamp&) = default;
};

}  // namespace cdcd
