// CAST / TRY_CAST and the implicit coercions of CASE/COALESCE/IF branches.
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "pipeline/data/temporal.h"
#include "pipeline/transform/functions.h"
#include "text/ascii.h"

namespace cdcd::transform {

namespace {

struct CastFailure {
    std::string message;
};

std::int64_t range_check(std::int64_t v, TypeRoot r, const std::string& what) {
    std::int64_t lo = INT64_MIN, hi = INT64_MAX;
    switch (r) {
        case TypeRoot::TinyInt:
            lo = -128, hi = 127;
            break;
        case TypeRoot::SmallInt:
            lo = -32768, hi = 32767;
            break;
        case TypeRoot::Int:
            lo = INT32_MIN, hi = INT32_MAX;
            break;
        default:
            break;
    }
    if (v < lo || v > hi) throw CastFailure{"Value " + what + " out of range"};
    return v;
}

std::int64_t to_integer(const Datum& d, const DataType& from, TypeRoot to) {
    switch (from.root()) {
        case TypeRoot::Boolean:
            return d.i;
        case TypeRoot::TinyInt:
        case TypeRoot::SmallInt:
        case TypeRoot::Int:
        case TypeRoot::BigInt:
            return range_check(d.i, to, std::to_string(d.i));
        case TypeRoot::Float:
        case TypeRoot::Double: {
            double t = std::trunc(d.d);
            if (std::isnan(t) || t < -9.3e18 || t > 9.3e18)
                throw CastFailure{"Value " + std::to_string(d.d) + " out of range"};
            return range_check(static_cast<std::int64_t>(t), to, std::to_string(d.d));
        }
        case TypeRoot::Decimal: {
            __int128 q = d.dec / pow10_128(from.scale());
            if (q < INT64_MIN || q > INT64_MAX) throw CastFailure{"Value out of range"};
            return range_check(static_cast<std::int64_t>(q), to,
                               Decimal{d.dec}.to_string(from.scale()));
        }
        case TypeRoot::Char:
        case TypeRoot::Varchar: {
            auto s = ascii::trim(d.s);
            std::int64_t v = 0;
            auto r =
                std::from_chars(s.data() + (s.starts_with("+") ? 1 : 0), s.data() + s.size(), v);
            if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size())
                throw CastFailure{"For input string: \"" + std::string(d.s) + "\""};
            return range_check(v, to, "\"" + std::string(d.s) + "\"");
        }
        default:
            throw CastFailure{"unsupported"};
    }
}

double to_floating(const Datum& d, const DataType& from) {
    if (from.is_numeric()) return to_double(d, from);
    if (from.root() == TypeRoot::Boolean) return static_cast<double>(d.i);
    if (is_text(from)) {
        std::string s(ascii::trim(d.s));
        char* end = nullptr;
        errno = 0;
        double v = std::strtod(s.c_str(), &end);
        if (s.empty() || end != s.c_str() + s.size())
            throw CastFailure{"For input string: \"" + std::string(d.s) + "\""};
        return v;
    }
    throw CastFailure{"unsupported"};
}

__int128 to_decimal(const Datum& d, const DataType& from, const DataType& to, bool& overflow) {
    __int128 v = 0;
    switch (from.root()) {
        case TypeRoot::Boolean:
        case TypeRoot::TinyInt:
        case TypeRoot::SmallInt:
        case TypeRoot::Int:
        case TypeRoot::BigInt:
            v = static_cast<__int128>(d.i) * pow10_128(to.scale());
            break;
        case TypeRoot::Decimal:
            v = rescale(d.dec, from.scale(), to.scale());
            break;
        case TypeRoot::Float:
        case TypeRoot::Double: {
            if (!std::isfinite(d.d))
                throw CastFailure{"Value " + std::to_string(d.d) + " cannot be a DECIMAL"};
            Decimal x;
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.17g", d.d);
            for (int prec = 1; prec <= 17; ++prec) {
                std::snprintf(buf, sizeof buf, "%.*g", prec, d.d);
                if (std::strtod(buf, nullptr) == d.d) break;
            }
            if (!Decimal::parse(buf, to.scale(), x)) {
                overflow = true;
                return 0;
            }
            v = x.unscaled;
            break;
        }
        case TypeRoot::Char:
        case TypeRoot::Varchar: {
            Decimal x;
            auto s = ascii::trim(d.s);
            if (s.empty() || !Decimal::parse(s, to.scale(), x))
                throw CastFailure{"Character " + std::string(d.s) +
                                  " is neither a decimal digit number"};
            v = x.unscaled;
            break;
        }
        default:
            throw CastFailure{"unsupported"};
    }
    if (!fits_precision(v, to.precision())) overflow = true;
    return v;
}

Timestamp truncate_ts(Timestamp t, int precision) {
    if (precision >= 9) return t;
    if (precision >= 3) {
        // nanos_of_milli holds digits 4..9 of the fraction.
        std::int32_t keep = 1;
        for (int k = 0; k < 9 - precision; ++k) keep *= 10;
        t.nanos_of_milli -= t.nanos_of_milli % keep;
        return t;
    }
    std::int64_t keep = 1;
    for (int k = 0; k < 3 - precision; ++k) keep *= 10;
    t.millis = temporal::floor_div(t.millis, keep) * keep;
    t.nanos_of_milli = 0;
    return t;
}

// Converts; throws CastFailure. `zone` for LTZ conversions.
Datum convert(const Datum& d, const DataType& from, const DataType& to, EvalContext& c) {
    if (d.null) return d;
    const Zone* zone = c.zone ? c.zone : Zone::utc().get();
    switch (to.root()) {
        case TypeRoot::Char:
        case TypeRoot::Varchar:
            return Datum::of_string(to_java_string(d, from, c.arena));
        case TypeRoot::Binary:
        case TypeRoot::Varbinary:
            if (is_text(from) || from.is_binary()) return d;
            break;
        case TypeRoot::Boolean:
            if (from.root() == TypeRoot::Boolean) return d;
            if (from.is_numeric())
                return Datum::of_bool(from.is_integer() ? d.i != 0 : to_double(d, from) != 0);
            if (is_text(from)) {
                std::string l = ascii::to_lower(ascii::trim(d.s));
                if (l == "true") return Datum::of_bool(true);
                if (l == "false") return Datum::of_bool(false);
                Datum num;
                try {
                    return Datum::of_bool(to_floating(d, from) != 0);
                } catch (const CastFailure&) {
                    throw CastFailure{"Cannot parse '" + std::string(d.s) + "' as BOOLEAN"};
                }
            }
            break;
        case TypeRoot::TinyInt:
        case TypeRoot::SmallInt:
        case TypeRoot::Int:
        case TypeRoot::BigInt:
            return Datum::of_long(to_integer(d, from, to.root()));
        case TypeRoot::Float:
            return Datum::of_double(static_cast<float>(to_floating(d, from)));
        case TypeRoot::Double:
            return Datum::of_double(to_floating(d, from));
        case TypeRoot::Decimal: {
            bool overflow = false;
            __int128 v = to_decimal(d, from, to, overflow);
            if (overflow) return Datum{};
            return Datum::of_decimal(v);
        }
        case TypeRoot::Date:
            if (from.root() == TypeRoot::Date) return d;
            if (is_text(from)) {
                auto v = temporal::parse_date(ascii::trim(d.s));
                if (!v) throw CastFailure{"Cannot parse '" + std::string(d.s) + "' as DATE"};
                return Datum::of_long(*v);
            }
            if (from.root() == TypeRoot::Timestamp)
                return Datum::of_long(temporal::floor_div(d.i, temporal::kMillisPerDay));
            if (from.root() == TypeRoot::TimestampLtz) {
                std::int64_t local =
                    d.i + zone->offset_at_instant(temporal::floor_div(d.i, 1000)) * 1000LL;
                return Datum::of_long(temporal::floor_div(local, temporal::kMillisPerDay));
            }
            break;
        case TypeRoot::Time:
            if (from.root() == TypeRoot::Time) return d;
            if (is_text(from)) {
                auto v = temporal::parse_time(ascii::trim(d.s));
                if (!v) throw CastFailure{"Cannot parse '" + std::string(d.s) + "' as TIME"};
                return Datum::of_long(*v);
            }
            if (from.root() == TypeRoot::Timestamp)
                return Datum::of_long(temporal::floor_mod(d.i, temporal::kMillisPerDay) * 1000000 +
                                      d.nanos);
            break;
        case TypeRoot::Timestamp: {
            Timestamp t;
            if (from.root() == TypeRoot::Timestamp)
                t = d.ts();
            else if (is_text(from)) {
                auto v = temporal::parse_timestamp(ascii::trim(d.s));
                if (!v) throw CastFailure{"Cannot parse '" + std::string(d.s) + "' as TIMESTAMP"};
                t = *v;
            } else if (from.root() == TypeRoot::Date) {
                t = Timestamp{d.i * temporal::kMillisPerDay, 0};
            } else if (from.root() == TypeRoot::TimestampLtz) {
                t = Timestamp{
                    d.i + zone->offset_at_instant(temporal::floor_div(d.i, 1000)) * 1000LL,
                    d.nanos};
            } else if (from.root() == TypeRoot::TimestampTz) {
                t = Timestamp{d.i + d.off * 1000LL, d.nanos};
            } else {
                break;
            }
            return Datum::of_timestamp(truncate_ts(t, to.precision()));
        }
        case TypeRoot::TimestampLtz: {
            Timestamp t;
            if (from.root() == TypeRoot::TimestampLtz || from.root() == TypeRoot::TimestampTz)
                t = d.ts();
            else if (from.root() == TypeRoot::Timestamp || from.root() == TypeRoot::Date ||
                     is_text(from)) {
                Timestamp local;
                if (from.root() == TypeRoot::Date)
                    local = Timestamp{d.i * temporal::kMillisPerDay, 0};
                else if (from.root() == TypeRoot::Timestamp)
                    local = d.ts();
                else {
                    auto v = temporal::parse_timestamp(ascii::trim(d.s));
                    if (!v)
                        throw CastFailure{"Cannot parse '" + std::string(d.s) +
                                          "' as TIMESTAMP_LTZ"};
                    local = *v;
                }
                std::int64_t off = zone->offset_at_local(temporal::floor_div(local.millis, 1000));
                t = Timestamp{local.millis - off * 1000, local.nanos_of_milli};
            } else {
                break;
            }
            return Datum::of_timestamp(truncate_ts(t, to.precision()));
        }
        case TypeRoot::TimestampTz:
            if (from.root() == TypeRoot::TimestampTz) return d;
            if (from.root() == TypeRoot::TimestampLtz) {
                Datum r = d;
                r.off = zone->offset_at_instant(temporal::floor_div(d.i, 1000));
                return r;
            }
            break;
        default:
            if (from.equals_ignoring_nullability(to)) return d;
            break;
    }
    throw CastFailure{"unsupported"};
}

bool castable(const DataType& from, const DataType& to) {
    if (from.equals_ignoring_nullability(to)) return true;
    switch (to.root()) {
        case TypeRoot::Char:
        case TypeRoot::Varchar:
            return true;
        case TypeRoot::Binary:
        case TypeRoot::Varbinary:
            return is_text(from) || from.is_binary();
        case TypeRoot::Boolean:
        case TypeRoot::TinyInt:
        case TypeRoot::SmallInt:
        case TypeRoot::Int:
        case TypeRoot::BigInt:
        case TypeRoot::Float:
        case TypeRoot::Double:
        case TypeRoot::Decimal:
            return from.is_numeric() || is_text(from) || from.root() == TypeRoot::Boolean;
        case TypeRoot::Date:
            return is_text(from) || from.root() == TypeRoot::Timestamp ||
                   from.root() == TypeRoot::TimestampLtz;
        case TypeRoot::Time:
            return is_text(from) || from.root() == TypeRoot::Timestamp;
        case TypeRoot::Timestamp:
        case TypeRoot::TimestampLtz:
            return is_text(from) || from.root() == TypeRoot::Date || from.is_timestamp();
        case TypeRoot::TimestampTz:
            return from.root() == TypeRoot::TimestampLtz;
        default:
            return false;
    }
}

std::string describe(const Datum& d, const DataType& t, EvalContext& c) {
    return std::string(to_java_string(d, t, c.arena));
}

// param 1 = TRY_CAST
Datum eval_cast(const Node& n, EvalContext& c) {
    Datum d = n.args[0]->eval(c);
    try {
        return convert(d, n.args[0]->type, n.type, c);
    } catch (const CastFailure& f) {
        if (n.param) return Datum{};
        throw EvalError("Cannot cast '" + describe(d, n.args[0]->type, c) + "' of type " +
                        n.args[0]->type.with_nullable(true).to_string() + " to " +
                        n.type.with_nullable(true).to_string() +
                        (f.message == "unsupported" ? "" : ": " + f.message));
    }
}

// Representation-preserving conversions need no node at all.
bool same_representation(const DataType& from, const DataType& to) {
    if (from.equals_ignoring_nullability(to)) return true;
    if (is_text(from) && is_text(to)) return true;
    if (from.is_binary() && to.is_binary()) return true;
    if (from.is_integer() && to.is_integer())
        return integer_digits(to.root()) >= integer_digits(from.root());
    return false;
}

NodePtr build_cast(CallSite& c, bool try_cast) {
    c.arity(1, 1);
    DataType to = *c.expr.cast_type;
    const DataType& from = c.type(0);
    if (!c.args[0]->null_literal && !castable(from, to))
        c.fail("Cast function cannot convert value of type " +
               from.with_nullable(true).to_string() + " to type " + to.to_string());
    bool nullable = from.nullable() || try_cast || to.root() == TypeRoot::Decimal;
    auto n = make_node(eval_cast, to.with_nullable(nullable), std::move(c.args));
    n->param = try_cast;
    return n;
}
NodePtr b_cast(CallSite& c) {
    return build_cast(c, false);
}
NodePtr b_try_cast(CallSite& c) {
    return build_cast(c, true);
}

Datum eval_null_of(const Node&, EvalContext&) {
    return Datum{};
}

}  // namespace

NodePtr coerce(NodePtr n, const DataType& to, int pos) {
    if (n->null_literal) {
        auto r = make_node(eval_null_of, to.with_nullable(true), {});
        r->is_constant = true;
        r->null_literal = true;
        return r;
    }
    if (same_representation(n->type, to)) {
        n->type = to.with_nullable(n->type.nullable() || to.nullable());
        return n;
    }
    if (!castable(n->type, to))
        throw CompileError(pos, "Cannot convert " + n->type.to_string() + " to " + to.to_string());
    bool nullable = n->type.nullable();
    std::vector<NodePtr> args;
    args.push_back(std::move(n));
    auto r = make_node(eval_cast, to.with_nullable(nullable || to.nullable()), std::move(args));
    return r;
}

bool is_text_cast(const Node& n) {
    return n.fn == eval_cast && is_text(n.type) && n.args.size() == 1;
}

void register_cast(Registry& r) {
    r["CAST"] = b_cast;
    r["TRY_CAST"] = b_try_cast;
}

}  // namespace cdcd::transform
