// Temporal functions, all in pipeline.local-time-zone: LOCALTIME, LOCALTIMESTAMP, CURRENT_*,
// NOW, EXTRACT and the field functions, DATE_FORMAT(_TZ), TIMESTAMPADD/DIFF, TO_DATE,
// TO_TIMESTAMP(_LTZ), FROM_UNIXTIME, UNIX_TIMESTAMP, DATE_ADD, ± INTERVAL.
#include <climits>

#include "pipeline/data/temporal.h"
#include "pipeline/transform/date_format.h"
#include "pipeline/transform/functions.h"

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
    if (!u) c.fail_arg(0, "unsupported EXTRACT unit " + c.args[0]->text);
    if (!is_time_input(c.type(1)))
        c.fail("Cannot apply 'EXTRACT' to arguments of type " + c.signature());
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
    std::shared_ptr<const DateFormat> fixed;
    mutable std::string text;
    mutable std::shared_ptr<const DateFormat> last;
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
    if (!cache.last || cache.text != p.s) {
        std::string err;
        auto f = DateFormat::compile(p.s, &err);
        if (!f) throw EvalError("invalid date format '" + std::string(p.s) + "': " + err);
        cache.last = f;
        cache.text = std::string(p.s);
    }
    return cache.last.get();
}

void set_format_state(CallSite& c, Node& n, std::size_t i, const char* default_pattern) {
    auto cache = std::make_shared<FormatCache>();
    if (i < n.args.size()) {
        const Node& p = *n.args[i];
        if (p.is_constant && !p.constant.null) {
            std::string err;
            cache->fixed = DateFormat::compile(p.constant.s, &err);
            if (!cache->fixed)
                c.fail_arg(i, "invalid date format '" + std::string(p.constant.s) + "': " + err);
        }
    } else {
        cache->fixed = DateFormat::compile(default_pattern, nullptr);
    }
    if (cache->fixed) cache->resolution = cache->fixed->resolution_millis();
    n.state = cache;
}

