#include "pipeline/data/time_zone.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

#include "pipeline/data/system_time_zone.h"
#include "pipeline/data/temporal.h"

namespace cdcd {

namespace {

struct Transition {
    std::int64_t utc;  // instant of the change
    int before;        // UTC offset before it
    int after;         // UTC offset from it on
};

// A day of the year in a POSIX TZ rule: Jn (1..365, Feb 29 never counted), n (0..365), Mm.w.d.
struct DateRule {
    char kind = 'M';
    int n = 0, month = 0, week = 0, weekday = 0;
};

struct PosixRule {
    int std_offset = 0;
    bool has_dst = false;
    int dst_offset = 0;
    DateRule start, end;
    int start_time = 7200, end_time = 7200;
};

bool is_leap(std::int64_t y) {
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

std::int64_t rule_day(std::int64_t year, const DateRule& r) {
    std::int64_t jan1 = temporal::days_from_civil(year, 1, 1);
    if (r.kind == 'J') return jan1 + r.n - 1 + (is_leap(year) && r.n >= 60 ? 1 : 0);
    if (r.kind == 'N') return jan1 + r.n;
    std::int64_t first = temporal::days_from_civil(year, static_cast<unsigned>(r.month), 1);
    std::int64_t next =
        r.month == 12 ? temporal::days_from_civil(year + 1, 1, 1)
                      : temporal::days_from_civil(year, static_cast<unsigned>(r.month) + 1, 1);
    int first_weekday = static_cast<int>(temporal::floor_mod(first + 4, 7));  // 1970-01-01: Thu
    std::int64_t day = first + (r.weekday - first_weekday + 7) % 7 + (r.week - 1) * 7;
    while (day >= next) day -= 7;  // week 5 means "last"
    return day;
}

void rule_transitions(const PosixRule& rule, std::int64_t year, std::vector<Transition>& out) {
    std::int64_t start = rule_day(year, rule.start) * 86400 + rule.start_time - rule.std_offset;
    std::int64_t end = rule_day(year, rule.end) * 86400 + rule.end_time - rule.dst_offset;
    out.push_back({start, rule.std_offset, rule.dst_offset});
    out.push_back({end, rule.dst_offset, rule.std_offset});
}

// ---- POSIX TZ string parsing (the TZif footer) ----

bool parse_name(std::string_view& s) {
    if (!s.empty() && s[0] == '<') {
        auto close = s.find('>');
        if (close == std::string_view::npos) return false;
        s.remove_prefix(close + 1);
        return true;
    }
    std::size_t n = 0;
    while (n < s.size() && std::isalpha(static_cast<unsigned char>(s[n]))) ++n;
    if (n < 3) return false;
    s.remove_prefix(n);
    return true;
}

bool parse_number(std::string_view& s, int max_digits, int& out) {
    int n = 0, v = 0;
    while (n < max_digits && n < static_cast<int>(s.size()) &&
           std::isdigit(static_cast<unsigned char>(s[n]))) {
        v = v * 10 + (s[n] - '0');
        ++n;
    }
    if (n == 0) return false;
    s.remove_prefix(static_cast<std::size_t>(n));
    out = v;
    return true;
}

// [+-]hh[:mm[:ss]] in seconds, sign as written.
bool parse_hms(std::string_view& s, int& out) {
    int sign = 1;
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
        sign = s[0] == '-' ? -1 : 1;
        s.remove_prefix(1);
    }
    int h = 0, m = 0, sec = 0;
    if (!parse_number(s, 3, h)) return false;
    if (!s.empty() && s[0] == ':') {
        s.remove_prefix(1);
        if (!parse_number(s, 2, m)) return false;
        if (!s.empty() && s[0] == ':') {
            s.remove_prefix(1);
            if (!parse_number(s, 2, sec)) return false;
        }
    }
    out = sign * (h * 3600 + m * 60 + sec);
    return true;
}

bool parse_date_rule(std::string_view& s, DateRule& r, int& time) {
    if (s.empty() || s[0] != ',') return false;
    s.remove_prefix(1);
    if (!s.empty() && s[0] == 'M') {
        s.remove_prefix(1);
        r.kind = 'M';
        if (!parse_number(s, 2, r.month) || s.empty() || s[0] != '.') return false;
        s.remove_prefix(1);
        if (!parse_number(s, 1, r.week) || s.empty() || s[0] != '.') return false;
        s.remove_prefix(1);
        if (!parse_number(s, 1, r.weekday)) return false;
        if (r.month < 1 || r.month > 12 || r.week < 1 || r.week > 5 || r.weekday > 6) return false;
    } else if (!s.empty() && s[0] == 'J') {
        s.remove_prefix(1);
        r.kind = 'J';
        if (!parse_number(s, 3, r.n) || r.n < 1 || r.n > 365) return false;
    } else {
        r.kind = 'N';
        if (!parse_number(s, 3, r.n) || r.n > 365) return false;
    }
    time = 7200;
    if (!s.empty() && s[0] == '/') {
        s.remove_prefix(1);
        if (!parse_hms(s, time)) return false;
    }
    return true;
}

std::optional<PosixRule> parse_posix_tz(std::string_view s) {
    PosixRule r;
    int off = 0;
    if (!parse_name(s) || !parse_hms(s, off)) return std::nullopt;
    r.std_offset = -off;  // POSIX offsets count west of Greenwich
    if (s.empty()) return r;
    if (!parse_name(s)) return std::nullopt;
    r.has_dst = true;
    r.dst_offset = r.std_offset + 3600;
    if (!s.empty() && s[0] != ',') {
        if (!parse_hms(s, off)) return std::nullopt;
        r.dst_offset = -off;
    }
    if (s.empty()) s = ",M3.2.0,M11.1.0";  // the POSIX default rule (US)
    if (!parse_date_rule(s, r.start, r.start_time) || !parse_date_rule(s, r.end, r.end_time))
        return std::nullopt;
    return s.empty() ? std::optional<PosixRule>(r) : std::nullopt;
}

}  // namespace

struct TimeZone::Rules {
    std::string id;
    int initial = 0;  // offset before the first transition (or the fixed offset)
    std::vector<Transition> transitions;
    std::optional<PosixRule> footer;

