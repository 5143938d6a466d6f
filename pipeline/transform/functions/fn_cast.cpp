// CAST / TRY_CAST and the implicit coercions of CASE/COALESCE/IF branches.
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "pipeline/data/temporal.h"
#include "pipeline/transform/functions/functions.h"
#include "pipeline/transform/functions/java_number.h"
#include "text/ascii.h"

namespace cdcd::transform {

namespace {

struct CastFailure {
    std::string message;
};

// String.trim(): every character <= ' ' at either end.
std::string_view java_trim(std::string_view s) {
    while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
    while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
    return s;
}

// Java's narrowing of an integer to the target's width (the low bits).
std::int64_t wrap_to(std::int64_t v, TypeRoot to) {
    switch (to) {
        case TypeRoot::TinyInt:
            return static_cast<std::int8_t>(v);
        case TypeRoot::SmallInt:
            return static_cast<std::int16_t>(v);
        case TypeRoot::Int:
            return static_cast<std::int32_t>(v);
        default:
            return v;
    }
}

// Double.byteValue()/shortValue()/intValue()/longValue().
std::int64_t narrow_double(double v, TypeRoot to) {
    if (to == TypeRoot::BigInt) return java_double_to_long(v);
    return wrap_to(java_double_to_int(v), to);
}

std::int64_t min_of(TypeRoot to) {
    switch (to) {
        case TypeRoot::TinyInt:
            return INT8_MIN;
        case TypeRoot::SmallInt:
            return INT16_MIN;
        case TypeRoot::Int:
            return INT32_MIN;
        default:
            return INT64_MIN;
    }
}
std::int64_t max_of(TypeRoot to) {
    return -(min_of(to) + 1);
}

// castToByte/Short/Integer/Long (CastingFunctions), or their tryCastTo* for TRY_CAST: NULL
// where Java's parse fails.
std::optional<std::int64_t> to_integer(const Datum& d, const DataType& from, TypeRoot to,
                                       bool try_cast) {
    switch (from.root()) {
        case TypeRoot::Boolean:
            return d.i;
        case TypeRoot::TinyInt:
        case TypeRoot::SmallInt:
        case TypeRoot::Int:
        case TypeRoot::BigInt:
            // Through the text: X.valueOf(text), else Double.valueOf(text).xValue().
            if (d.i >= min_of(to) && d.i <= max_of(to)) return d.i;
            return narrow_double(static_cast<double>(d.i), to);
        case TypeRoot::Float:
        case TypeRoot::Double:
            return narrow_double(d.d, to);
        case TypeRoot::Decimal: {
            // BigDecimal.xValue(): the integer part's low bits.
            __int128 q = d.dec / pow10_128(from.scale());
            return wrap_to(static_cast<std::int64_t>(
                               static_cast<std::uint64_t>(static_cast<unsigned __int128>(q))),
                           to);
        }
        case TypeRoot::Char:
        case TypeRoot::Varchar: {
            std::string_view s = try_cast ? java_trim(d.s) : d.s;
            if (auto v = parse_java_integer(s, min_of(to), max_of(to))) return v;
            if (try_cast) return std::nullopt;
            if (auto v = parse_java_double(s)) return narrow_double(*v, to);
            return std::nullopt;
        }
        default:
            throw CastFailure{"unsupported"};
    }
}

// castToFloat/castToDouble: NULL for text Java cannot read.
std::optional<double> to_floating(const Datum& d, const DataType& from, bool to_float) {
    switch (from.root()) {
        case TypeRoot::Boolean:
        case TypeRoot::TinyInt:
        case TypeRoot::SmallInt:
        case TypeRoot::Int:
        case TypeRoot::BigInt:
            return to_float ? static_cast<double>(static_cast<float>(d.i))
                            : static_cast<double>(d.i);
        case TypeRoot::Float:
        case TypeRoot::Double:
            return to_float ? static_cast<double>(static_cast<float>(d.d)) : d.d;
        case TypeRoot::Decimal: {
            auto v = JavaDecimal::of_unscaled(d.dec, from.scale());
            return to_float ? static_cast<double>(v.to_float()) : v.to_double();
        }
        case TypeRoot::Char:
        case TypeRoot::Varchar:
            if (to_float) {
                auto f = parse_java_float(d.s);
                if (!f) return std::nullopt;
                return static_cast<double>(*f);
            }
            return parse_java_double(d.s);
        default:
            throw CastFailure{"unsupported"};
    }
}

// castToBoolean, or tryCastToBoolean's words for text.
std::optional<bool> to_boolean(const Datum& d, const DataType& from, bool try_cast) {
    switch (from.root()) {
        case TypeRoot::Boolean:
        case TypeRoot::TinyInt:
        case TypeRoot::SmallInt:
        case TypeRoot::Int:
        case TypeRoot::BigInt:
            return d.i != 0;
        case TypeRoot::Float:
        case TypeRoot::Double:
            // !Float.equals(0f): only +0.0 is false (-0.0 and NaN are true).
            return d.d != 0 || std::signbit(d.d);
        case TypeRoot::Decimal:
            return d.dec != 0;
        case TypeRoot::Char:
        case TypeRoot::Varchar: {
            auto is = [&](std::string_view word) { return ascii::iequals(d.s, word); };
            if (!try_cast) return is("true");  // Boolean.valueOf: anything else is false
            if (is("t") || is("true") || is("y") || is("yes") || is("1")) return true;
            if (is("f") || is("false") || is("n") || is("no") || is("0")) return false;
            return std::nullopt;
        }
        default:
            throw CastFailure{"unsupported"};
    }
}

// castToBigDecimal(value, precision, scale) of the declared DECIMAL(precision, scale): the text
// of the value read by new BigDecimal(text, MathContext(precision)), then setScale(scale,
// HALF_UP); NULL when that needs more digits than `precision` or the text is no number.
std::optional<__int128> to_decimal(const Datum& d, const DataType& from, int precision, int scale,
                                   bool try_cast) {
    JavaDecimal v;
    switch (from.root()) {
        case TypeRoot::Boolean:
        case TypeRoot::TinyInt:
        case TypeRoot::SmallInt:
        case TypeRoot::Int:
        case TypeRoot::BigInt:
            v = JavaDecimal::of_unscaled(d.i, 0);
            break;
        case TypeRoot::Decimal:
            v = JavaDecimal::of_unscaled(d.dec, from.scale());
            break;
        case TypeRoot::Float:
        case TypeRoot::Double:
            // String.valueOf of the Float or Double: NaN and Infinity are no BigDecimal.
            if (!std::isfinite(d.d)) return std::nullopt;
            v = from.root() == TypeRoot::Float ? JavaDecimal::of_float(static_cast<float>(d.d))
                                               : JavaDecimal::of_double(d.d);
            break;
        case TypeRoot::Char:
        case TypeRoot::Varchar:
            if (!parse_big_decimal(try_cast ? java_trim(d.s) : d.s, v)) return std::nullopt;
            break;
        default:
            throw CastFailure{"unsupported"};
    }
    return java_decimal_value(v, precision, scale);
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

// Whether timestamp text ends in a zone (`Z` or `+hh:mm`), as temporal::parse_timestamp reads it:
// Flink CDC's castToTimestamp reads such text with Instant.parse.
bool written_with_offset(std::string_view s) {
    if (s.size() <= 11) return false;
    std::string_view rest = s.substr(11);
    if (rest.back() == 'Z' || rest.back() == 'z') return true;
    return rest.size() > 6 && (rest[rest.size() - 6] == '+' || rest[rest.size() - 6] == '-') &&
           rest[rest.size() - 3] == ':';
}

// Converts; throws CastFailure. `zone` for LTZ conversions. `declared` is the DECIMAL
// precision << 8 | scale a CAST names, when the type system capped it in `to` (0: as `to`).
Datum convert(const Datum& d, const DataType& from, const DataType& to, EvalContext& c,
              bool try_cast, std::int64_t declared) {
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
        case TypeRoot::Boolean: {
            auto b = to_boolean(d, from, try_cast);
            return b ? Datum::of_bool(*b) : Datum{};
        }
        case TypeRoot::TinyInt:
        case TypeRoot::SmallInt:
        case TypeRoot::Int:
        case TypeRoot::BigInt: {
            auto v = to_integer(d, from, to.root(), try_cast);
            return v ? Datum::of_long(*v) : Datum{};
        }
        case TypeRoot::Float:
        case TypeRoot::Double: {
            auto v = to_floating(d, from, to.root() == TypeRoot::Float);
            return v ? Datum::of_double(*v) : Datum{};
        }
        case TypeRoot::Decimal: {
            // Computed at the declared precision and scale, then held at the (capped) type's
            // scale. A value with more digits than the capped precision stays whole, as the
            // BigDecimal Flink CDC's generated code holds: `col >= CAST('…' AS DECIMAL(20, 2))`
            // compares all 20 digits under UP_TO_19, and only a projected column turns NULL
            // (fit_decimal, as DecimalData.fromBigDecimal does).
            int precision = declared ? static_cast<int>(declared >> 8) : to.precision();
            int scale = declared ? static_cast<int>(declared & 0xFF) : to.scale();
            auto v = to_decimal(d, from, precision, scale, try_cast);
            if (!v) return Datum{};
            __int128 r = scale == to.scale() ? *v : rescale(*v, scale, to.scale());
            if (!fits_precision(r, declared ? precision : to.precision())) return Datum{};
            return Datum::of_decimal(r);
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
            // castToTimestamp (CastingFunctions) returns the LocalDateTime whole: the value keeps
            // every digit of its fraction whatever precision the CAST names.
            Timestamp t;
            if (from.root() == TypeRoot::Timestamp) return Datum::of_timestamp(d.ts());
            if (from.root() == TypeRoot::Date)
                return Datum::of_timestamp(Timestamp{d.i * temporal::kMillisPerDay, 0});
            if (is_text(from)) {
                std::string_view text = ascii::trim(d.s);
                auto v = temporal::parse_timestamp(text);
                if (!v) throw CastFailure{"Cannot parse '" + std::string(d.s) + "' as TIMESTAMP"};
                // Text with a zone is an instant (Instant.parse), read as below.
                if (!written_with_offset(text)) return Datum::of_timestamp(*v);
                t = *v;
            } else if (from.root() == TypeRoot::TimestampLtz ||
                       from.root() == TypeRoot::TimestampTz) {
                t = d.ts();
            } else {
                break;
            }
            // An Instant (TIMESTAMP_LTZ) or a ZonedDateTime (TIMESTAMP_TZ, whatever its own
            // offset) becomes the wall time of the pipeline's zone at that instant.
            return Datum::of_timestamp(Timestamp{
                t.millis + zone->offset_at_instant(temporal::floor_div(t.millis, 1000)) * 1000LL,
                t.nanos_of_milli});
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

// Calcite's SqlTypeName.MAX_DATETIME_PRECISION, the widest TIMESTAMP a CAST can name in Flink CDC.
constexpr int kMaxCastTimestampPrecision = 3;

// param 1 = TRY_CAST
Datum eval_cast(const Node& n, EvalContext& c) {
    Datum d = n.args[0]->eval(c);
    try {
        return convert(d, n.args[0]->type, n.type, c, n.param != 0, n.param2);
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
    const DataType& declared = *c.expr.cast_type;
    const DataType& from = c.type(0);
    if (!c.args[0]->null_literal && !castable(from, declared))
        c.fail("Cast function cannot convert value of type " +
               from.with_nullable(true).to_string() + " to type " + declared.to_string());
    // The result type is Calcite's, capped by the decimal precision mode; the value is computed
    // at the declared precision and scale (JaninoCompiler passes those to castToBigDecimal).
    DataType to = declared;
    if (declared.root() == TypeRoot::Decimal) to = cap_decimal(declared, c.max_decimal_precision);
    // Calcite's RelDataTypeSystemImpl caps TIMESTAMP at MAX_DATETIME_PRECISION (3):
    // CAST(x AS TIMESTAMP(6)) is TIMESTAMP(3), though the value keeps its nanoseconds.
    if (declared.root() == TypeRoot::Timestamp && declared.precision() > kMaxCastTimestampPrecision)
        to = DataType::timestamp(kMaxCastTimestampPrecision);
    // Text that is no number gives NULL, and so does a DECIMAL overflow.
    bool nullable = from.nullable() || try_cast || to.root() == TypeRoot::Decimal ||
                    (is_text(from) && (to.is_numeric() || to.root() == TypeRoot::Boolean));
    auto n = make_node(eval_cast, to.with_nullable(nullable), std::move(c.args));
    n->param = try_cast;
    if (declared.root() == TypeRoot::Decimal)
        n->param2 = (static_cast<std::int64_t>(declared.precision()) << 8) | declared.scale();
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

Datum eval_fit_decimal(const Node& n, EvalContext& c) {
    Datum d = n.args[0]->eval(c);
    if (!d.null && !fits_precision(d.dec, n.type.precision())) return Datum{};
    return d;
}

}  // namespace

DataType cap_decimal(const DataType& t, int max_precision) {
    if (t.precision() <= max_precision && t.scale() <= max_precision) return t;
    return DataType::decimal(std::min(t.precision(), max_precision),
                             std::min(t.scale(), max_precision))
        .with_nullable(t.nullable());
}

NodePtr fit_decimal(NodePtr n) {
    if (n->type.root() != TypeRoot::Decimal) return n;
    DataType t = n->type.with_nullable(true);
    std::vector<NodePtr> args;
    args.push_back(std::move(n));
    return make_node(eval_fit_decimal, t, std::move(args));
}

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
