#include "pipeline/data/temporal.h"

#include <cstdio>

namespace cdcd::temporal {

// Howard Hinnant's civil-from-days algorithms.
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

CivilDate civil_from_days(std::int64_t z) {
    z += 719468;
    const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const auto doe = static_cast<unsigned>(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const std::int64_t y = static_cast<std::int64_t>(yoe) + era * 400;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    const unsigned d = doy - (153 * mp + 2) / 5 + 1;
    const unsigned m = mp < 10 ? mp + 3 : mp - 9;
    return CivilDate{y + (m <= 2), m, d};
}

std::string format_date(std::int64_t epoch_days) {
    CivilDate c = civil_from_days(epoch_days);
    char buf[32];
    if (c.year >= 0 && c.year <= 9999) {
        std::snprintf(buf, sizeof buf, "%04lld-%02u-%02u", static_cast<long long>(c.year), c.month,
                      c.day);
    } else {
        std::snprintf(buf, sizeof buf, "%+lld-%02u-%02u", static_cast<long long>(c.year), c.month,
                      c.day);
    }
    return buf;
}

namespace {

// Java prints fractions in groups of three digits: .5 → .500, .000001 → .000001
void append_fraction_groups(std::string& out, std::int64_t nanos) {
    if (nanos == 0) return;
    char buf[16];
    if (nanos % 1'000'000 == 0) {
        std::snprintf(buf, sizeof buf, ".%03lld", static_cast<long long>(nanos / 1'000'000));
    } else if (nanos % 1'000 == 0) {
        std::snprintf(buf, sizeof buf, ".%06lld", static_cast<long long>(nanos / 1'000));
    } else {
        std::snprintf(buf, sizeof buf, ".%09lld", static_cast<long long>(nanos));
    }
    out += buf;
}

std::string hh_mm_ss(std::int64_t nanos_of_day, bool always_seconds) {
    std::int64_t secs = nanos_of_day / 1'000'000'000;
    std::int64_t nanos = nanos_of_day % 1'000'000'000;
    char buf[16];
    std::snprintf(buf, sizeof buf, "%02lld:%02lld", static_cast<long long>(secs / 3600),
                  static_cast<long long>(secs / 60 % 60));
    std::string out = buf;
    if (always_seconds || secs % 60 != 0 || nanos != 0) {
        std::snprintf(buf, sizeof buf, ":%02lld", static_cast<long long>(secs % 60));
        out += buf;
        append_fraction_groups(out, nanos);
    }
    return out;
}

void split(Timestamp ts, std::int64_t& days, std::int64_t& nanos_of_day) {
    days = floor_div(ts.millis, kMillisPerDay);
    nanos_of_day = floor_mod(ts.millis, kMillisPerDay) * 1'000'000 + ts.nanos_of_milli;
}

}  // namespace

std::string format_time(std::int64_t nanos_of_day) {
    return hh_mm_ss(nanos_of_day, false);
}

std::string format_local_date_time(Timestamp ts) {
    std::int64_t days, nod;
    split(ts, days, nod);
    return format_date(days) + "T" + hh_mm_ss(nod, false);
}

std::string format_instant(Timestamp ts) {
    std::int64_t days, nod;
    split(ts, days, nod);
    return format_date(days) + "T" + hh_mm_ss(nod, true) + "Z";
}

std::string format_sql_timestamp(Timestamp ts, int precision) {
    std::int64_t days, nod;
    split(ts, days, nod);
    std::int64_t secs = nod / 1'000'000'000;
    std::int64_t nanos = nod % 1'000'000'000;
    char buf[48];
    std::snprintf(buf, sizeof buf, "%s %02lld:%02lld:%02lld", format_date(days).c_str(),
                  static_cast<long long>(secs / 3600), static_cast<long long>(secs / 60 % 60),
                  static_cast<long long>(secs % 60));
    std::string out = buf;
    if (nanos != 0 && precision > 0) {
        char frac[16];
        std::snprintf(frac, sizeof frac, "%09lld", static_cast<long long>(nanos));
        std::string f(frac, static_cast<size_t>(precision > 9 ? 9 : precision));
        while (!f.empty() && f.back() == '0') f.pop_back();
        if (!f.empty()) out += "." + f;
    }
    return out;
}

std::string format_offset_date_time(ZonedTimestamp ts) {
    Timestamp local{ts.instant.millis + static_cast<std::int64_t>(ts.offset_seconds) * 1000,
                    ts.instant.nanos_of_milli};
    std::int64_t days, nod;
    split(local, days, nod);
    std::string out = format_date(days) + "T" + hh_mm_ss(nod, true);
    if (ts.offset_seconds == 0) return out + "Z";
    int off = ts.offset_seconds < 0 ? -ts.offset_seconds : ts.offset_seconds;
    char buf[16];
    std::snprintf(buf, sizeof buf, "%c%02d:%02d", ts.offset_seconds < 0 ? '-' : '+', off / 3600,
                  off / 60 % 60);
    return out + buf;
}

namespace {

bool digits(std::string_view s, size_t pos, size_t n, int& out) {
    if (pos + n > s.size()) return false;
    int v = 0;
    for (size_t i = 0; i < n; ++i) {
        char c = s[pos + i];
        if (c < '0' || c > '9') return false;
        v = v * 10 + (c - '0');
    }
    out = v;
    return true;
}

}  // namespace

std::optional<std::int64_t> parse_date(std::string_view s) {
    int y, m, d;
    if (s.size() != 10 || s[4] != '-' || s[7] != '-') return std::nullopt;
    if (!digits(s, 0, 4, y) || !digits(s, 5, 2, m) || !digits(s, 8, 2, d)) return std::nullopt;
    if (m < 1 || m > 12 || d < 1 || d > 31) return std::nullopt;
    std::int64_t days = days_from_civil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
    CivilDate back = civil_from_days(days);
    if (back.day != static_cast<unsigned>(d)) return std::nullopt;  // e.g. 02-30
    return days;
}

std::optional<std::int64_t> parse_time(std::string_view s) {
    int h, mi, sec = 0;
    if (s.size() < 5 || s[2] != ':' || !digits(s, 0, 2, h) || !digits(s, 3, 2, mi))
        return std::nullopt;
    size_t pos = 5;
    std::int64_t nanos = 0;
    if (pos < s.size()) {
        if (s[pos] != ':' || !digits(s, pos + 1, 2, sec)) return std::nullopt;
        pos += 3;
        if (pos < s.size()) {
            if (s[pos] != '.') return std::nullopt;
            ++pos;
            size_t n = 0;
            while (pos < s.size() && n < 9 && s[pos] >= '0' && s[pos] <= '9') {
                nanos = nanos * 10 + (s[pos] - '0');
                ++pos;
                ++n;
            }
            if (n == 0 || pos != s.size()) return std::nullopt;
            for (; n < 9; ++n) nanos *= 10;
        }
    }
    if (h > 23 || mi > 59 || sec > 59) return std::nullopt;
    return (static_cast<std::int64_t>(h) * 3600 + mi * 60 + sec) * 1'000'000'000LL + nanos;
}

std::optional<Timestamp> parse_timestamp(std::string_view s) {
    if (s.size() < 10) return std::nullopt;
    auto days = parse_date(s.substr(0, 10));
    if (!days) return std::nullopt;
    std::int64_t nod = 0;
    std::int64_t offset_seconds = 0;
    if (s.size() > 10) {
        if (s[10] != ' ' && s[10] != 'T') return std::nullopt;
        std::string_view rest = s.substr(11);
        if (!rest.empty() && (rest.back() == 'Z' || rest.back() == 'z')) {
            rest.remove_suffix(1);
        } else if (rest.size() > 6 &&
                   (rest[rest.size() - 6] == '+' || rest[rest.size() - 6] == '-') &&
                   rest[rest.size() - 3] == ':') {
            int oh, om;
            std::string_view off = rest.substr(rest.size() - 6);
            if (!digits(off, 1, 2, oh) || !digits(off, 4, 2, om)) return std::nullopt;
            offset_seconds = (oh * 3600 + om * 60) * (off[0] == '-' ? -1 : 1);
            rest.remove_suffix(6);
        }
        auto t = parse_time(rest);
        if (!t) return std::nullopt;
        nod = *t;
    }
    std::int64_t nanos_total = nod;
    std::int64_t millis = *days * kMillisPerDay + nanos_total / 1'000'000 - offset_seconds * 1000;
    return Timestamp{millis, static_cast<std::int32_t>(nanos_total % 1'000'000)};
}

}  // namespace cdcd::temporal