    // The transitions that govern `t`, and the offset before the first of them; `from_footer`:
    // they come from the footer rule (past the listed transitions), computed for t's years only.
    // Those are kept per thread, so that converting a row's time allocates nothing: one vector
    // for a zone without DST, and the last zone and year's transitions for a zone with DST.
    const std::vector<Transition>& around(std::int64_t t, int& first_offset,
                                          bool& from_footer) const {
        first_offset = initial;
        from_footer = false;
        if (!footer || (!transitions.empty() && t < transitions.back().utc)) return transitions;
        from_footer = true;
        if (!footer->has_dst) {
            thread_local std::vector<Transition> tail;
            tail.assign(1, Transition{transitions.empty() ? t : transitions.back().utc,
                                      transitions.empty() ? initial : transitions.back().after,
                                      footer->std_offset});
            if (transitions.empty()) first_offset = footer->std_offset;
            return tail;
        }
        struct YearCache {
            std::uint64_t rules = 0;  // a Rules' serial: addresses can be reused, serials not
            std::int64_t year = 0;
            std::vector<Transition> transitions;
        };
        thread_local YearCache cache;
        std::int64_t year = temporal::civil_from_days(temporal::floor_div(t, 86400)).year;
        if (cache.rules != serial || cache.year != year) {
            cache.transitions.clear();
            for (std::int64_t y = year - 1; y <= year + 1; ++y)
                rule_transitions(*footer, y, cache.transitions);
            std::sort(cache.transitions.begin(), cache.transitions.end(),
                      [](const Transition& a, const Transition& b) { return a.utc < b.utc; });
            cache.rules = serial;
            cache.year = year;
        }
        first_offset = cache.transitions.front().before;
        return cache.transitions;
    }

