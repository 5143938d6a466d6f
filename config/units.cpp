#include "config/units.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <utility>

#include "text/ascii.h"

namespace cdcd::config {

namespace {

// What values with units are trimmed of.
constexpr std::string_view kBlank = " \t\r\n";

void set_error(std::string* error, std::string msg) {
    if (error) {
        *error = std::move(msg);
    }
}

// Leading decimal digits as an unsigned value; false when there are none or on overflow
// (then *overflow is set).
bool take_digits(std::string_view& s, std::uint64_t& value, bool* overflow = nullptr) {
    std::size_t n = 0;
    value = 0;
    while (n < s.size() && std::isdigit(static_cast<unsigned char>(s[n]))) {
        std::uint64_t digit = static_cast<std::uint64_t>(s[n] - '0');
        if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
            if (overflow) {
                *overflow = true;
            }
            return false;
        }
        value = value * 10 + digit;
        ++n;
    }
    s.remove_prefix(n);
    return n > 0;
}

bool mul_add(std::uint64_t& acc, std::uint64_t value, std::uint64_t factor) {
    if (factor != 0 && value > std::numeric_limits<std::uint64_t>::max() / factor) {
        return false;
    }
    std::uint64_t add = value * factor;
    if (acc > std::numeric_limits<std::uint64_t>::max() - add) {
        return false;
    }
    acc += add;
    return true;
}

constexpr std::int64_t kMaxMillis = std::numeric_limits<std::int64_t>::max();

std::optional<std::chrono::milliseconds> parse_iso_duration(std::string_view s,
                                                            std::string* error) {
    // s is upper-cased, starts with 'P'. Grammar: P[nD][T[nH][nM][n[.fff]S]]
    const std::string bad = "invalid ISO-8601 duration (expected e.g. PT10S, PT1M30S, P1DT2H)";
    s.remove_prefix(1);
    std::uint64_t total = 0;
    bool any = false;
    bool in_time = false;
    char last = 0;  // order check: D < H < M < S
    auto rank = [](char c) { return c == 'D' ? 1 : c == 'H' ? 2 : c == 'M' ? 3 : 4; };
    while (!s.empty()) {
        if (s[0] == 'T') {
            if (in_time) {
                set_error(error, bad);
                return std::nullopt;
            }
            in_time = true;
            s.remove_prefix(1);
            if (s.empty()) {
                set_error(error, bad);
                return std::nullopt;
            }
            continue;
        }
        std::uint64_t value = 0;
        if (!take_digits(s, value)) {
            set_error(error, bad);
            return std::nullopt;
        }
        std::uint64_t fraction_ms = 0;
        bool has_fraction = false;
        if (!s.empty() && (s[0] == '.' || s[0] == ',')) {
            s.remove_prefix(1);
            std::size_t n = 0;
            std::uint64_t scale = 100;
            while (n < s.size() && std::isdigit(static_cast<unsigned char>(s[n]))) {
                fraction_ms += static_cast<std::uint64_t>(s[n] - '0') * scale;
                scale /= 10;
                ++n;
            }
            if (n == 0) {
                set_error(error, bad);
                return std::nullopt;
            }
            has_fraction = true;
            s.remove_prefix(n);
        }
        if (s.empty()) {
            set_error(error, bad);
            return std::nullopt;
        }
        char unit = s[0];
        s.remove_prefix(1);
        std::uint64_t factor = 0;
        if (unit == 'D' && !in_time) {
            factor = 86'400'000;
        } else if (unit == 'H' && in_time) {
            factor = 3'600'000;
        } else if (unit == 'M' && in_time) {
            factor = 60'000;
        } else if (unit == 'S' && in_time) {
            factor = 1'000;
        }
        if (factor == 0 || (has_fraction && unit != 'S') || (last && rank(unit) <= rank(last))) {
            set_error(error, bad);
            return std::nullopt;
        }
        last = unit;
        if (!mul_add(total, value, factor) || !mul_add(total, fraction_ms, 1)) {
            set_error(error, "duration is too large");
            return std::nullopt;
        }
        any = true;
    }
    if (!any || total > static_cast<std::uint64_t>(kMaxMillis)) {
        set_error(error, any ? "duration is too large" : bad);
        return std::nullopt;
    }
    return std::chrono::milliseconds(static_cast<std::int64_t>(total));
}

struct Unit {
    std::string_view name;
    std::uint64_t factor;
};

constexpr std::array<Unit, 21> kDurationUnits{{
    {"ms", 1},          {"milli", 1},        {"millis", 1},
    {"millisecond", 1}, {"milliseconds", 1}, {"s", 1000},
    {"sec", 1000},      {"secs", 1000},      {"second", 1000},
    {"seconds", 1000},  {"m", 60'000},       {"min", 60'000},
    {"mins", 60'000},   {"minute", 60'000},  {"minutes", 60'000},
    {"h", 3'600'000},   {"hour", 3'600'000}, {"hours", 3'600'000},
    {"d", 86'400'000},  {"day", 86'400'000}, {"days", 86'400'000},
}};

constexpr std::array<Unit, 15> kMemoryUnits{{
    {"b", 1},
    {"bytes", 1},
    {"k", 1ULL << 10},
    {"kb", 1ULL << 10},
    {"kibibytes", 1ULL << 10},
    {"m", 1ULL << 20},
    {"mb", 1ULL << 20},
    {"mebibytes", 1ULL << 20},
    {"g", 1ULL << 30},
    {"gb", 1ULL << 30},
    {"gibibytes", 1ULL << 30},
    {"t", 1ULL << 40},
    {"tb", 1ULL << 40},
    {"tebibytes", 1ULL << 40},
    {"byte", 1},
}};

template <std::size_t N>
std::optional<std::uint64_t> parse_number_with_unit(std::string_view text,
                                                    const std::array<Unit, N>& units,
                                                    std::string_view what, std::string_view hint,
                                                    std::string* error) {
    std::string_view s = ascii::trim(text, kBlank);
    if (s.empty()) {
        set_error(error, std::string(what) + " is empty");
        return std::nullopt;
    }
    std::uint64_t value = 0;
    bool overflow = false;
    if (!take_digits(s, value, &overflow)) {
        if (overflow) {
            set_error(error, std::string(what) + " is too large");
            return std::nullopt;
        }
        set_error(error, std::string(what) + " must start with a whole number (" +
                             std::string(hint) + ")");
        return std::nullopt;
    }
    std::string unit = ascii::to_lower(ascii::trim(s, kBlank));
    if (unit.empty()) {
        return value;
    }
    for (const auto& u : units) {
        if (u.name == unit) {
            std::uint64_t out = 0;
            if (!mul_add(out, value, u.factor)) {
                set_error(error, std::string(what) + " is too large");
                return std::nullopt;
            }
            return out;
        }
    }
    set_error(error, "unknown unit `" + std::string(ascii::trim(s, kBlank)) + "` (" +
                         std::string(hint) + ")");
    return std::nullopt;
}

}  // namespace

std::optional<std::chrono::milliseconds> parse_duration(std::string_view text, std::string* error) {
    std::string_view s = ascii::trim(text, kBlank);
    if (!s.empty() && (s[0] == 'P' || s[0] == 'p')) {
        std::string upper(s);
        std::transform(upper.begin(), upper.end(), upper.begin(),
                       [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
        return parse_iso_duration(upper, error);
    }
    auto ms = parse_number_with_unit(
        s, kDurationUnits, "duration",
        "use e.g. 500ms, 10s, 5min, 2h, 1d, PT10S; a plain number is milliseconds", error);
    if (!ms) {
        return std::nullopt;
    }
    if (*ms > static_cast<std::uint64_t>(kMaxMillis)) {
        set_error(error, "duration is too large");
        return std::nullopt;
    }
    return std::chrono::milliseconds(static_cast<std::int64_t>(*ms));
}

std::optional<std::uint64_t> parse_memory_size(std::string_view text, std::string* error) {
    return parse_number_with_unit(text, kMemoryUnits, "memory size",
                                  "use e.g. 1024 (bytes), 512k, 64mb, 1gb, 2t", error);
}

std::string format_duration(std::chrono::milliseconds d) {
    const std::int64_t ms = d.count();
    static constexpr std::array<std::pair<std::int64_t, std::string_view>, 4> kUnits{
        {{86'400'000, "d"}, {3'600'000, "h"}, {60'000, "min"}, {1'000, "s"}}};
    if (ms != 0) {
        for (const auto& [factor, name] : kUnits) {
            if (ms % factor == 0) {
                return std::to_string(ms / factor) + std::string(name);
            }
        }
    }
    return std::to_string(ms) + "ms";
}

}  // namespace cdcd::config