// param 1: DATE_FORMAT_TZ
Datum eval_date_format(const Node& n, EvalContext& c) {
    Datum d = n.args[0]->eval(c);
    if (d.null) return d;
    bool null = false;
    const DateFormat* format = format_of(n, 1, c, null);
    if (null) return Datum{};
    const DateFormat& f = *format;
    const DataType& t = n.args[0]->type;
    LocalFields fields;
    if (n.param) {
        Datum tz = n.args[2]->eval(c);
        if (tz.null) return tz;
        auto z = Zone::find(tz.s);
        if (!z) throw EvalError("Unknown time zone '" + std::string(tz.s) + "'");
        std::int64_t instant = t.root() == TypeRoot::Date ? d.i * kMillisPerDay : d.i;
        std::int32_t off = z->offset_at_instant(floor_div(instant, 1000));
        fields = fields_of(instant + off * 1000LL, d.nanos);
        fields.offset_seconds = off;
        fields.zone_id = z->id();
        return Datum::of_string(c.arena.copy(f.format(fields)));
    }
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
    fields = fields_of(local, nanos);
    if (t.root() == TypeRoot::TimestampLtz) {
        fields.offset_seconds = c.zone_offset_at(floor_div(d.i, 1000));
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
NodePtr build_date_format(CallSite& c, bool tz) {
    c.arity(tz ? 3 : 2, tz ? 3 : 2);
    if (!is_time_input(c.type(0)) && !is_text(c.type(0)) && !c.args[0]->null_literal)
        c.fail("Cannot apply '" + c.name + "' to arguments of type " + c.signature());
    c.require_text(1);
    if (tz) {
        c.require_text(2);
        const Node& z = *c.args[2];
        if (z.is_constant && !z.constant.null && !Zone::find(z.constant.s))
            c.fail_arg(2, "Unknown time zone '" + std::string(z.constant.s) + "'");
    }
    bool nullable = c.any_nullable() || is_text(c.type(0));
    auto n =
        make_node(eval_date_format, DataType::string().with_nullable(nullable), std::move(c.args));
    n->param = tz;
    set_format_state(c, *n, 1, nullptr);
    if (!tz && n->st<FormatCache>().resolution > 0 && is_time_input(n->args[0]->type))
        n->fn = eval_date_format_fixed;
    return n;
}
NodePtr b_date_format(CallSite& c) {
    return build_date_format(c, false);
}
NodePtr b_date_format_tz(CallSite& c) {
    return build_date_format(c, true);
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
Datum shift(const Datum& d, const DataType& t, bool months, std::int64_t amount, EvalContext& c) {
    switch (t.root()) {
        case TypeRoot::Date: {
            std::int64_t ms =
                months ? add_months(d.i * kMillisPerDay, amount) : d.i * kMillisPerDay + amount;
            return Datum::of_long(floor_div(ms, kMillisPerDay));
        }
        case TypeRoot::Time: {
            std::int64_t ms =
                months ? d.i / 1000000 : floor_mod(d.i / 1000000 + amount, kMillisPerDay);
            return Datum::of_long(ms * 1000000 + d.i % 1000000);
        }
        case TypeRoot::TimestampLtz:
            if (months) {
                std::int64_t local = add_months(to_local(d.i, c), amount);
                return Datum::of_timestamp(Timestamp{from_local(local, zone_of(c)), d.nanos});
            }
            return Datum::of_timestamp(Timestamp{d.i + amount, d.nanos});
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
    return shift(d, n.type, n.param2 == 1, v, c);
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
    DataType t = c.type(0);
    if (t.root() == TypeRoot::Date && kind == 2 && c.args[1]->constant.i % kMillisPerDay != 0)
        t = DataType::timestamp(0).with_nullable(t.nullable());
    NodePtr n;
    if (t.root() != c.type(0).root()) {
        auto conv = coerce(std::move(c.args[0]), t, c.expr.pos);
        std::vector<NodePtr> args;
        args.push_back(std::move(conv));
        args.push_back(std::move(c.args[1]));
        n = make_node(eval_interval_arith, t, std::move(args));
    } else {
        n = make_node(eval_interval_arith, t, std::move(c.args));
    }
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

Datum eval_timestampadd(const Node& n, EvalContext& c) {
    Datum k = n.args[1]->eval(c);
    Datum d = n.args[2]->eval(c);
    if (k.null || d.null) return Datum{};
    auto u = static_cast<Unit>(n.param);
    if (u == kYear) return shift(d, n.type, true, k.i * 12, c);
    if (u == kQuarter) return shift(d, n.type, true, k.i * 3, c);
    if (u == kMonth) return shift(d, n.type, true, k.i, c);
    if (u == kMicrosecond || u == kNanosecond) {
        std::int64_t nanos = u == kMicrosecond ? k.i * 1000 : k.i;
        std::int64_t total = static_cast<std::int64_t>(d.nanos) + floor_mod(nanos, 1000000);
        Datum r = shift(d, n.type, false, floor_div(nanos, 1000000) + total / 1000000, c);
        r.nanos = static_cast<std::int32_t>(total % 1000000);
        return r;
    }
    return shift(d, n.type, false, k.i * unit_millis(u), c);
}
NodePtr b_timestampadd(CallSite& c) {
    c.arity(3, 3);
    auto u = unit_of(c.args[0]->text);
    if (!u || *u == kDoy || *u == kDow || *u == kEpoch || *u == kIsoDow)
        c.fail_arg(0, "unsupported TIMESTAMPADD unit " + c.args[0]->text);
    c.require_integer(1);
    if (!is_time_input(c.type(2)))
        c.fail("Cannot apply 'TIMESTAMPADD' to arguments of type " + c.signature());
    DataType t = c.type(2);
    if (t.root() == TypeRoot::Date &&
        (*u == kHour || *u == kMinute || *u == kSecond || *u == kMillisecond)) {
        c.args[2] = coerce(std::move(c.args[2]), DataType::timestamp(0), c.expr.pos);
        t = DataType::timestamp(0);
    }
    bool nullable = c.any_nullable();
    auto n = make_node(eval_timestampadd, t.with_nullable(nullable), std::move(c.args));
    n->param = *u;
    return n;
}

Datum eval_timestampdiff(const Node& n, EvalContext& c) {
    Datum a = n.args[1]->eval(c);
    Datum b = n.args[2]->eval(c);
    if (a.null || b.null) return Datum{};
    // LTZ operands compare as instants; the others as wall-clock values.
    auto millis = [&](const Datum& d, const DataType& t) {
        return t.root() == TypeRoot::TimestampLtz ? d.i : local_millis(d, t, c);
    };
    std::int64_t x = millis(a, n.args[1]->type), y = millis(b, n.args[2]->type);
    auto u = static_cast<Unit>(n.param);
    if (u == kYear || u == kQuarter || u == kMonth) {
        auto ca = temporal::civil_from_days(floor_div(x, kMillisPerDay));
        auto cb = temporal::civil_from_days(floor_div(y, kMillisPerDay));
        std::int64_t months =
            (cb.year - ca.year) * 12 + (static_cast<int>(cb.month) - static_cast<int>(ca.month));
        // Not a full month yet when the later value's day/time is before the earlier one's.
        std::int64_t ra =
            x - add_months(x, 0) + (ca.day * kMillisPerDay) + floor_mod(x, kMillisPerDay);
        std::int64_t rb = (cb.day * kMillisPerDay) + floor_mod(y, kMillisPerDay);
        (void)ra;
        std::int64_t rest_a = ca.day * kMillisPerDay + floor_mod(x, kMillisPerDay);
        if (months > 0 && rb < rest_a) --months;
        if (months < 0 && rb > rest_a) ++months;
        if (u == kYear) return Datum::of_long(months / 12);
        if (u == kQuarter) return Datum::of_long(months / 3);
        return Datum::of_long(months);
    }
    std::int64_t diff = y - x;
    if (u == kMillisecond) return Datum::of_long(diff);
    if (u == kMicrosecond) return Datum::of_long(diff * 1000);
    if (u == kNanosecond) return Datum::of_long(diff * 1000000);
    return Datum::of_long(diff / unit_millis(u));
}
NodePtr b_timestampdiff(CallSite& c) {
    c.arity(3, 3);
    auto u = unit_of(c.args[0]->text);
    if (!u || *u == kDoy || *u == kDow || *u == kEpoch || *u == kIsoDow)
        c.fail_arg(0, "unsupported TIMESTAMPDIFF unit " + c.args[0]->text);
    for (std::size_t i = 1; i < 3; ++i)
        if (!is_time_input(c.type(i)) && !c.args[i]->null_literal)
            c.fail("Cannot apply 'TIMESTAMPDIFF' to arguments of type " + c.signature());
    bool nullable = c.any_nullable();
    auto n =
        make_node(eval_timestampdiff, DataType::int_().with_nullable(nullable), std::move(c.args));
    n->param = *u;
    return n;
}

// Parses text with the node's format into wall-clock millis; nullopt when it does not parse.
std::optional<Timestamp> parse_with(const Node& n, const Datum& s, EvalContext& c, bool& null) {
    const DateFormat* format = format_of(n, 1, c, null);
    if (null) return std::nullopt;
    const DateFormat& f = *format;
    bool has_offset = false;
    auto fields = f.parse(s.s, &has_offset);
    if (!fields) return std::nullopt;
    std::int64_t local = local_millis_of(*fields);
    if (has_offset)
        local = local - fields->offset_seconds * 1000LL +
                c.zone_offset_at(floor_div(local - fields->offset_seconds * 1000LL, 1000)) * 1000LL;
    return Timestamp{local, fields->nanos % 1000000};
}

// param: 0 TO_DATE, 1 TO_TIMESTAMP, 2 TO_TIMESTAMP_LTZ, 3 UNIX_TIMESTAMP(s)
Datum eval_parse(const Node& n, EvalContext& c) {
    Datum s = n.args[0]->eval(c);
    if (s.null) return s;
    const DataType& t = n.args[0]->type;
    if (n.param == 0 && !is_text(t)) {  // TO_DATE(timestamp)
        return Datum::of_long(floor_div(local_millis(s, t, c), kMillisPerDay));
    }
    bool null = false;
    auto ts = parse_with(n, s, c, null);
    if (null) return Datum{};
    if (!ts) return n.param == 3 ? Datum::of_long(LLONG_MIN) : Datum{};
    switch (n.param) {
        case 0:
            return Datum::of_long(floor_div(ts->millis, kMillisPerDay));
        case 1:
            return Datum::of_timestamp(*ts);
        case 2:
            return Datum::of_timestamp(
                Timestamp{from_local(ts->millis, zone_of(c)), ts->nanos_of_milli});
        default:
            return Datum::of_long(floor_div(from_local(ts->millis, zone_of(c)), 1000));
    }
}
NodePtr build_parse(CallSite& c, int kind, const DataType& t, const char* default_pattern) {
    c.arity(1, 2);
    if (kind == 0 && c.args.size() == 1 && is_time_input(c.type(0))) {
        bool nullable = c.type(0).nullable();
        auto n = make_node(eval_parse, t.with_nullable(nullable), std::move(c.args));
        n->param = 0;
        return n;
    }
    for (std::size_t i = 0; i < c.args.size(); ++i) c.require_text(i);
    auto n = make_node(eval_parse, kind == 3 ? t : t.with_nullable(true), std::move(c.args));
    n->param = kind;
    set_format_state(c, *n, 1, default_pattern);
    return n;
}
NodePtr b_to_date(CallSite& c) {
    return build_parse(c, 0, DataType::date(), "yyyy-MM-dd");
}
NodePtr b_to_timestamp(CallSite& c) {
    return build_parse(c, 1, DataType::timestamp(3), "yyyy-MM-dd HH:mm:ss");
}
NodePtr b_to_timestamp_ltz(CallSite& c) {
    return build_parse(c, 2, DataType::timestamp_ltz(3), "yyyy-MM-dd HH:mm:ss");
}

Datum eval_unix_now(const Node&, EvalContext& c) {
    return Datum::of_long(floor_div(c.now(), 1000));
}
NodePtr b_unix_timestamp(CallSite& c) {
    c.arity(0, 2);
    if (c.args.empty()) return make_node(eval_unix_now, DataType::bigint().not_null(), {});
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
    bool nullable = c.any_nullable();
    auto n = make_node(eval_from_unixtime, DataType::string().with_nullable(nullable),
                       std::move(c.args));
    set_format_state(c, *n, 1, "yyyy-MM-dd HH:mm:ss");
    return n;
}

Datum eval_date_add(const Node& n, EvalContext& c) {
    Datum d = n.args[0]->eval(c);
    Datum k = n.args[1]->eval(c);
    if (d.null || k.null) return Datum{};
    const DataType& t = n.args[0]->type;
    std::int64_t days;
    if (is_text(t)) {
        auto v = temporal::parse_date(d.s.substr(0, std::min<std::size_t>(d.s.size(), 10)));
        if (!v) return Datum{};
        days = *v;
    } else {
        days = floor_div(local_millis(d, t, c), kMillisPerDay);
    }
    return Datum::of_long(days + k.i);
}
NodePtr b_date_add(CallSite& c) {
    c.arity(2, 2);
    if (!is_time_input(c.type(0)) && !is_text(c.type(0)) && !c.args[0]->null_literal)
        c.fail("Cannot apply 'DATE_ADD' to arguments of type " + c.signature());
    c.require_integer(1);
    bool nullable = c.any_nullable() || is_text(c.type(0));
    return make_node(eval_date_add, DataType::date().with_nullable(nullable), std::move(c.args));
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
    r["TO_DATE"] = b_to_date;
    r["TO_TIMESTAMP"] = b_to_timestamp;
    r["TO_TIMESTAMP_LTZ"] = b_to_timestamp_ltz;
    r["UNIX_TIMESTAMP"] = b_unix_timestamp;
    r["FROM_UNIXTIME"] = b_from_unixtime;
    r["DATE_ADD"] = b_date_add;
}

}  // namespace cdcd::transform
