// Temporal functions, all in pipeline.local-time-zone: LOCALTIME, LOCALTIMESTAMP, CURRENT_*,
// NOW, EXTRACT and the field functions, DATE_FORMAT(_TZ), TIMESTAMPADD/DIFF, TO_DATE,
// TO_TIMESTAMP(_LTZ), FROM_UNIXTIME, UNIX_TIMESTAMP, DATE_ADD, ± INTERVAL.
#include <climits>
#include <cstdint>

#include "pipeline/data/temporal.h"
#include "pipeline/transform/functions/date_format.h"
#include "pipeline/transform/functions/functions.h"

namespace cdcd::transform {

namespace {

using temporal::floor_div;
using temporal::floor_mod;
using temporal::kMillisPerDay;

const Zone& zone_of(EvalContext& c) {
    return c.zone ? *c.zone : *Zone::utc();
}

// The wall-clock millis of an instant in the session zone.
std::int64_t to_local(std::int64_t utc_millis, EvalContext& c) {
    return utc_millis + c.zone_offset_at(floor_div(utc_millis, 1000)) * 1000LL;
}
std::int64_t from_local(std::int64_t local_millis, const Zone& z) {
    return local_millis - z.offset_at_local(floor_div(local_millis, 1000)) * 1000LL;
}

// The nanoseconds within the millisecond of a TIME (nanos of day) or timestamp value.
std::int32_t nanos_within_milli(const Datum& d, const DataType& t) {
    return t.root() == TypeRoot::Time ? static_cast<std::int32_t>(d.i % 1000000) : d.nanos;
}

// The wall-clock millis of a temporal value (LTZ converted to the session zone).
std::int64_t local_millis(const Datum& d, const DataType& t, EvalContext& c) {
    switch (t.root()) {
        case TypeRoot::Date:
            return d.i * kMillisPerDay;
        case TypeRoot::Time:
            return d.i / 1000000;
        case TypeRoot::TimestampLtz:
            return to_local(d.i, c);
        case TypeRoot::TimestampTz:
            return d.i + d.off * 1000LL;
        default:
            return d.i;
    }
}

bool is_time_input(const DataType& t) {
    return t.root() == TypeRoot::Date || t.root() == TypeRoot::Time || t.is_timestamp();
}

Datum eval_now(const Node& n, EvalContext& c) {
    switch (n.param) {
        case 0:
            return Datum::of_timestamp(Timestamp{c.now(), 0});  // CURRENT_TIMESTAMP, NOW
        case 1:
            return Datum::of_timestamp(Timestamp{to_local(c.now(), c), 0});  // LOCALTIMESTAMP
        case 2:
            return Datum::of_long(floor_mod(to_local(c.now(), c), kMillisPerDay) / 1000 *
                                  1000000000LL);
        default:
            return Datum::of_long(floor_div(to_local(c.now(), c), kMillisPerDay));
    }
}
NodePtr build_now(CallSite& c, int kind, const DataType& t) {
    c.arity(0, 0);
    auto n = make_node(eval_now, t.not_null(), {});
    n->param = kind;
    n->reads_clock = true;
    return n;
}
NodePtr b_current_timestamp(CallSite& c) {
    return build_now(c, 0, DataType::timestamp_ltz(3));
}
NodePtr b_localtimestamp(CallSite& c) {
    return build_now(c, 1, DataType::timestamp(3));
}
NodePtr b_localtime(CallSite& c) {
    return build_now(c, 2, DataType::time(0));
}
NodePtr b_current_date(CallSite& c) {
    return build_now(c, 3, DataType::date());
}

enum Unit {
    kYear,
    kQuarter,
    kMonth,
    kWeek,
    kDay,
    kDoy,
    kDow,
    kHour,
    kMinute,
    kSecond,
    kMillisecond,
    kMicrosecond,
    kNanosecond,
    kEpoch,
    kIsoDow
};

std::optional<Unit> unit_of(const std::string& u) {
    std::string s = u.rfind("SQL_TSI_", 0) == 0 ? u.substr(8) : u;
    if (s == "YEAR") return kYear;
    if (s == "QUARTER") return kQuarter;
    if (s == "MONTH") return kMonth;
    if (s == "WEEK") return kWeek;
    if (s == "DAY") return kDay;
    if (s == "DOY" || s == "DAYOFYEAR") return kDoy;
    if (s == "DOW" || s == "DAYOFWEEK") return kDow;
    if (s == "ISODOW") return kIsoDow;
    if (s == "HOUR") return kHour;
    if (s == "MINUTE") return kMinute;
    if (s == "SECOND") return kSecond;
    if (s == "MILLISECOND" || s == "FRAC_SECOND") return kMillisecond;
    if (s == "MICROSECOND") return kMicrosecond;
    if (s == "NANOSECOND") return kNanosecond;
    if (s == "EPOCH") return kEpoch;
    return std::nullopt;
}

std::int64_t extract(Unit u, std::int64_t local, std::int32_t nanos) {
    std::int64_t days = floor_div(local, kMillisPerDay);
    std::int64_t ms = floor_mod(local, kMillisPerDay);
    auto cd = temporal::civil_from_days(days);
    switch (u) {
        case kYear:
            return cd.year;
        case kQuarter:
            return (cd.month - 1) / 3 + 1;
        case kMonth:
            return cd.month;
        case kWeek: {                                   // ISO-8601 week
            std::int64_t dow = floor_mod(days + 3, 7);  // 0 = Monday
            std::int64_t thursday = days - dow + 3;
            auto tc = temporal::civil_from_days(thursday);
            return (thursday - temporal::days_from_civil(tc.year, 1, 1)) / 7 + 1;
        }
        case kDay:
            return cd.day;
        case kDoy:
            return days - temporal::days_from_civil(cd.year, 1, 1) + 1;
        case kDow:
            return floor_mod(days + 4, 7) + 1;  // Sunday = 1
        case kIsoDow:
            return floor_mod(days + 3, 7) + 1;
        case kHour:
            return ms / 3600000;
        case kMinute:
            return ms / 60000 % 60;
        case kSecond:
            return ms / 1000 % 60;
        case kMillisecond:
            return ms % 60000;
        case kMicrosecond:
            return ms % 60000 * 1000 + nanos / 1000;
        case kNanosecond:
            return (ms % 60000) * 1000000 + nanos;
        case kEpoch:
            return floor_div(local, 1000);
    }
    return 0;
}

// The units JaninoCompiler accepts for EXTRACT (SUPPORTED_EXTRACT_UNITS); the others fail there
// with "Unsupported EXTRACT unit".
bool flink_extract_unit(Unit u) {
    switch (u) {
        case kYear:
        case kQuarter:
        case kMonth:
        case kWeek:
        case kDay:
        case kDoy:
        case kDow:
        case kHour:
        case kMinute:
        case kSecond:
            return true;
        default:
            return false;
    }
}

// TemporalFunctions.extract: a TIME has no date fields (LocalTime does not support them: the call
// fails); a DATE's time fields are 0.
void check_extract(CallSite& c, Unit u, const std::string& unit, const DataType& t) {
    if (!flink_extract_unit(u)) c.fail_arg(0, "Unsupported EXTRACT unit: " + unit);
    if (t.root() == TypeRoot::Time && u != kHour && u != kMinute && u != kSecond)
        c.fail("EXTRACT unit " + unit + " cannot be applied to LocalTime");
}

Datum eval_extract(const Node& n, EvalContext& c) {
    Datum d = n.args[1]->eval(c);
    if (d.null) return d;
    const DataType& t = n.args[1]->type;
    std::int32_t nanos = nanos_within_milli(d, t);
    return Datum::of_long(extract(static_cast<Unit>(n.param), local_millis(d, t, c), nanos));
}
NodePtr b_extract(CallSite& c) {
    c.arity(2, 2);
    auto u = unit_of(c.args[0]->text);
    if (!u) c.fail_arg(0, "Unsupported EXTRACT unit: " + c.args[0]->text);
    if (!is_time_input(c.type(1)))
        c.fail("Cannot apply 'EXTRACT' to arguments of type " + c.signature());
    check_extract(c, *u, c.args[0]->text, c.type(1));
    bool nullable = c.type(1).nullable();
    auto n = make_node(eval_extract, DataType::bigint().with_nullable(nullable), std::move(c.args));
    n->param = *u;
    return n;
}

template <Unit U>
NodePtr b_field(CallSite& c) {
    c.arity(1, 1);
    if (!is_time_input(c.type(0)))
        c.fail("Cannot apply '" + c.name + "' to arguments of type " + c.signature());
    if (c.type(0).root() == TypeRoot::Time && U != kHour && U != kMinute && U != kSecond)
        c.fail("EXTRACT unit of " + c.name + " cannot be applied to LocalTime");
    auto sym = make_node(nullptr, DataType::string(), {});
    std::vector<NodePtr> args;
    args.push_back(std::move(sym));
    args.push_back(std::move(c.args[0]));
    bool nullable = args[1]->type.nullable();
    auto n = make_node(eval_extract, DataType::bigint().with_nullable(nullable), std::move(args));
    n->param = U;
    return n;
}

// Cached on the last pattern text when the format is not a constant.
struct FormatCache {
    DateFormat::Dialect dialect = DateFormat::Dialect::Simple;
    // TO_DATE: an invalid pattern makes the value NULL (DateTimeUtils.parseDate catches it)
    // instead of failing.
    bool invalid_is_null = false;
    std::shared_ptr<const DateFormat> fixed;
    mutable std::string text;
    mutable std::shared_ptr<const DateFormat> last;
    mutable bool last_invalid = false;  // `text` did not compile (invalid_is_null)
    // The last output of the fixed pattern and the wall-clock span it covers: rows whose time
    // falls into the same span (e.g. the same minute for 'yyyy-MM-dd HH:mm') reuse it.
    std::int64_t resolution = 0;  // DateFormat::resolution_millis() of `fixed`; 0: no reuse
    // The wall-clock millis [span_from, span_until) that last_output covers (empty at first).
    mutable std::int64_t span_from = 0;
    mutable std::int64_t span_until = 0;
    mutable std::string last_output;

