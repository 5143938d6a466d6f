#pragma once
// Calendar arithmetic (proleptic Gregorian, like java.time) and ISO-8601 rendering.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "pipeline/data/values.h"

namespace cdcd::temporal {

struct CivilDate {
    std::int64_t year;
    unsigned month;  // 1..12
    unsigned day;    // 1..31
};

std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d);
CivilDate civil_from_days(std::int64_t days);

constexpr std::int64_t kNanosPerDay = 86'400'000'000'000LL;
constexpr std::int64_t kMillisPerDay = 86'400'000LL;

/// floor division, for negative epochs
inline std::int64_t floor_div(std::int64_t a, std::int64_t b) {
    std::int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
/// floor modulo; from the remainder, so that it cannot overflow (a - floor_div(a, b) * b does for
/// a = INT64_MIN)
inline std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
    std::int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

/// java.time.LocalDate.toString(): 2023-01-01
std::string format_date(std::int64_t epoch_days);
/// java.time.LocalTime.toString(): 10:15, 10:15:30, 10:15:30.120 (fraction in groups of 3)
std::string format_time(std::int64_t nanos_of_day);
/// java.time.LocalDateTime.toString(): 2023-01-01T10:15 / 2023-01-01T10:15:30.5 → ...30.500
std::string format_local_date_time(Timestamp ts);
/// java.time.Instant.toString(): 2023-01-01T00:00:00Z (seconds always, fraction in groups of 3)
std::string format_instant(Timestamp ts);
/// SQL-style rendering used by Flink's JSON formats: 2023-01-01 00:00:00[.fraction]
std::string format_sql_timestamp(Timestamp ts, int precision);
/// OffsetDateTime-style: 2023-01-01T00:00:00+08:00
std::string format_offset_date_time(ZonedTimestamp ts);
/// DateTimeFormatter.ISO_OFFSET_DATE_TIME (Flink CDC's ZonedTimestampData.toString): seconds
/// always, the fraction without trailing zeros: 2023-01-01T00:00:00.5+08:00, ...T00:00Z → :00Z
std::string format_iso_offset_date_time(ZonedTimestamp ts);

/// The same texts written into a caller's buffer (no allocation: JSON serializers write millions),
/// returning the end; `out` needs kMaxTemporalText bytes.
constexpr std::size_t kMaxTemporalText = 64;
char* write_date(char* out, std::int64_t epoch_days);
/// format_sql_timestamp's text with `separator` between date and time (' ', or 'T' for ISO-8601).
char* write_sql_timestamp(char* out, Timestamp ts, int precision, char separator = ' ');

/// Parses `yyyy-MM-dd`.
std::optional<std::int64_t> parse_date(std::string_view text);
/// Parses `HH:mm[:ss[.fffffffff]]` into nanos of day.
std::optional<std::int64_t> parse_time(std::string_view text);
/// Parses `yyyy-MM-dd[( |T)HH:mm[:ss[.fffffffff]]]` as a zone-less wall-clock timestamp; a
/// trailing `Z` or `±HH:mm` offset, when present, is applied (the result is then UTC).
std::optional<Timestamp> parse_timestamp(std::string_view text);

}  // namespace cdcd::temporal