    static std::uint64_t next_serial() {
        static std::atomic<std::uint64_t> counter{0};
        return ++counter;
    }
    const std::uint64_t serial = next_serial();
};

namespace {

using Rules = TimeZone::Rules;

std::optional<int> parse_offset(std::string_view s) {
    // ZoneOffset.of: +h, +hh, +hh:mm, +hhmm, +hh:mm:ss, +hhmmss
    if (s.size() < 2 || (s[0] != '+' && s[0] != '-')) return std::nullopt;
    int sign = s[0] == '-' ? -1 : 1;
    std::string_view d = s.substr(1);
    auto num = [](std::string_view t, int& v) {
        if (t.size() != 2 || !std::isdigit(static_cast<unsigned char>(t[0])) ||
            !std::isdigit(static_cast<unsigned char>(t[1])))
            return false;
        v = (t[0] - '0') * 10 + (t[1] - '0');
        return true;
    };
    int h = 0, m = 0, sec = 0;
    bool ok = false;
    if (d.size() == 1 && std::isdigit(static_cast<unsigned char>(d[0]))) {
        h = d[0] - '0';
        ok = true;
    } else if (d.size() == 2) {
        ok = num(d, h);
    } else if (d.size() == 5 && d[2] == ':') {
        ok = num(d.substr(0, 2), h) && num(d.substr(3, 2), m);
    } else if (d.size() == 4) {
        ok = num(d.substr(0, 2), h) && num(d.substr(2, 2), m);
    } else if (d.size() == 8 && d[2] == ':' && d[5] == ':') {
        ok = num(d.substr(0, 2), h) && num(d.substr(3, 2), m) && num(d.substr(6, 2), sec);
    } else if (d.size() == 6) {
        ok = num(d.substr(0, 2), h) && num(d.substr(2, 2), m) && num(d.substr(4, 2), sec);
    }
    if (!ok || h > 18 || m > 59 || sec > 59) return std::nullopt;
    int total = h * 3600 + m * 60 + sec;
    if (total > 18 * 3600) return std::nullopt;
    return sign * total;
}

std::string offset_id(int offset) {
    if (offset == 0) return "Z";
    int a = offset < 0 ? -offset : offset;
    char buf[16];
    if (a % 60 != 0) {
        std::snprintf(buf, sizeof buf, "%c%02d:%02d:%02d", offset < 0 ? '-' : '+', a / 3600,
                      a / 60 % 60, a % 60);
    } else {
        std::snprintf(buf, sizeof buf, "%c%02d:%02d", offset < 0 ? '-' : '+', a / 3600,
                      a / 60 % 60);
    }
    return buf;
}

template <typename T>
T read_be(const std::string& d, std::size_t pos) {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i)
        v = (v << 8) | static_cast<unsigned char>(d[pos + i]);
    return static_cast<T>(v);
}

// RFC 8536: a v1 block, then (v2+) a block with 64-bit times and a POSIX TZ footer.
std::shared_ptr<Rules> parse_tzif(const std::string& id, const std::string& d, std::string* error) {
    auto fail = [&](const char* why) -> std::shared_ptr<Rules> {
        if (error) *error = "time zone file of " + id + " is invalid: " + why;
        return nullptr;
    };
    auto counts = [&](std::size_t at, std::size_t c[6]) {
        for (int i = 0; i < 6; ++i) c[i] = read_be<std::uint32_t>(d, at + 20 + 4 * i);
    };
    if (d.size() < 44 || d.compare(0, 4, "TZif") != 0) return fail("no TZif header");
    std::size_t c[6];  // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
    counts(0, c);
    std::size_t pos = 44;
    int time_size = 4;
    if (d[4] >= '2') {
        pos += c[3] * 4 + c[3] + c[4] * 6 + c[5] + c[2] * 8 + c[1] + c[0];
        if (d.size() < pos + 44 || d.compare(pos, 4, "TZif") != 0) return fail("bad v2 header");
        counts(pos, c);
        pos += 44;
        time_size = 8;
    }
    std::size_t need =
        c[3] * time_size + c[3] + c[4] * 6 + c[5] + c[2] * (time_size + 4) + c[1] + c[0];
    if (d.size() < pos + need || c[4] == 0) return fail("truncated");
    auto rules = std::make_shared<Rules>();
    rules->id = id;
    std::size_t times_at = pos, idx_at = pos + c[3] * time_size, types_at = idx_at + c[3];
    auto type_offset = [&](std::size_t t) { return read_be<std::int32_t>(d, types_at + t * 6); };
    rules->initial = type_offset(0);
    int previous = rules->initial;
    for (std::size_t i = 0; i < c[3]; ++i) {
        std::int64_t when = time_size == 8 ? read_be<std::int64_t>(d, times_at + i * 8)
                                           : read_be<std::int32_t>(d, times_at + i * 4);
        std::size_t type = static_cast<unsigned char>(d[idx_at + i]);
        if (type >= c[4]) return fail("bad type index");
        int after = type_offset(type);
        rules->transitions.push_back({when, previous, after});
        previous = after;
    }
    if (time_size == 8) {
        std::size_t footer_at = pos + need;
        if (footer_at < d.size() && d[footer_at] == '\n') {
            auto end = d.find('\n', footer_at + 1);
            if (end != std::string::npos && end > footer_at + 1) {
                rules->footer =
                    parse_posix_tz(std::string_view(d).substr(footer_at + 1, end - footer_at - 1));
                if (!rules->footer) return fail("bad POSIX TZ footer");
            }
        }
    }
    return rules;
}

bool valid_region_id(std::string_view id) {
    if (id.empty() || id[0] == '/' || id.find("..") != std::string_view::npos) return false;
    return std::all_of(id.begin(), id.end(), [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '/' || ch == '_' ||
               ch == '-' || ch == '+';
    });
}

std::shared_ptr<Rules> load_region(const std::string& id, std::string* error) {
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<Rules>> cache;
    std::lock_guard lock(mutex);
    if (auto it = cache.find(id); it != cache.end()) return it->second;
    std::ifstream in("/usr/share/zoneinfo/" + id, std::ios::binary);
    if (!in) {
        if (error) *error = "unknown time zone id: " + id;
        return nullptr;
    }
    std::ostringstream buf;
    buf << in.rdbuf();
    auto rules = parse_tzif(id, buf.str(), error);
    if (rules) cache.emplace(id, rules);
    return rules;
}

std::shared_ptr<Rules> fixed_rules(std::string id, int offset) {
    auto r = std::make_shared<Rules>();
    r->id = std::move(id);
    r->initial = offset;
    return r;
}

int lookup(const std::vector<Transition>& ts, int first_offset, std::int64_t t) {
    auto it = std::upper_bound(ts.begin(), ts.end(), t,
                               [](std::int64_t v, const Transition& tr) { return v < tr.utc; });
    return it == ts.begin() ? first_offset : std::prev(it)->after;
}

}  // namespace