    /// The fixed pattern's text of `fields` at wall-clock time `local`, from last_output when
    /// `local` is in its span.
    std::string_view format_fixed(std::int64_t local, std::int32_t nanos) const {
        if (local >= span_from && local < span_until) return last_output;
        LocalFields fields = fields_of(local, nanos);
        last_output.clear();
        fixed->format_to(fields, last_output);
        span_from = floor_div(local, resolution) * resolution;
        // The last span before the end of the range is not kept (its end would overflow).
        span_until = span_from <= INT64_MAX - resolution ? span_from + resolution : span_from;
        return last_output;
    }
};

/// The format to use, or nullptr (with `null` set) when the pattern argument is NULL.
const DateFormat* format_of(const Node& n, std::size_t i, EvalContext& c, bool& null) {
    const auto& cache = n.st<FormatCache>();
    if (cache.fixed) return cache.fixed.get();
    Datum p = n.args[i]->eval(c);
    if (p.null) {
        null = true;
        return nullptr;
    }
    if ((!cache.last && !cache.last_invalid) || cache.text != p.s) {
        std::string err;
        auto f = DateFormat::compile(p.s, &err, cache.dialect);
        if (!f && !cache.invalid_is_null)
            throw EvalError("invalid date format '" + std::string(p.s) + "': " + err);
        cache.last = f;
        cache.last_invalid = !f;
        cache.text = std::string(p.s);
    }
    if (cache.last_invalid) null = true;
    return cache.last.get();
}

/// The pattern is argument i, or `default_pattern` when there is no argument i.
FormatCache& set_format_state(CallSite& c, Node& n, std::size_t i, const char* default_pattern,
                              DateFormat::Dialect dialect = DateFormat::Dialect::Simple,
                              bool invalid_is_null = false) {
    auto cache = std::make_shared<FormatCache>();
    cache->dialect = dialect;
    cache->invalid_is_null = invalid_is_null;
    if (i < n.args.size()) {
        const Node& p = *n.args[i];
        if (p.is_constant && !p.constant.null) {
            std::string err;
            cache->fixed = DateFormat::compile(p.constant.s, &err, dialect);
            if (!cache->fixed && !invalid_is_null)
                c.fail_arg(i, "invalid date format '" + std::string(p.constant.s) + "': " + err);
        }
    } else {
        cache->fixed = DateFormat::compile(default_pattern, nullptr, dialect);
    }
    if (cache->fixed) cache->resolution = cache->fixed->resolution_millis();
    n.state = cache;
    return *cache;
}

// DATE_FORMAT(<timestamp, date, time or text>, pattern): TIMESTAMP_LTZ in the session zone
// (TemporalFunctions.dateFormat(Instant, ...)); TIMESTAMP as its wall-clock time in the session
// zone; both with SimpleDateFormat. DATE and TIME with DateTimeFormatter (S is a fraction).
Datum eval_date_format(const Node& n, EvalContext& c) {
    Datum d = n.args[0]->eval(c);
    if (d.null) return d;
    bool null = false;
    const DateFormat* format = format_of(n, 1, c, null);
    if (null) return Datum{};
    const DateFormat& f = *format;
    const DataType& t = n.args[0]->type;
    std::int64_t local = 0;
    std::int32_t nanos = 0;
    if (is_text(t)) {
        auto ts = temporal::parse_timestamp(d.s);
        if (!ts) return Datum{};
        local = ts->millis;
        nanos = ts->nanos_of_milli;
    } else {
        local = local_millis(d, t, c);
        nanos = nanos_within_milli(d, t);
    }
    const auto& cache = n.st<FormatCache>();
    // Only the fixed pattern's output is kept; it has no zone fields (resolution 0 otherwise).
    if (cache.resolution > 0 && &f == cache.fixed.get())
        return Datum::of_string(cache.format_fixed(local, nanos));
    LocalFields fields = fields_of(local, nanos);
    if (t.root() == TypeRoot::TimestampLtz) {
        fields.offset_seconds = c.zone_offset_at(floor_div(d.i, 1000));
        fields.zone_id = zone_of(c).id();
    } else if (t.root() == TypeRoot::Timestamp) {
        fields.offset_seconds = zone_of(c).offset_at_local(floor_div(local, 1000));
        fields.zone_id = zone_of(c).id();
    }
    return Datum::of_string(c.arena.copy(f.format(fields)));
}
// DATE_FORMAT(<timestamp, date or time>, '<constant pattern without zone fields>'): the output
// depends on the wall-clock time only, so it is kept for the span of the pattern's smallest
// field (the cache is keyed on local time, which stays right across offset changes).
Datum eval_date_format_fixed(const Node& n, EvalContext& c) {
    Datum d = n.args[0]->eval(c);
    if (d.null) return d;
    const DataType& t = n.args[0]->type;
    std::int32_t nanos = nanos_within_milli(d, t);
    return Datum::of_string(n.st<FormatCache>().format_fixed(local_millis(d, t, c), nanos));
}
NodePtr b_date_format(CallSite& c) {
    c.arity(2, 2);
    if (!is_time_input(c.type(0)) && !is_text(c.type(0)) && !c.args[0]->null_literal)
        c.fail("Cannot apply '" + c.name + "' to arguments of type " + c.signature());
    c.require_text(1);
    // TemporalFunctions.dateFormat(LocalDate/LocalTime, ...) format with DateTimeFormatter.
    auto root = c.type(0).root();
    auto dialect = root == TypeRoot::Date || root == TypeRoot::Time ? DateFormat::Dialect::JavaTime
                                                                    : DateFormat::Dialect::Simple;
    auto n = make_node(eval_date_format, DataType::string().with_nullable(true), std::move(c.args));
    set_format_state(c, *n, 1, nullptr, dialect);
    if (n->st<FormatCache>().resolution > 0 && is_time_input(n->args[0]->type))
        n->fn = eval_date_format_fixed;
    return n;
}

// DATE_FORMAT_TZ(ts, [pattern,] zone) (TemporalFunctions.dateFormatTz): ZonedDateTime.format
// with DateTimeFormatter. A TIMESTAMP keeps its wall-clock time and takes the zone; a
// TIMESTAMP_LTZ is shown in the zone. The default pattern is 'yyyy-MM-dd HH:mm:ss'.
Datum eval_date_format_tz(const Node& n, EvalContext& c) {
    Datum d = n.args[0]->eval(c);
    if (d.null) return d;
    bool null = false;
    const DateFormat* format = format_of(n, 1, c, null);
    if (null) return Datum{};
    Datum tz = n.args.back()->eval(c);
    if (tz.null) throw EvalError("DATE_FORMAT_TZ: the time zone is NULL");
    auto z = Zone::find(tz.s);
    if (!z) throw EvalError("Unknown time zone '" + std::string(tz.s) + "'");
    std::int64_t instant = n.args[0]->type.root() == TypeRoot::TimestampLtz
                               ? d.i
                               : from_local(d.i, *z);  // LocalDateTime.atZone
    std::int32_t off = z->offset_at_instant(floor_div(instant, 1000));
    LocalFields fields = fields_of(instant + off * 1000LL, d.nanos);
    fields.offset_seconds = off;
    fields.zone_id = z->id();
    return Datum::of_string(c.arena.copy(format->format(fields)));
}
NodePtr b_date_format_tz(CallSite& c) {
    c.arity(2, 3);
    auto root = c.type(0).root();
    if (root != TypeRoot::Timestamp && root != TypeRoot::TimestampLtz && !c.args[0]->null_literal)
        c.fail("Cannot apply '" + c.name + "' to arguments of type " + c.signature());
    for (std::size_t i = 1; i < c.args.size(); ++i) c.require_text(i);
    const Node& z = *c.args.back();
    if (z.is_constant && !z.constant.null && !Zone::find(z.constant.s))
        c.fail_arg(c.args.size() - 1, "Unknown time zone '" + std::string(z.constant.s) + "'");
    std::size_t pattern = c.args.size() == 3 ? 1 : c.args.size();
    auto n =
        make_node(eval_date_format_tz, DataType::string().with_nullable(true), std::move(c.args));
    set_format_state(c, *n, pattern, "yyyy-MM-dd HH:mm:ss", DateFormat::Dialect::JavaTime);
    return n;
}

std::int64_t add_months(std::int64_t local, std::int64_t months) {
    std::int64_t days = floor_div(local, kMillisPerDay), ms = floor_mod(local, kMillisPerDay);
    auto cd = temporal::civil_from_days(days);
    std::int64_t total = cd.year * 12 + (cd.month - 1) + months;
    std::int64_t y = floor_div(total, 12);
    unsigned m = static_cast<unsigned>(floor_mod(total, 12) + 1);
    unsigned dim = static_cast<unsigned>(
        temporal::days_from_civil(m == 12 ? y + 1 : y, m == 12 ? 1 : m + 1, 1) -
        temporal::days_from_civil(y, m, 1));
    return temporal::days_from_civil(y, m, std::min<unsigned>(cd.day, dim)) * kMillisPerDay + ms;
}

// Adds `amount` of unit (months when param2 = 1, else millis) to a temporal value.
Datum shift(const Datum& d, const DataType& t, bool months, std::int64_t amount) {
    switch (t.root()) {
        case TypeRoot::Date:
            // temporalPlusMillis(LocalDate, long) adds only the whole days of a day-time interval
            // (Java's division: toward zero), so DATE '2024-02-28' ± INTERVAL '12' HOUR is the
            // same DATE.
            if (!months) return Datum::of_long(d.i + amount / kMillisPerDay);
            return Datum::of_long(
                floor_div(add_months(d.i * kMillisPerDay, amount), kMillisPerDay));
        case TypeRoot::Time: {
            std::int64_t ms =
                months ? d.i / 1000000 : floor_mod(d.i / 1000000 + amount, kMillisPerDay);
            return Datum::of_long(ms * 1000000 + d.i % 1000000);
        }
        case TypeRoot::TimestampLtz:
            // Months by the UTC calendar, whatever the session zone
            // (TemporalFunctions.temporalPlusMonths(Instant, long)).
            return Datum::of_timestamp(
                Timestamp{months ? add_months(d.i, amount) : d.i + amount, d.nanos});
        default: {
            Datum r = d;
            r.i = months ? add_months(d.i, amount) : d.i + amount;
            return r;
        }
    }
}

Datum eval_interval_arith(const Node& n, EvalContext& c) {
    Datum d = n.args[0]->eval(c);
    if (d.null) return d;
    Datum amount = n.args[1]->eval(c);
    std::int64_t v = n.param ? -amount.i : amount.i;
    return shift(d, n.type, n.param2 == 1, v);
}

}  // namespace

NodePtr build_interval_arith(CallSite& c, bool minus) {
    if (c.args[0]->interval) {
        if (minus) c.fail("Cannot subtract a temporal value from an INTERVAL");
        std::swap(c.args[0], c.args[1]);
    }
    if (c.args[0]->interval || !is_time_input(c.type(0)))
        c.fail("Cannot apply '" + c.name + "' to arguments of type " + c.signature());
    int kind = c.args[1]->interval;
    // The temporal operand's type, whatever the interval's unit: Calcite 1.32 types `+`/`-` by
    // SqlTypeFactoryImpl.leastRestrictive (datetime ± interval = the datetime), and
    // StandardConvertletTable.convertPlus keeps that type for DATETIME_PLUS.
    DataType t = c.type(0);
    NodePtr n = make_node(eval_interval_arith, t, std::move(c.args));
    n->param = minus;
    n->param2 = kind;
    return n;
}

namespace {

std::int64_t unit_millis(Unit u) {
    switch (u) {
        case kWeek:
            return 7 * kMillisPerDay;
        case kDay:
            return kMillisPerDay;
        case kHour:
            return 3600000;
        case kMinute:
            return 60000;
        case kSecond:
            return 1000;
        default:
            return 1;
    }
}

// The units of TIMESTAMPDIFF, TIMESTAMP_DIFF and TIMESTAMPADD (DateTimeUtils.timestampDiff and
// timestampAdd take these six; the others fail there).
std::optional<Unit> calendar_unit_of(std::string_view s) {
    if (s == "SECOND") return kSecond;
    if (s == "MINUTE") return kMinute;
    if (s == "HOUR") return kHour;
    if (s == "DAY") return kDay;
    if (s == "MONTH") return kMonth;
    if (s == "YEAR") return kYear;
    return std::nullopt;
}
std::string unsupported_unit(std::string_view u) {
    return "Unsupported timestamp interval unit " + std::string(u) +
           ". Supported units are: SECOND, MINUTE, HOUR, DAY, MONTH, YEAR";
}
// The unit of a symbol argument (TIMESTAMPDIFF(SQL_TSI_HOUR, ...) is Calcite's HOUR).
std::string symbol_unit(const std::string& text) {
    return text.rfind("SQL_TSI_", 0) == 0 ? text.substr(8) : text;
}

// A timestamp as java.util.Calendar holds it in DateTimeUtils: the instant (whole milliseconds:
// Date.from drops the rest) and the calendar fields in the calendar's zone. A TIMESTAMP_LTZ is
// read in UTC; a wall-clock value is placed in the session zone (LocalDateTime.atZone).
struct CalendarPoint {
    std::int64_t millis;
    std::int64_t year;  // Calendar.YEAR: the year of era (1 BC is 1)
    int month;          // 1..12
};
CalendarPoint calendar_point(const Datum& d, const DataType& t, EvalContext& c) {
    std::int64_t instant, wall;
    if (t.root() == TypeRoot::TimestampLtz) {
        instant = wall = d.i;
    } else {
        instant = from_local(local_millis(d, t, c), zone_of(c));
        wall = to_local(instant, c);
    }
    auto cd = temporal::civil_from_days(floor_div(wall, kMillisPerDay));
    return {instant, cd.year > 0 ? cd.year : 1 - cd.year, static_cast<int>(cd.month)};
}

Datum timestamp_diff(Unit u, const CalendarPoint& from, const CalendarPoint& to) {
    // Java's long arithmetic: wraps, and divides toward zero.
    auto delta = static_cast<std::int64_t>(static_cast<std::uint64_t>(to.millis) -
                                           static_cast<std::uint64_t>(from.millis));
    std::int64_t second = delta / 1000;
    switch (u) {
        case kSecond:
        case kMinute:
        case kHour:
        case kDay: {
            if (second > INT32_MAX) return Datum{};        // only this bound is checked
            auto s32 = static_cast<std::int32_t>(second);  // (int) second: the low 32 bits
            std::int32_t per = u == kSecond ? 1 : u == kMinute ? 60 : u == kHour ? 3600 : 86400;
            return Datum::of_long(s32 / per);
        }
        case kMonth:
            return Datum::of_long(static_cast<std::int32_t>((to.year * 12 + to.month) -
                                                            (from.year * 12 + from.month)));
        default:  // kYear
            return Datum::of_long(static_cast<std::int32_t>(to.year - from.year));
    }
}

// param: the unit, or -1 when it is a TIMESTAMP_DIFF argument evaluated per row.
Datum eval_timestampdiff(const Node& n, EvalContext& c) {
    Datum a = n.args[1]->eval(c);
    Datum b = n.args[2]->eval(c);
    if (a.null || b.null) return Datum{};
    Unit u;
    if (n.param >= 0) {
        u = static_cast<Unit>(n.param);
    } else {
        Datum unit = n.args[0]->eval(c);
        if (unit.null) throw EvalError("TIMESTAMP_DIFF: the time interval unit is NULL");
        auto cu = calendar_unit_of(unit.s);
        if (!cu) throw EvalError(unsupported_unit(unit.s));
        u = *cu;
    }
    return timestamp_diff(u, calendar_point(a, n.args[1]->type, c),
                          calendar_point(b, n.args[2]->type, c));
}
NodePtr build_timestampdiff(CallSite& c, bool symbol) {
    c.arity(3, 3);
    std::int64_t unit = -1;
    if (symbol) {
        std::string u = symbol_unit(c.args[0]->text);
        auto cu = calendar_unit_of(u);
        if (!cu) c.fail_arg(0, unsupported_unit(u));
        unit = *cu;
    } else {
        c.require_text(0);
        const Node& a = *c.args[0];
        if (a.is_constant && !a.constant.null) {
            auto cu = calendar_unit_of(a.constant.s);
            if (!cu) c.fail_arg(0, unsupported_unit(a.constant.s));
            unit = *cu;
        }
    }
    for (std::size_t i = 1; i < 3; ++i)
        if (!is_time_input(c.type(i)) && !c.args[i]->null_literal)
            c.fail("Cannot apply '" + c.name + "' to arguments of type " + c.signature());
    auto n = make_node(eval_timestampdiff, DataType::int_().with_nullable(true), std::move(c.args));
    n->param = unit;
    return n;
}
NodePtr b_timestampdiff(CallSite& c) {
    return build_timestampdiff(c, true);
}
// TIMESTAMP_DIFF('SECOND', a, b): the unit is a string (checked when the row is evaluated).
NodePtr b_timestamp_diff(CallSite& c) {
    return build_timestampdiff(c, false);
}

// TIMESTAMPADD (TemporalFunctions.timestampadd, DateTimeUtils.timestampAdd): java.util.Calendar
// arithmetic on whole milliseconds. TIMESTAMP_LTZ in UTC; TIMESTAMP in the session zone, where
// SECOND/MINUTE/HOUR add elapsed time and DAY/MONTH/YEAR add to the wall-clock date.
Datum eval_timestampadd(const Node& n, EvalContext& c) {
    Datum k = n.args[1]->eval(c);
    Datum d = n.args[2]->eval(c);
    if (k.null || d.null) return Datum{};
    auto u = static_cast<Unit>(n.param);
    auto amount = static_cast<std::int64_t>(static_cast<std::int32_t>(k.i));  // an Integer
    const DataType& t = n.args[2]->type;
    if (t.root() == TypeRoot::Date || t.root() == TypeRoot::Time) {
        if (u == kYear) return shift(d, n.type, true, amount * 12);
        if (u == kMonth) return shift(d, n.type, true, amount);
        return shift(d, n.type, false, amount * unit_millis(u));
    }
    bool ltz = t.root() == TypeRoot::TimestampLtz;
    std::int64_t instant = ltz ? d.i : from_local(d.i, zone_of(c));
    std::int64_t wall = ltz ? d.i : to_local(instant, c);
    switch (u) {
        case kSecond:
        case kMinute:
        case kHour:
            instant += amount * unit_millis(u);
            break;
        case kDay:
            instant = ltz ? instant + amount * kMillisPerDay
                          : from_local(wall + amount * kMillisPerDay, zone_of(c));
            break;
        default: {
            std::int64_t shifted = add_months(wall, u == kYear ? amount * 12 : amount);
            instant = ltz ? shifted : from_local(shifted, zone_of(c));
            break;
        }
    }
    return Datum::of_timestamp(Timestamp{ltz ? instant : to_local(instant, c), 0});
}
NodePtr b_timestampadd(CallSite& c) {
    c.arity(3, 3);
    std::string unit = symbol_unit(c.args[0]->text);
    auto u = calendar_unit_of(unit);
    if (!u) c.fail_arg(0, unsupported_unit(unit));
    c.require_integer(1);
    if (!is_time_input(c.type(2)))
        c.fail("Cannot apply 'TIMESTAMPADD' to arguments of type " + c.signature());
    DataType t = c.type(2);
    if (t.root() == TypeRoot::Date && (*u == kHour || *u == kMinute || *u == kSecond)) {
        c.args[2] = coerce(std::move(c.args[2]), DataType::timestamp(0), c.expr.pos);
        t = DataType::timestamp(0);
    }
    // The type of the timestamp argument, at most Calcite's TIMESTAMP precision (3): the value
    // has whole milliseconds.
    if (t.root() == TypeRoot::Timestamp && t.precision() > 3) t = DataType::timestamp(3);
    if (t.root() == TypeRoot::TimestampLtz && t.precision() > 3) t = DataType::timestamp_ltz(3);
    bool nullable = c.any_nullable();
    auto n = make_node(eval_timestampadd, t.with_nullable(nullable), std::move(c.args));
    n->param = *u;
    return n;
}

// Parses text with the node's format into wall-clock millis; nullopt when it does not parse.
// With `need_date`, a pattern without a whole date does not parse (LocalDate.parse).
std::optional<Timestamp> parse_with(const Node& n, const Datum& s, EvalContext& c, bool& null,
                                    bool need_date = false) {
    const DateFormat* format = format_of(n, 1, c, null);
    if (null) return std::nullopt;
    const DateFormat& f = *format;
    if (need_date && !f.has_date_fields()) return std::nullopt;
    bool has_offset = false;
    auto fields = f.parse(s.s, &has_offset);
    if (!fields) return std::nullopt;
    std::int64_t local = local_millis_of(*fields);
    if (has_offset)
        local = local - fields->offset_seconds * 1000LL +
                c.zone_offset_at(floor_div(local - fields->offset_seconds * 1000LL, 1000)) * 1000LL;
    return Timestamp{local, fields->nanos % 1000000};
}

// param: 0 TO_DATE, 1 TO_TIMESTAMP, 3 UNIX_TIMESTAMP(s)
Datum eval_parse(const Node& n, EvalContext& c) {
    Datum s = n.args[0]->eval(c);
    if (s.null) return s;
    bool null = false;
    auto ts = parse_with(n, s, c, null, n.param == 0);
    if (null) return Datum{};
    if (n.param == 0) {
        // DateTimeUtils.parseDate: NULL when LocalDate.parse fails.
        if (!ts) return Datum{};
        return Datum::of_long(floor_div(ts->millis, kMillisPerDay));
    }
    if (n.param == 1) {
        // TemporalFunctions.toTimestamp rethrows SimpleDateFormat's ParseException.
        if (!ts) throw EvalError("Unparseable date: \"" + std::string(s.s) + "\"");
        // Placed in the session zone and read back (a time in a gap moves past it).
        std::int64_t instant = from_local(ts->millis, zone_of(c));
        return Datum::of_timestamp(Timestamp{to_local(instant, c), ts->nanos_of_milli});
    }
    // DateTimeUtils.unixTimestamp: Long.MIN_VALUE when it does not parse; millis / 1000 rounds
    // toward zero.
    if (!ts) return Datum::of_long(LLONG_MIN);
    return Datum::of_long(from_local(ts->millis, zone_of(c)) / 1000);
}
NodePtr build_parse(CallSite& c, int kind, const DataType& t, const char* default_pattern,
                    DateFormat::Dialect dialect = DateFormat::Dialect::Simple) {
    c.arity(1, 2);
    for (std::size_t i = 0; i < c.args.size(); ++i) c.require_text(i);
    auto n = make_node(eval_parse, t, std::move(c.args));
    n->param = kind;
    set_format_state(c, *n, 1, default_pattern, dialect, kind == 0);
    return n;
}

// TO_DATE(<timestamp>): TIMESTAMP and TIMESTAMP_TZ by their own date; TIMESTAMP_LTZ by its UTC
// date, whatever the session zone (TemporalFunctions.toDate(Instant)).
Datum eval_to_date_of_timestamp(const Node& n, EvalContext& c) {
    Datum d = n.args[0]->eval(c);
    if (d.null) return d;
    const DataType& t = n.args[0]->type;
    std::int64_t millis = t.root() == TypeRoot::TimestampLtz ? d.i : local_millis(d, t, c);
    return Datum::of_long(floor_div(millis, kMillisPerDay));
}
NodePtr b_to_date(CallSite& c) {
    c.arity(1, 2);
    if (c.args.size() == 1 && is_time_input(c.type(0)))
        return make_node(eval_to_date_of_timestamp, DataType::date().with_nullable(true),
                         std::move(c.args));
    // DateTimeUtils.parseDate: LocalDate.parse with DateTimeFormatter; NULL when it fails.
    return build_parse(c, 0, DataType::date().with_nullable(true), "yyyy-MM-dd",
                       DateFormat::Dialect::JavaTime);
}
NodePtr b_to_timestamp(CallSite& c) {
    return build_parse(c, 1, DataType::timestamp(3).with_nullable(true), "yyyy-MM-dd HH:mm:ss");
}

// TO_TIMESTAMP_LTZ(epoch [, precision]): epoch milliseconds, or epoch seconds with precision 0
// (TemporalFunctions.toTimestampLtz(Long[, Integer])).
Datum eval_ltz_of_epoch(const Node& n, EvalContext& c) {
    Datum v = n.args[0]->eval(c);
    if (v.null) return v;
    std::int64_t precision = 3;
    if (n.args.size() > 1) {
        Datum p = n.args[1]->eval(c);
        if (p.null) throw EvalError("TO_TIMESTAMP_LTZ precision must be 0 or 3, but get: null");
        precision = p.i;
    }
    if (precision == 3) return Datum::of_timestamp(Timestamp{v.i, 0});
    if (precision != 0)
        throw EvalError("TO_TIMESTAMP_LTZ precision must be 0 or 3, but get: " +
                        std::to_string(precision));
    if (v.i > INT64_MAX / 1000 || v.i < INT64_MIN / 1000)
        throw EvalError("TO_TIMESTAMP_LTZ: " + std::to_string(v.i) +
                        " epoch seconds are out of the range of a timestamp");
    return Datum::of_timestamp(Timestamp{v.i * 1000, 0});
}
// TO_TIMESTAMP_LTZ(text [, pattern [, zone]]): LocalDateTime.parse with DateTimeFormatter
// (default 'yyyy-MM-dd HH:mm:ss.SSS'), placed in `zone` (default UTC, not the session zone);
// text that does not parse fails the row, as DateTimeParseException fails Flink's job.
Datum eval_ltz_of_text(const Node& n, EvalContext& c) {
    Datum s = n.args[0]->eval(c);
    if (s.null) return s;
    bool null = false;
    const DateFormat* format = format_of(n, 1, c, null);
    if (null) return Datum{};
    const Zone* zone = Zone::utc().get();
    std::shared_ptr<const Zone> named;
    if (n.args.size() > 2) {
        Datum tz = n.args[2]->eval(c);
        if (tz.null) return Datum{};
        named = Zone::find(tz.s);
        if (!named) throw EvalError("Unknown time zone '" + std::string(tz.s) + "'");
        zone = named.get();
    }
    auto fields = format->has_date_fields() && format->has_hour_field()
                      ? format->parse(s.s)
                      : std::nullopt;  // LocalDateTime needs a date and an hour
    if (!fields)
        throw EvalError("TO_TIMESTAMP_LTZ: text '" + std::string(s.s) +
                        "' could not be parsed as a date-time");
    // TIMESTAMP_LTZ(3) is stored compact, in whole milliseconds.
    return Datum::of_timestamp(Timestamp{from_local(local_millis_of(*fields), *zone), 0});
}
NodePtr b_to_timestamp_ltz(CallSite& c) {
    c.arity(1, 3);
    DataType t = DataType::timestamp_ltz(3).with_nullable(true);
    if (is_integral(c.type(0)) || (c.args[0]->null_literal && c.args.size() == 1)) {
        if (c.args.size() > 2)
            c.fail("Cannot apply '" + c.name + "' to arguments of type " + c.signature());
        if (c.args.size() == 2) {
            c.require_integer(1);
            const Node& p = *c.args[1];
            if (p.is_constant && !p.constant.null && p.constant.i != 0 && p.constant.i != 3)
                c.fail_arg(1, "TO_TIMESTAMP_LTZ precision must be 0 or 3, but get: " +
                                  std::to_string(p.constant.i));
        }
        return make_node(eval_ltz_of_epoch, t, std::move(c.args));
    }
    for (std::size_t i = 0; i < c.args.size(); ++i) c.require_text(i);
    if (c.args.size() == 3) {
        const Node& z = *c.args[2];
        if (z.is_constant && !z.constant.null && !Zone::find(z.constant.s))
            c.fail_arg(2, "Unknown time zone '" + std::string(z.constant.s) + "'");
    }
    auto n = make_node(eval_ltz_of_text, t, std::move(c.args));
    set_format_state(c, *n, 1, "yyyy-MM-dd HH:mm:ss.SSS", DateFormat::Dialect::JavaTime);
    return n;
}

Datum eval_unix_now(const Node&, EvalContext& c) {
    return Datum::of_long(floor_div(c.now(), 1000));
}
NodePtr b_unix_timestamp(CallSite& c) {
    c.arity(0, 2);
    if (c.args.empty()) {
        auto n = make_node(eval_unix_now, DataType::bigint().not_null(), {});
        n->reads_clock = true;
        return n;
    }
    return build_parse(c, 3, DataType::bigint(), "yyyy-MM-dd HH:mm:ss");
}

Datum eval_from_unixtime(const Node& n, EvalContext& c) {
    Datum s = n.args[0]->eval(c);
    if (s.null) return s;
    bool null = false;
    const DateFormat* format = format_of(n, 1, c, null);
    if (null) return Datum{};
    const DateFormat& f = *format;
    std::int64_t instant = s.i * 1000;
    std::int32_t off = c.zone_offset_at(s.i);
    LocalFields fields = fields_of(instant + off * 1000LL, 0);
    fields.offset_seconds = off;
    fields.zone_id = zone_of(c).id();
    return Datum::of_string(c.arena.copy(f.format(fields)));
}
NodePtr b_from_unixtime(CallSite& c) {
    c.arity(1, 2);
    c.require_integer(0);
    if (c.args.size() > 1) c.require_text(1);
    auto n =
        make_node(eval_from_unixtime, DataType::string().with_nullable(true), std::move(c.args));
    set_format_state(c, *n, 1, "yyyy-MM-dd HH:mm:ss");
    return n;
}

struct DateAddFormats {
    std::shared_ptr<const DateFormat> date, date_time;
};

// DATE_ADD(<timestamp, date or text>, days) -> 'yyyy-MM-dd' text (TemporalFunctions.dateAdd):
// a TIMESTAMP_LTZ by its date in the session zone; text of length 10 is a 'yyyy-MM-dd' date,
// of length 19 a 'yyyy-MM-dd HH:mm:ss' timestamp; other text fails the row, as it fails Flink.
Datum eval_date_add(const Node& n, EvalContext& c) {
    Datum d = n.args[0]->eval(c);
    Datum k = n.args[1]->eval(c);
    if (d.null || k.null) return Datum{};
    const DataType& t = n.args[0]->type;
    std::int64_t days;
    if (is_text(t)) {
        const auto& formats = n.st<DateAddFormats>();
        const DateFormat* f = d.s.size() == 10   ? formats.date.get()
                              : d.s.size() == 19 ? formats.date_time.get()
                                                 : nullptr;
        if (!f) throw EvalError("Unparseable timestamp: " + std::string(d.s));
        auto fields = f->parse(d.s);
        if (!fields)
            throw EvalError("DATE_ADD: text '" + std::string(d.s) + "' could not be parsed");
        days = temporal::days_from_civil(fields->year, static_cast<unsigned>(fields->month),
                                         static_cast<unsigned>(fields->day));
    } else {
        days = floor_div(local_millis(d, t, c), kMillisPerDay);
    }
    auto amount = static_cast<std::int64_t>(static_cast<std::int32_t>(k.i));  // an int
    char buf[temporal::kMaxTemporalText];
    char* end = temporal::write_date(buf, days + amount);
    return Datum::of_string(c.arena.copy(std::string_view(buf, end - buf)));
}
NodePtr b_date_add(CallSite& c) {
    c.arity(2, 2);
    if (!is_time_input(c.type(0)) && !is_text(c.type(0)) && !c.args[0]->null_literal)
        c.fail("Cannot apply 'DATE_ADD' to arguments of type " + c.signature());
    c.require_integer(1);
    auto n = make_node(eval_date_add, DataType::string().with_nullable(true), std::move(c.args));
    auto formats = std::make_shared<DateAddFormats>();
    formats->date = DateFormat::compile("yyyy-MM-dd", nullptr, DateFormat::Dialect::JavaTime);
    formats->date_time =
        DateFormat::compile("yyyy-MM-dd HH:mm:ss", nullptr, DateFormat::Dialect::JavaTime);
    n->state = formats;
    return n;
}

}  // namespace

void register_temporal(Registry& r) {
    r["CURRENT_TIMESTAMP"] = b_current_timestamp;
    r["NOW"] = b_current_timestamp;
    r["LOCALTIMESTAMP"] = b_localtimestamp;
    r["LOCALTIME"] = b_localtime;
    r["CURRENT_TIME"] = b_localtime;
    r["CURRENT_DATE"] = b_current_date;
    r["EXTRACT"] = b_extract;
    r["YEAR"] = b_field<kYear>;
    r["QUARTER"] = b_field<kQuarter>;
    r["MONTH"] = b_field<kMonth>;
    r["WEEK"] = b_field<kWeek>;
    r["DAYOFYEAR"] = b_field<kDoy>;
    r["DAYOFMONTH"] = b_field<kDay>;
    r["DAYOFWEEK"] = b_field<kDow>;
    r["HOUR"] = b_field<kHour>;
    r["MINUTE"] = b_field<kMinute>;
    r["SECOND"] = b_field<kSecond>;
    r["DATE_FORMAT"] = b_date_format;
    r["DATE_FORMAT_TZ"] = b_date_format_tz;
    r["TIMESTAMPADD"] = b_timestampadd;
    r["TIMESTAMPDIFF"] = b_timestampdiff;
    r["TIMESTAMP_DIFF"] = b_timestamp_diff;
    r["TO_DATE"] = b_to_date;
    r["TO_TIMESTAMP"] = b_to_timestamp;
    r["TO_TIMESTAMP_LTZ"] = b_to_timestamp_ltz;
    r["UNIX_TIMESTAMP"] = b_unix_timestamp;
    r["FROM_UNIXTIME"] = b_from_unixtime;
    r["DATE_ADD"] = b_date_add;
}

}  // namespace cdcd::transform
