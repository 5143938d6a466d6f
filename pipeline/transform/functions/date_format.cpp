#include "pipeline/transform/functions/date_format.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>

#include "pipeline/data/temporal.h"

namespace cdcd::transform {

namespace {

const char* const kMonths[] = {"January",   "February", "March",    "April",
                               "May",       "June",     "July",     "August",
                               "September", "October",  "November", "December"};
const char* const kDays[] = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                             "Friday", "Saturday", "Sunday"};

int iso_dow(std::int64_t epoch_days) {  // 1 = Monday
    return static_cast<int>(temporal::floor_mod(epoch_days + 3, 7)) + 1;
}

void pad(std::string& out, std::int64_t v, int width) {
    char digits[24];
    std::uint64_t magnitude =
        v < 0 ? -static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
    auto r = std::to_chars(digits, digits + sizeof digits, magnitude);
    auto len = static_cast<int>(r.ptr - digits);
    if (v < 0) out.push_back('-');
    if (width > len) out.append(static_cast<std::size_t>(width - len), '0');
    out.append(digits, r.ptr);
}

// Java's week-of-year with Sunday-first weeks and minimalDaysInFirstWeek = 1 (US locale).
int week_of_year(std::int64_t year, std::int64_t epoch_days) {
    std::int64_t jan1 = temporal::days_from_civil(year, 1, 1);
    int jan1_dow = static_cast<int>(temporal::floor_mod(jan1 + 4, 7));  // 0 = Sunday
    std::int64_t doy = epoch_days - jan1;
    int week = static_cast<int>((doy + jan1_dow) / 7) + 1;
    // The last days of December belong to week 1 of the next year when that week starts in
    // December.
    std::int64_t next_jan1 = temporal::days_from_civil(year + 1, 1, 1);
    int next_dow = static_cast<int>(temporal::floor_mod(next_jan1 + 4, 7));
    if (epoch_days >= next_jan1 - next_dow) return 1;
    return week;
}

}  // namespace

LocalFields fields_of(std::int64_t local_millis, std::int32_t nanos_of_milli) {
    LocalFields f;
    std::int64_t days = temporal::floor_div(local_millis, temporal::kMillisPerDay);
    std::int64_t ms = temporal::floor_mod(local_millis, temporal::kMillisPerDay);
    auto c = temporal::civil_from_days(days);
    f.year = c.year;
    f.month = static_cast<int>(c.month);
    f.day = static_cast<int>(c.day);
    f.hour = static_cast<int>(ms / 3600000);
    f.minute = static_cast<int>(ms / 60000 % 60);
    f.second = static_cast<int>(ms / 1000 % 60);
    f.nanos = static_cast<std::int32_t>(ms % 1000) * 1000000 + nanos_of_milli;
    return f;
}

std::int64_t local_millis_of(const LocalFields& f) {
    // Lenient like java.util.Calendar: months and days beyond their range roll over.
    std::int64_t y = f.year + temporal::floor_div(f.month - 1, 12);
    unsigned m = static_cast<unsigned>(temporal::floor_mod(f.month - 1, 12) + 1);
    std::int64_t days = temporal::days_from_civil(y, m, 1) + (f.day - 1);
    return days * temporal::kMillisPerDay + f.hour * 3600000LL + f.minute * 60000LL +
           f.second * 1000LL + f.nanos / 1000000;
}

std::shared_ptr<const DateFormat> DateFormat::compile(std::string_view p, std::string* error,
                                                      Dialect dialect) {
    auto df = std::make_shared<DateFormat>();
    df->dialect_ = dialect;
    static const std::string_view kLetters = "GyYMLwWDdFEuaHkKhmsSzZX";
    for (std::size_t i = 0; i < p.size();) {
        char c = p[i];
        if (c == '\'') {
            std::string lit;
            std::size_t j = i + 1;
            if (j < p.size() && p[j] == '\'') {
                df->items_.push_back(Item{0, 0, "'"});
                i = j + 1;
                continue;
            }
            while (true) {
                if (j >= p.size()) {
                    if (error) *error = "Unterminated quote";
                    return nullptr;
                }
                if (p[j] == '\'') {
                    if (j + 1 < p.size() && p[j + 1] == '\'') {
                        lit.push_back('\'');
                        j += 2;
                        continue;
                    }
                    break;
                }
                lit.push_back(p[j++]);
            }
            df->items_.push_back(Item{0, 0, lit});
            i = j + 1;
            continue;
        }
        if (std::isalpha(static_cast<unsigned char>(c))) {
            if (kLetters.find(c) == std::string_view::npos) {
                if (error) *error = std::string("Illegal pattern character '") + c + "'";
                return nullptr;
            }
            std::size_t j = i;
            while (j < p.size() && p[j] == c) ++j;
            // DateTimeFormatter's fraction has at most nine digits.
            if (dialect == Dialect::JavaTime && c == 'S' && j - i > 9) {
                if (error) *error = "Too many pattern letters: S";
                return nullptr;
            }
            df->items_.push_back(Item{c, static_cast<int>(j - i), {}});
            i = j;
            continue;
        }
        if (!df->items_.empty() && df->items_.back().letter == 0)
            df->items_.back().literal.push_back(c);
        else
            df->items_.push_back(Item{0, 0, std::string(1, c)});
        ++i;
    }
    return df;
}