std::optional<TimeZone> TimeZone::of(std::string_view id, std::string* error) {
    if (id == "systemDefault") return of(system_time_zone().id, error);
    if (id == "Z") return fixed(0);
    for (std::string_view prefix : {"UTC", "GMT", "UT"}) {
        if (id.substr(0, prefix.size()) != prefix) continue;
        std::string_view rest = id.substr(prefix.size());
        if (rest.empty()) return TimeZone(fixed_rules(std::string(id), 0));
        if (rest[0] != '+' && rest[0] != '-') break;
        auto offset = parse_offset(rest);
        if (!offset) {
            if (error) *error = "invalid time zone offset: " + std::string(id);
            return std::nullopt;
        }
        std::string norm = std::string(prefix) + (*offset == 0 ? "" : offset_id(*offset));
        return TimeZone(fixed_rules(norm, *offset));
    }
    if (!id.empty() && (id[0] == '+' || id[0] == '-')) {
        auto offset = parse_offset(id);
        if (!offset) {
            if (error) *error = "invalid time zone offset: " + std::string(id);
            return std::nullopt;
        }
        return fixed(*offset);
    }
    if (!valid_region_id(id)) {
        if (error) *error = "invalid time zone id: " + std::string(id);
        return std::nullopt;
    }
    auto rules = load_region(std::string(id), error);
    if (!rules) return std::nullopt;
    return TimeZone(std::move(rules));
}

TimeZone TimeZone::utc() {
    return TimeZone(fixed_rules("UTC", 0));
}
TimeZone TimeZone::fixed(int offset_seconds) {
    return TimeZone(fixed_rules(offset_id(offset_seconds), offset_seconds));
}

const std::string& TimeZone::id() const {
    return rules_->id;
}

int TimeZone::offset_at(std::int64_t t) const {
    int first = 0;
    bool from_footer = false;
    const auto& ts = rules_->around(t, first, from_footer);
    return lookup(ts, first, t);
}

int TimeZone::offset_at(std::int64_t t, std::int64_t* from, std::int64_t* until) const {
    int first = 0;
    bool from_footer = false;
    const auto& ts = rules_->around(t, first, from_footer);
    auto it = std::upper_bound(ts.begin(), ts.end(), t,
                               [](std::int64_t v, const Transition& tr) { return v < tr.utc; });
    *from = it == ts.begin() ? std::numeric_limits<std::int64_t>::min() : std::prev(it)->utc;
    *until = it == ts.end() ? std::numeric_limits<std::int64_t>::max() : it->utc;
    if (from_footer) {
        // Transitions of the footer rule, computed for the years around t only: they say nothing
        // before the listed transitions, and a DST rule nothing outside those years.
        if (!rules_->transitions.empty()) *from = std::max(*from, rules_->transitions.back().utc);
        if (rules_->footer && rules_->footer->has_dst) {
            if (it == ts.begin()) *from = t;
            if (it == ts.end()) *until = t + 1;
        }
    }
    return it == ts.begin() ? first : std::prev(it)->after;
}

int TimeZone::offset_for_local(std::int64_t local) const {
    int first = 0;
    bool from_footer = false;
    // Offsets stay within ±18h, so the transitions around `local` read as UTC govern it.
    const auto& ts = rules_->around(local, first, from_footer);
    // The last transition whose local window [utc + min(before, after), ...) has begun.
    auto it =
        std::upper_bound(ts.begin(), ts.end(), local, [](std::int64_t v, const Transition& tr) {
            return v < tr.utc + std::min(tr.before, tr.after);
        });
    if (it == ts.begin()) return first;
    const Transition& tr = *std::prev(it);
    if (local < tr.utc + std::max(tr.before, tr.after)) return tr.before;  // gap or overlap
    return tr.after;
}

Timestamp TimeZone::to_local(Timestamp instant) const {
    std::int64_t secs = temporal::floor_div(instant.millis, 1000);
    return Timestamp{instant.millis + static_cast<std::int64_t>(offset_at(secs)) * 1000,
                     instant.nanos_of_milli};
}

Timestamp TimeZone::to_instant(Timestamp local) const {
    std::int64_t secs = temporal::floor_div(local.millis, 1000);
    return Timestamp{local.millis - static_cast<std::int64_t>(offset_for_local(secs)) * 1000,
                     local.nanos_of_milli};
}

}  // namespace cdcd
