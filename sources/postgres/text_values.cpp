#include "sources/postgres/text_values.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "pipeline/data/temporal.h"
#include "pipeline/data/values.h"

namespace cdcd::postgres {

namespace {

template <typename T>
std::optional<T> whole_number(std::string_view text) {
    T v{};
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || p != text.data() + text.size() || text.empty()) return std::nullopt;
    return v;
}

std::optional<double> floating(std::string_view text) {
    if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (text == "Infinity") return std::numeric_limits<double>::infinity();
    if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
    if (text.empty()) return std::nullopt;
    // strtod needs a NUL-terminated string; values are short.
    std::string copy(text);
    char* end = nullptr;
    const double v = std::strtod(copy.c_str(), &end);
    if (end != copy.c_str() + copy.size()) return std::nullopt;
    return v;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/// bytea_output hex: `\x` and two hex digits per byte.
std::optional<std::string> bytea_hex(std::string_view text) {
    if (text.size() < 2 || text[0] != '\\' || text[1] != 'x' || text.size() % 2 != 0)
        return std::nullopt;
    std::string out;
    out.reserve((text.size() - 2) / 2);
    for (std::size_t i = 2; i < text.size(); i += 2) {
        const int hi = hex_digit(text[i]), lo = hex_digit(text[i + 1]);
        if (hi < 0 || lo < 0) return std::nullopt;
        out.push_back(static_cast<char>(hi * 16 + lo));
    }
    return out;
}

/// timestamptz under TimeZone UTC: `2024-01-15 10:15:30.5+00`; other zones' offsets
/// (`+05:30`, `-03`, `+05:53:28`) are applied too.
std::optional<Timestamp> timestamp_with_offset(std::string_view text) {
    // The offset's sign comes after the time of day, which starts after the date's space.
    const std::size_t space = text.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    const std::size_t sign = text.find_first_of("+-", space);
    if (sign == std::string_view::npos) return std::nullopt;
    auto local = temporal::parse_timestamp(text.substr(0, sign));
    if (!local) return std::nullopt;
    std::string_view offset = text.substr(sign + 1);
    std::int64_t seconds = 0;
    int part = 0;
    while (!offset.empty() && part < 3) {
        if (offset.size() < 2) return std::nullopt;
        auto n = whole_number<int>(offset.substr(0, 2));
        if (!n) return std::nullopt;
        seconds += static_cast<std::int64_t>(*n) * (part == 0 ? 3600 : part == 1 ? 60 : 1);
        offset.remove_prefix(2);
        ++part;
        if (!offset.empty()) {
            if (offset[0] != ':') return std::nullopt;
            offset.remove_prefix(1);
        }
    }
    if (part == 0 || !offset.empty()) return std::nullopt;
    if (text[sign] == '-') seconds = -seconds;
    local->millis -= seconds * 1000;
    return local;
}

std::string not_a(std::string_view what, std::string_view text) {
    constexpr std::size_t kShown = 64;  // a value in an error text is cut here
    std::string shown(text.substr(0, kShown));
    if (text.size() > kShown) shown += "...";
    return "'" + shown + "' is not " + std::string(what);
}

}  // namespace

std::optional<std::string> set_text_value(RowBuilder& row, std::size_t index, const DataType& type,
                                          std::string_view text) {
    switch (type.root()) {
        case TypeRoot::Boolean:
            // bool prints t/f; bit(1) prints 1/0.
            if (text == "t" || text == "1") {
                row.set_bool(index, true);
            } else if (text == "f" || text == "0") {
                row.set_bool(index, false);
            } else {
                return not_a("a boolean", text);
            }
            return std::nullopt;
        case TypeRoot::TinyInt:
        case TypeRoot::SmallInt:
        case TypeRoot::Int:
        case TypeRoot::BigInt: {
            auto v = whole_number<std::int64_t>(text);
            if (!v) return not_a("a whole number", text);
            row.set_long(index, *v);
            return std::nullopt;
        }
        case TypeRoot::Float:
        case TypeRoot::Double: {
            auto v = floating(text);
            if (!v) return not_a("a floating-point number", text);
            row.set_double(index, type.root() == TypeRoot::Float
                                      ? static_cast<double>(static_cast<float>(*v))
                                      : *v);
            return std::nullopt;
        }
        case TypeRoot::Decimal: {
            if (text == "NaN" || text == "Infinity" || text == "-Infinity")
                return "numeric " + std::string(text) + " has no DECIMAL value";
            Decimal d;
            if (!Decimal::parse(text, type.scale(), d))
                return not_a("a DECIMAL(" + std::to_string(type.precision()) + ", " +
                                 std::to_string(type.scale()) + ")",
                             text);
            row.set_decimal(index, d);
            return std::nullopt;
        }
        case TypeRoot::Char:
        case TypeRoot::Varchar:
            row.set_string(index, text);
            return std::nullopt;
        case TypeRoot::Binary:
        case TypeRoot::Varbinary: {
            auto bytes = bytea_hex(text);
            if (!bytes) return not_a("bytea in hex output", text);
            row.set_bytes(index, *bytes);
            return std::nullopt;
        }
        case TypeRoot::Date: {
            auto days = temporal::parse_date(text);
            if (!days) return not_a("a date (yyyy-MM-dd; infinity and BC dates are refused)", text);
            row.set_long(index, *days);
            return std::nullopt;
        }
        case TypeRoot::Time: {
            // PostgreSQL allows 24:00:00, the end of the day.
            if (text.substr(0, 8) == "24:00:00") {
                row.set_long(index, temporal::kNanosPerDay);
                return std::nullopt;
            }
            auto nanos = temporal::parse_time(text);
            if (!nanos) return not_a("a time of day", text);
            row.set_long(index, *nanos);
            return std::nullopt;
        }
        case TypeRoot::Timestamp: {
            auto ts = temporal::parse_timestamp(text);
            if (!ts) return not_a("a timestamp (infinity and BC are refused)", text);
            row.set_timestamp(index, *ts);
            return std::nullopt;
        }
        case TypeRoot::TimestampLtz: {
            auto ts = timestamp_with_offset(text);
            if (!ts) return not_a("a timestamp with time zone (infinity and BC are refused)", text);
            row.set_timestamp(index, *ts);
            return std::nullopt;
        }
        default:
            return "no text conversion to " + type.to_string();
    }
}

}  // namespace cdcd::postgres