bool DateFormat::has_date_fields() const {
    bool y = false, m = false, d = false;
    for (const auto& it : items_) {
        y = y || it.letter == 'y';
        m = m || it.letter == 'M' || it.letter == 'L';
        d = d || it.letter == 'd';
    }
    return y && m && d;
}

bool DateFormat::has_hour_field() const {
    return std::any_of(items_.begin(), items_.end(),
                       [](const Item& it) { return it.letter == 'H' || it.letter == 'k'; });
}

std::int64_t DateFormat::resolution_millis() const {
    std::int64_t unit = temporal::kMillisPerDay;
    for (const auto& it : items_) {
        switch (it.letter) {
            case 'S':
                unit = 1;
                break;
            case 's':
                unit = std::min<std::int64_t>(unit, 1000);
                break;
            case 'm':
                unit = std::min<std::int64_t>(unit, 60000);
                break;
            case 'a':
            case 'H':
            case 'k':
            case 'K':
            case 'h':
                unit = std::min<std::int64_t>(unit, 3600000);
                break;
            case 'z':
            case 'Z':
            case 'X':
                return 0;
            default:
                break;  // literals and date fields
        }
    }
    return unit;
}

std::string DateFormat::format(const LocalFields& f) const {
    std::string out;
    format_to(f, out);
    return out;
}

void DateFormat::format_to(const LocalFields& f, std::string& out) const {
    std::int64_t days = temporal::days_from_civil(f.year, f.month, f.day);
    for (const auto& it : items_) {
        int n = it.count;
        switch (it.letter) {
            case 0:
                out += it.literal;
                break;
            case 'G':
                out += f.year > 0 ? "AD" : "BC";
                break;
            case 'y':
            case 'Y': {
                std::int64_t y = f.year > 0 ? f.year : 1 - f.year;
                if (it.letter == 'Y') {
                    int w = week_of_year(f.year, days);
                    if (w == 1 && f.month == 12) y += 1;
                }
                if (n == 2)
                    pad(out, y % 100, 2);
                else
                    pad(out, y, n);
                break;
            }
            case 'M':
            case 'L':
                if (n >= 4)
                    out += kMonths[f.month - 1];
                else if (n == 3)
                    out += std::string(kMonths[f.month - 1]).substr(0, 3);
                else
                    pad(out, f.month, n);
                break;
            case 'w':
                pad(out, week_of_year(f.year, days), n);
                break;
            case 'W': {
                std::int64_t first = temporal::days_from_civil(f.year, f.month, 1);
                int first_dow = static_cast<int>(temporal::floor_mod(first + 4, 7));
                pad(out, (f.day - 1 + first_dow) / 7 + 1, n);
                break;
            }
            case 'D':
                pad(out, days - temporal::days_from_civil(f.year, 1, 1) + 1, n);
                break;
            case 'd':
                pad(out, f.day, n);
                break;
            case 'F':
                pad(out, (f.day - 1) / 7 + 1, n);
                break;
            case 'E': {
                std::string name = kDays[iso_dow(days) - 1];
                out += n >= 4 ? name : name.substr(0, 3);
                break;
            }
            case 'u':
                pad(out, iso_dow(days), n);
                break;
            case 'a':
                out += f.hour < 12 ? "AM" : "PM";
                break;
            case 'H':
                pad(out, f.hour, n);
                break;
            case 'k':
                pad(out, f.hour == 0 ? 24 : f.hour, n);
                break;
            case 'K':
                pad(out, f.hour % 12, n);
                break;
            case 'h':
                pad(out, f.hour % 12 == 0 ? 12 : f.hour % 12, n);
                break;
            case 'm':
                pad(out, f.minute, n);
                break;
            case 's':
                pad(out, f.second, n);
                break;
            case 'S':
                if (dialect_ == Dialect::JavaTime) {
                    // The first n digits of the nine-digit fraction.
                    std::string nine;
                    pad(nine, f.nanos, 9);
                    out.append(nine, 0, static_cast<std::size_t>(n));
                } else {
                    pad(out, f.nanos / 1000000, n);  // milliseconds, zero-padded to n
                }
                break;
            case 'z': {
                if (f.offset_seconds == 0 && (f.zone_id == "UTC" || f.zone_id == "GMT")) {
                    out += f.zone_id;
                    break;
                }
                [[fallthrough]];
            }
            case 'Z':
            case 'X': {
                int o = f.offset_seconds;
                if (it.letter == 'X' && o == 0) {
                    out += "Z";
                    break;
                }
                if (it.letter == 'z') out += "GMT";
                out.push_back(o < 0 ? '-' : '+');
                o = o < 0 ? -o : o;
                pad(out, o / 3600, 2);
                if (it.letter == 'z' || (it.letter == 'X' && n >= 3)) out.push_back(':');
                if (!(it.letter == 'X' && n == 1)) pad(out, o / 60 % 60, 2);
                break;
            }
        }
    }
}

