#include "pipeline/data/temporal.h"

#include "pipeline/util/integer_text.h"

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

namespace {

// Digits are written straight into the buffer (write_fixed_digits, two a step; write_int64):
// these run per row (CAST to STRING, JSON, printing), where snprintf's format parsing and a
// division a digit cost more than the conversion.

// yyyy-MM-dd; a year outside 0..9999 with its sign, at least four digits, as Java's LocalDate and
// ISO_LOCAL_DATE print it: -0001-01-01, +10000-01-01.
char* put_date(char* p, std::int64_t epoch_days) {
    CivilDate c = civil_from_days(epoch_days);
    if (c.year >= 0 && c.year <= 9999) {
        p = write_fixed_digits(p, static_cast<std::uint64_t>(c.year), 4);
    } else if (c.year < 0) {
        *p++ = '-';
        auto abs_year = static_cast<std::uint64_t>(-c.year);
        p = abs_year <= 9999 ? write_fixed_digits(p, abs_year, 4)
                             : write_int64(p, static_cast<std::int64_t>(abs_year));
    } else {
        *p++ = '+';
        p = write_int64(p, c.year);
    }
    *p++ = '-';
    p = write_fixed_digits(p, c.month, 2);
    *p++ = '-';
    return write_fixed_digits(p, c.day, 2);
}

// Java prints fractions in groups of three digits: .5 → .500, .000001 → .000001
char* put_fraction_groups(char* p, std::int64_t nanos) {
    if (nanos == 0) return p;
    *p++ = '.';
    if (nanos % 1'000'000 == 0)
        return write_fixed_digits(p, static_cast<std::uint64_t>(nanos / 1'000'000), 3);
    if (nanos % 1'000 == 0)
        return write_fixed_digits(p, static_cast<std::uint64_t>(nanos / 1'000), 6);
    return write_fixed_digits(p, static_cast<std::uint64_t>(nanos), 9);
}

char* put_hh_mm_ss(char* p, std::int64_t nanos_of_day, bool always_seconds) {
    std::int64_t secs = nanos_of_day / 1'000'000'000;
    std::int64_t nanos = nanos_of_day % 1'000'000'000;
    p = write_fixed_digits(p, static_cast<std::uint64_t>(secs / 3600), 2);
    *p++ = ':';
    p = write_fixed_digits(p, static_cast<std::uint64_t>(secs / 60 % 60), 2);
    if (always_seconds || secs % 60 != 0 || nanos != 0) {
        *p++ = ':';
        p = write_fixed_digits(p, static_cast<std::uint64_t>(secs % 60), 2);
        p = put_fraction_groups(p, nanos);
    }
    return p;
}

void split(Timestamp ts, std::int64_t& days, std::int64_t& nanos_of_day) {
    days = floor_div(ts.millis, kMillisPerDay);
    nanos_of_day = floor_mod(ts.millis, kMillisPerDay) * 1'000'000 + ts.nanos_of_milli;
}

// Room for the longest text: a 20-digit signed year, time, nine fraction digits and an offset.
constexpr std::size_t kMaxText = kMaxTemporalText;

}  // namespace

char* write_date(char* out, std::int64_t epoch_days) {
    return put_date(out, epoch_days);
}

std::string format_date(std::int64_t epoch_days) {
    char buf[kMaxText];
    return std::string(buf, put_date(buf, epoch_days));
}

std::string format_time(std::int64_t nanos_of_day) {
    char buf[kMaxText];
    return std::string(buf, put_hh_mm_ss(buf, nanos_of_day, false));
}

std::string format_local_date_time(Timestamp ts) {
    std::int64_t days, nod;
    split(ts, days, nod);
    char buf[kMaxText];
    char* p = put_date(buf, days);
    *p++ = 'T';
    return std::string(buf, put_hh_mm_ss(p, nod, false));
}

std::string format_instant(Timestamp ts) {
    std::int64_t days, nod;
    split(ts, days, nod);
    char buf[kMaxText];
    char* p = put_date(buf, days);
    *p++ = 'T';
    p = put_hh_mm_ss(p, nod, true);
    *p++ = 'Z';
    return std::string(buf, p);
}

char* write_sql_timestamp(char* out, Timestamp ts, int precision, char separator) {
    std::int64_t days, nod;
    split(ts, days, nod);
    std::int64_t secs = nod / 1'000'000'000;
    std::int64_t nanos = nod % 1'000'000'000;
    char* p = put_date(out, days);
    *p++ = separator;
    p = write_fixed_digits(p, static_cast<std::uint64_t>(secs / 3600), 2);
    *p++ = ':';
    p = write_fixed_digits(p, static_cast<std::uint64_t>(secs / 60 % 60), 2);
    *p++ = ':';
    p = write_fixed_digits(p, static_cast<std::uint64_t>(secs % 60), 2);
    if (nanos != 0 && precision > 0) {
        // The fraction cut to `precision` digits, without trailing zeros.
        char frac[9];
        write_fixed_digits(frac, static_cast<std::uint64_t>(nanos), 9);
        int n = precision > 9 ? 9 : precision;
        while (n > 0 && frac[n - 1] == '0') --n;
        if (n > 0) {
            *p++ = '.';
            for (int i = 0; i < n; ++i) *p++ = frac[i];
        }
    }
    return p;
}

std::string format_sql_timestamp(Timestamp ts, int precision) {
    char buf[kMaxText];
    return std::string(buf, write_sql_timestamp(buf, ts, precision));
}

std::string format_offset_date_time(ZonedTimestamp ts) {
    Timestamp local{ts.instant.millis + static_cast<std::int64_t>(ts.offset_seconds) * 1000,
                    ts.instant.nanos_of_milli};
    std::int64_t days, nod;
    split(local, days, nod);
    char buf[kMaxText];
    char* p = put_date(buf, days);
    *p++ = 'T';
    p = put_hh_mm_ss(p, nod, true);
    if (ts.offset_seconds == 0) {
        *p++ = 'Z';
    } else {
        int off = ts.offset_seconds < 0 ? -ts.offset_seconds : ts.offset_seconds;
        *p++ = ts.offset_seconds < 0 ? '-' : '+';
        p = write_fixed_digits(p, static_cast<std::uint64_t>(off / 3600), 2);
        *p++ = ':';
        p = write_fixed_digits(p, static_cast<std::uint64_t>(off / 60 % 60), 2);
    }
    return std::string(buf, p);
}

std::string format_iso_offset_date_time(ZonedTimestamp ts) {
    Timestamp local{ts.instant.millis + static_cast<std::int64_t>(ts.offset_seconds) * 1000,
                    ts.instant.nanos_of_milli};
    std::int64_t days, nod;
    split(local, days, nod);
    std::int64_t secs = nod / 1'000'000'000;
    std::int64_t nanos = nod % 1'000'000'000;
    char buf[kMaxText];
    char* p = put_date(buf, days);
    *p++ = 'T';
    p = write_fixed_digits(p, static_cast<std::uint64_t>(secs / 3600), 2);
    *p++ = ':';
    p = write_fixed_digits(p, static_cast<std::uint64_t>(secs / 60 % 60), 2);
    *p++ = ':';
    p = write_fixed_digits(p, static_cast<std::uint64_t>(secs % 60), 2);
    if (nanos != 0) {
        int width = 9;
        while (nanos % 10 == 0) {
            nanos /= 10;
            --width;
        }
        *p++ = '.';
        p = write_fixed_digits(p, static_cast<std::uint64_t>(nanos), width);
    }
    if (ts.offset_seconds == 0) {
        *p++ = 'Z';
    } else {
        int off = ts.offset_seconds < 0 ? -ts.offset_seconds : ts.offset_seconds;
        *p++ = ts.offset_seconds < 0 ? '-' : '+';
        p = write_fixed_digits(p, static_cast<std::uint64_t>(off / 3600), 2);
        *p++ = ':';
        p = write_fixed_digits(p, static_cast<std::uint64_t>(off / 60 % 60), 2);
        if (off % 60 != 0) {
            *p++ = ':';
            p = write_fixed_digits(p, static_cast<std::uint64_t>(off % 60), 2);
        }
    }
    return std::string(buf, p);
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

namespace {

// The proleptic Gregorian calendar's, as java.time's.
int days_in_month(std::int64_t year, int month) {
    static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    return month == 2 && leap ? 29 : kDays[month - 1];
}

}  // namespace

std::optional<std::int64_t> parse_date(std::string_view s) {
    int y, m, d;
    if (s.size() != 10 || s[4] != '-' || s[7] != '-') return std::nullopt;
    if (!digits(s, 0, 4, y) || !digits(s, 5, 2, m) || !digits(s, 8, 2, d)) return std::nullopt;
    if (m < 1 || m > 12 || d < 1 || d > 31) return std::nullopt;
    if (d > days_in_month(y, m)) return std::nullopt;  // e.g. 02-30
    return days_from_civil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
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