std::optional<LocalFields> DateFormat::parse(std::string_view s, bool* has_offset) const {
    LocalFields f;
    std::size_t i = 0;
    bool pm = false, has_ampm = false;
    std::int32_t offset = 0;
    bool offset_seen = false;
    const bool java_time = dialect_ == Dialect::JavaTime;
    auto read_num = [&](int max_digits, std::int64_t& v, int min_digits = 1) -> bool {
        std::size_t start = i;
        bool neg = false;
        if (!java_time && i < s.size() && s[i] == '-') {
            neg = true;
            ++i;
        }
        std::size_t digits_start = i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) &&
               (max_digits <= 0 || static_cast<int>(i - digits_start) < max_digits))
            ++i;
        if (i == digits_start || static_cast<int>(i - digits_start) < min_digits) {
            i = start;
            return false;
        }
        // More digits than an int64 holds: no date (std::stoll would throw out of the evaluation).
        // Fields of up to 9 digits (nanoseconds); more is no date, and keeps the lenient
        // arithmetic of local_millis_of() within int64.
        auto [end, ec] = std::from_chars(s.data() + digits_start, s.data() + i, v);
        if (ec != std::errc{} || v > 999'999'999) {
            i = start;
            return false;
        }
        if (neg) v = -v;
        return true;
    };
    for (std::size_t k = 0; k < items_.size(); ++k) {
        const auto& it = items_[k];
        // Adjacent numeric fields (yyyyMMdd) take exactly their width.
        bool next_numeric = k + 1 < items_.size() && items_[k + 1].letter != 0 &&
                            std::string_view("yMdHhKkmsSDwWFu").find(items_[k + 1].letter) !=
                                std::string_view::npos;
        int width = next_numeric ? it.count : 0;
        // DateTimeFormatter: two or more letters of a field (but the year's) are its exact width.
        int min_width = 1;
        if (java_time && it.letter != 'y' && it.letter != 'Y' && it.count >= 2) {
            width = it.count;
            min_width = it.count;
        }
        if (java_time && (it.letter == 'y' || it.letter == 'Y')) {
            min_width = it.count == 2 ? 2 : it.count;
            if (it.count == 2) width = 2;
        }
        std::int64_t v = 0;
        switch (it.letter) {
            case 0: {
                for (char ch : it.literal) {
                    if (ch == ' ' && !java_time) {
                        while (i < s.size() && s[i] == ' ') ++i;
                        continue;
                    }
                    if (i >= s.size() || s[i] != ch) return std::nullopt;
                    ++i;
                }
                break;
            }
            case 'y':
            case 'Y':
                if (!read_num(width, v, min_width)) return std::nullopt;
                if (java_time) {
                    if (it.count == 2) v += 2000;  // reduced year, base 2000
                } else if (it.count <= 2 && v < 100 && v >= 0) {
                    // Two-digit years fall within 80 years before / 20 after now (approximated at
                    // 2000).
                    v += v < 50 ? 2000 : 1900;
                }
                f.year = v;
                break;
            case 'M':
            case 'L':
                if (it.count >= 3) {
                    bool found = false;
                    for (int m = 0; m < 12 && !found; ++m) {
                        std::string full = kMonths[m];
                        for (const std::string& cand : {full, full.substr(0, 3)}) {
                            if (s.size() - i >= cand.size() &&
                                strncasecmp(s.data() + i, cand.c_str(), cand.size()) == 0) {
                                f.month = m + 1;
                                i += cand.size();
                                found = true;
                                break;
                            }
                        }
                    }
                    if (!found) return std::nullopt;
                } else {
                    if (!read_num(width, v, min_width)) return std::nullopt;
                    f.month = static_cast<int>(v);
                }
                break;
            case 'd':
                if (!read_num(width, v, min_width)) return std::nullopt;
                f.day = static_cast<int>(v);
                break;
            case 'D':
                if (!read_num(width, v, min_width)) return std::nullopt;
                f.month = 1;
                f.day = static_cast<int>(v);
                break;
            case 'H':
            case 'k':
                if (!read_num(width, v, min_width)) return std::nullopt;
                f.hour = static_cast<int>(it.letter == 'k' && v == 24 ? 0 : v);
                break;
            case 'h':
            case 'K':
                if (!read_num(width, v, min_width)) return std::nullopt;
                f.hour = static_cast<int>(v % 12);
                break;
            case 'm':
                if (!read_num(width, v, min_width)) return std::nullopt;
                f.minute = static_cast<int>(v);
                break;
            case 's':
                if (!read_num(width, v, min_width)) return std::nullopt;
                f.second = static_cast<int>(v);
                break;
            case 'S':
                if (java_time) {
                    // Exactly n digits of the fraction of the second.
                    if (!read_num(it.count, v, it.count)) return std::nullopt;
                    for (int k = it.count; k < 9; ++k) v *= 10;
                    f.nanos = static_cast<std::int32_t>(v);
                    break;
                }
                // SimpleDateFormat reads S as a count of milliseconds.
                if (!read_num(width, v, min_width)) return std::nullopt;
                f.nanos = static_cast<std::int32_t>(v % 1000 * 1000000);
                f.second += static_cast<int>(v / 1000);
                break;
            case 'a':
                if (s.size() - i >= 2 && (strncasecmp(s.data() + i, "AM", 2) == 0 ||
                                          strncasecmp(s.data() + i, "PM", 2) == 0)) {
                    pm = std::toupper(static_cast<unsigned char>(s[i])) == 'P';
                    has_ampm = true;
                    i += 2;
                } else {
                    return std::nullopt;
                }
                break;
            case 'E': {
                bool found = false;
                for (int d = 0; d < 7 && !found; ++d) {
                    std::string full = kDays[d];
                    for (const std::string& cand : {full, full.substr(0, 3)}) {
                        if (s.size() - i >= cand.size() &&
                            strncasecmp(s.data() + i, cand.c_str(), cand.size()) == 0) {
                            i += cand.size();
                            found = true;
                            break;
                        }
                    }
                }
                if (!found) return std::nullopt;
                break;
            }
            case 'z':
            case 'Z':
            case 'X': {
                if (i < s.size() && s[i] == 'Z') {
                    ++i;
                    offset_seen = true;
                    break;
                }
                if (s.substr(i).starts_with("GMT") || s.substr(i).starts_with("UTC")) i += 3;
                if (i >= s.size() || (s[i] != '+' && s[i] != '-')) {
                    if (it.letter == 'z' && i > 0 &&
                        (s.substr(i - 3, 3) == "GMT" || s.substr(i - 3, 3) == "UTC")) {
                        offset_seen = true;
                        break;
                    }
                    return std::nullopt;
                }
                int sign = s[i] == '-' ? -1 : 1;
                ++i;
                std::int64_t hh = 0, mm = 0;
                std::size_t st = i;
                while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && i - st < 2)
                    ++i;
                if (i == st) return std::nullopt;
                std::from_chars(s.data() + st, s.data() + i, hh);  // at most 2 digits
                if (i < s.size() && s[i] == ':') ++i;
                st = i;
                while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && i - st < 2)
                    ++i;
                if (i > st) std::from_chars(s.data() + st, s.data() + i, mm);
                offset = static_cast<std::int32_t>(sign * (hh * 3600 + mm * 60));
                offset_seen = true;
                break;
            }
            default:
                if (!read_num(width, v, min_width)) return std::nullopt;
                break;
        }
    }
    if (has_ampm && pm) f.hour += 12;
    if (java_time) {
        if (i != s.size()) return std::nullopt;  // unparsed text
        // Fields out of range fail; a day past the end of its month is the month's last day
        // (ResolverStyle.SMART).
        if (f.month < 1 || f.month > 12 || f.day < 1 || f.day > 31 || f.hour < 0 || f.hour > 23 ||
            f.minute < 0 || f.minute > 59 || f.second < 0 || f.second > 59)
            return std::nullopt;
        if (f.year > 100'000'000 || f.year < -100'000'000) return std::nullopt;
        std::int64_t next = f.month == 12 ? temporal::days_from_civil(f.year + 1, 1, 1)
                                          : temporal::days_from_civil(f.year, f.month + 1, 1);
        auto month_days = static_cast<int>(next - temporal::days_from_civil(f.year, f.month, 1));
        f.day = std::min(f.day, month_days);
    }
    // Years past ±10^8 overflow the milliseconds of a timestamp: no date, as for other nonsense.
    if (f.year > 100'000'000 || f.year < -100'000'000) return std::nullopt;
    f.offset_seconds = offset;
    if (has_offset) *has_offset = offset_seen;
    return f;
}

}  // namespace cdcd::transform
