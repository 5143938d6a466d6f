// Arithmetic: + - * / % (Java semantics on the Calcite-deduced type), ABS, CEIL, FLOOR, ROUND,
// UUID.
#include <cmath>
#include <random>

#include "pipeline/transform/compile/operand.h"
#include "pipeline/transform/functions/functions.h"
#include "pipeline/transform/functions/java_number.h"

namespace cdcd::transform {

namespace {

enum Op { kAdd, kSub, kMul, kDiv, kMod };

// Truncates to the width of the integer type, like Java's int/long arithmetic.
std::int64_t wrap(std::int64_t v, TypeRoot r) {
    switch (r) {
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

bool fits_int32(std::int64_t v) {
    return v == static_cast<std::int32_t>(v);
}

// One integer operation, with Java's results (wrapping, / by zero).
template <int Op>
[[gnu::always_inline]] inline std::int64_t int_op(std::int64_t x, std::int64_t y) {
    auto ua = static_cast<std::uint64_t>(x), ub = static_cast<std::uint64_t>(y);
    if constexpr (Op == kAdd) {
        return static_cast<std::int64_t>(ua + ub);
    } else if constexpr (Op == kSub) {
        return static_cast<std::int64_t>(ua - ub);
    } else if constexpr (Op == kMul) {
        return static_cast<std::int64_t>(ua * ub);
    } else if constexpr (Op == kDiv) {
        if (y == 0) throw EvalError("/ by zero");
        if (y == -1) return static_cast<std::int64_t>(0 - ua);
        if (fits_int32(x) && fits_int32(y))  // 32-bit division is much faster
            return static_cast<std::int32_t>(x) / static_cast<std::int32_t>(y);
        return x / y;
    } else {
        if (y == 0) throw EvalError("/ by zero");
        if (y == -1) return 0;
        if (fits_int32(x) && fits_int32(y))
            return static_cast<std::int32_t>(x) % static_cast<std::int32_t>(y);
        return x % y;
    }
}

std::int64_t int_op(std::int64_t op, std::int64_t x, std::int64_t y) {
    switch (op) {
        case kAdd:
            return int_op<kAdd>(x, y);
        case kSub:
            return int_op<kSub>(x, y);
        case kMul:
            return int_op<kMul>(x, y);
        case kDiv:
            return int_op<kDiv>(x, y);
        default:
            return int_op<kMod>(x, y);
    }
}

template <int KA, int KB>
struct IntArith {
    static Datum eval(const Node& n, EvalContext& c) {
        std::int64_t x = 0, y = 0;
        if (!fetch_operand<KA>(n, 0, c, x)) return Datum{};
        if (!fetch_operand<KB>(n, 1, c, y)) return Datum{};
        return Datum::of_long(wrap(int_op(n.param, x, y), n.type.root()));
    }

    // One loop per operator and result width.
    template <int Op, typename Width>
    static void batch_of(const Node& n, BatchContext& b, Selection sel, Datum* out) {
        for_each_long_operands<KA, KB>(
            n, b, sel,
            [&](std::uint32_t i, std::int64_t x, std::int64_t y) {
                ::new (at(out, i)) Datum(Datum::of_long(static_cast<Width>(int_op<Op>(x, y))));
            },
            [&](std::uint32_t i) { ::new (at(out, i)) Datum(); });
    }
    template <typename Width>
    static void batch_width(const Node& n, BatchContext& b, Selection sel, Datum* out) {
        switch (n.param) {
            case kAdd:
                return batch_of<kAdd, Width>(n, b, sel, out);
            case kSub:
                return batch_of<kSub, Width>(n, b, sel, out);
            case kMul:
                return batch_of<kMul, Width>(n, b, sel, out);
            case kDiv:
                return batch_of<kDiv, Width>(n, b, sel, out);
            default:
                return batch_of<kMod, Width>(n, b, sel, out);
        }
    }
    static void batch(const Node& n, BatchContext& b, Selection sel, Datum* out) {
        switch (n.type.root()) {  // wrap()'s widths
            case TypeRoot::TinyInt:
                return batch_width<std::int8_t>(n, b, sel, out);
            case TypeRoot::SmallInt:
                return batch_width<std::int16_t>(n, b, sel, out);
            case TypeRoot::Int:
                return batch_width<std::int32_t>(n, b, sel, out);
            default:
                return batch_width<std::int64_t>(n, b, sel, out);
        }
    }
};

Datum eval_float_arith(const Node& n, EvalContext& c) {
    Datum a = n.args[0]->eval(c);
    if (a.null) return a;
    Datum b = n.args[1]->eval(c);
    if (b.null) return b;
    double x = to_double(a, n.args[0]->type), y = to_double(b, n.args[1]->type);
    double r = 0;
    switch (n.param) {
        case kAdd:
            r = x + y;
            break;
        case kSub:
            r = x - y;
            break;
        case kMul:
            r = x * y;
            break;
        case kDiv:
            r = x / y;
            break;
        case kMod:
            r = std::fmod(x, y);
            break;
    }
    if (n.type.root() == TypeRoot::Float) r = static_cast<float>(r);
    return Datum::of_double(r);
}

Datum eval_decimal_arith(const Node& n, EvalContext& c) {
    Datum a = n.args[0]->eval(c);
    if (a.null) return a;
    Datum b = n.args[1]->eval(c);
    if (b.null) return b;
    const DataType& ta = n.args[0]->type;
    const DataType& tb = n.args[1]->type;
    int sa = ta.root() == TypeRoot::Decimal ? ta.scale() : 0;
    int sb = tb.root() == TypeRoot::Decimal ? tb.scale() : 0;
    int s = n.type.scale();
    // An operand at another scale, or an intermediate result, past __int128 is past DECIMAL(38):
    // NULL, as Flink's DecimalData overflow gives (never a wrapped value).
    auto at_scale = [](const Datum& d, const DataType& t, int scale) -> std::optional<__int128> {
        if (t.root() != TypeRoot::Decimal) return scale_up(d.i, scale);
        if (scale >= t.scale()) return scale_up(d.dec, scale - t.scale());
        return rescale(d.dec, t.scale(), scale);
    };
    std::optional<__int128> r;
    switch (n.param) {
        case kAdd:
        case kSub: {
            auto x = at_scale(a, ta, s), y = at_scale(b, tb, s);
            if (x && y) r = n.param == kAdd ? checked_add(*x, *y) : checked_sub(*x, *y);
            break;
        }
        case kMul: {
            auto x = at_scale(a, ta, sa), y = at_scale(b, tb, sb);
            if (x && y)
                if (auto product = checked_mul(*x, *y)) r = rescale(*product, sa + sb, s);
            break;
        }
        case kDiv: {
            // BigDecimal a.divide(b, RoundingMode.DOWN) (ArithmeticFunctions.divides): the
            // quotient truncated at a's scale, then set to the result's scale (HALF_UP).
            auto y = at_scale(b, tb, sb);
            if (y && *y == 0) throw EvalError("Division by zero");
            auto x = at_scale(a, ta, sa);
            if (x && y)
                if (auto scaled = scale_up(*x, sb)) r = rescale(*scaled / *y, sa, s);
            break;
        }
        case kMod: {
            int m = std::max(sa, sb);
            auto y = at_scale(b, tb, m);
            if (y && *y == 0) throw EvalError("Division by zero");
            auto x = at_scale(a, ta, m);
            if (x && y) r = rescale(*x % *y, m, s);
            break;
        }
    }
    if (!r || !fits_precision(*r, n.type.precision())) return Datum{};  // overflow → null
    return Datum::of_decimal(*r);
}

// Calcite's RelDataTypeSystemImpl.deriveDecimal*Type, with the maximum precision and scale of
// the decimal precision mode.
DataType decimal_result(Op op, const DataType& x, const DataType& y, int max) {
    DataType a = as_decimal(x), b = as_decimal(y);
    int p1 = a.precision(), s1 = a.scale(), p2 = b.precision(), s2 = b.scale();
    int p = 0, s = 0;
    switch (op) {
        case kAdd:
        case kSub:
            s = std::max(s1, s2);
            p = std::min(std::max(p1 - s1, p2 - s2) + s + 1, max);
            break;
        case kMul:
            s = std::min(s1 + s2, max);
            p = std::min(p1 + p2, max);
            break;
        case kDiv: {
            int dout = std::min(p1 - s1 + s2, max);
            s = std::max(6, s1 + p2 + 1);
            s = std::min(s, max - dout);
            p = dout + s;
            break;
        }
        case kMod:
            s = std::max(s1, s2);
            p = std::min(std::min(p1 - s1, p2 - s2) + s, max);
            break;
    }
    return DataType::decimal(std::max(p, 1), std::min(s, std::max(p, 1)));
}

NodePtr build_arith(CallSite& c, Op op) {
    c.arity(2, 2);
    if (c.args[0]->interval || c.args[1]->interval) {
        if (op != kAdd && op != kSub) c.fail("Cannot apply '" + c.name + "' to an INTERVAL");
        return build_interval_arith(c, op == kSub);
    }
    for (std::size_t i = 0; i < 2; ++i) {
        if (c.args[i]->null_literal) c.args[i]->type = DataType::int_();
        c.require_numeric(i);
    }
    const DataType& ta = c.type(0);
    const DataType& tb = c.type(1);
    bool nullable = c.any_nullable();
    DataType result = DataType::int_();
    EvalFn fn = nullptr;  // integer arithmetic: chosen for the operands below
    if (ta.root() == TypeRoot::Double || tb.root() == TypeRoot::Double) {
        result = DataType::double_();
        fn = eval_float_arith;
    } else if (ta.root() == TypeRoot::Float || tb.root() == TypeRoot::Float) {
        result = DataType::float_();
        fn = eval_float_arith;
    } else if (ta.root() == TypeRoot::Decimal || tb.root() == TypeRoot::Decimal) {
        result = decimal_result(op, ta, tb, c.max_decimal_precision);
        fn = eval_decimal_arith;
    } else {
        result = integer_digits(ta.root()) >= integer_digits(tb.root()) ? ta : tb;
    }
    bool fused = fn == nullptr;
    if (fused) fn = pick_long_fn<IntArith>(*c.args[0], *c.args[1]);
    auto n = make_node(fn, result.with_nullable(nullable), std::move(c.args));
    n->param = op;
    if (fused) {
        set_long_operands(*n);
        n->batch = pick_long_batch<IntArith>(*n);
    }
    return n;
}

NodePtr b_add(CallSite& c) {
    return build_arith(c, kAdd);
}
NodePtr b_sub(CallSite& c) {
    return build_arith(c, kSub);
}
NodePtr b_mul(CallSite& c) {
    return build_arith(c, kMul);
}
NodePtr b_div(CallSite& c) {
    return build_arith(c, kDiv);
}
NodePtr b_mod(CallSite& c) {
    return build_arith(c, kMod);
}

Datum eval_negate(const Node& n, EvalContext& c) {
    Datum a = n.args[0]->eval(c);
    if (a.null) return a;
    switch (n.type.root()) {
        case TypeRoot::Float:
        case TypeRoot::Double:
            return Datum::of_double(-a.d);
        case TypeRoot::Decimal:
            return Datum::of_decimal(-a.dec);
        default:
            return Datum::of_long(wrap(
                static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(a.i)), n.type.root()));
    }
}
NodePtr b_negate(CallSite& c) {
    c.arity(1, 1);
    if (c.args[0]->interval) {
        c.args[0]->constant.i = -c.args[0]->constant.i;
        return std::move(c.args[0]);
    }
    c.require_numeric(0);
    DataType t = c.type(0);
    return make_node(eval_negate, t, std::move(c.args));
}

Datum eval_abs(const Node& n, EvalContext& c) {
    Datum a = n.args[0]->eval(c);
    if (a.null) return a;
    switch (n.type.root()) {
        case TypeRoot::Float:
        case TypeRoot::Double:
            return Datum::of_double(std::fabs(a.d));
        case TypeRoot::Decimal:
            return Datum::of_decimal(a.dec < 0 ? -a.dec : a.dec);
        default:
            return Datum::of_long(
                wrap(a.i < 0 ? static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(a.i)) : a.i,
                     n.type.root()));
    }
}
NodePtr b_abs(CallSite& c) {
    c.arity(1, 1);
    c.require_numeric(0);
    DataType t = c.type(0);
    return make_node(eval_abs, t, std::move(c.args));
}

// CEIL/FLOOR: param 1 = ceil.
Datum eval_ceil_floor(const Node& n, EvalContext& c) {
    Datum a = n.args[0]->eval(c);
    if (a.null) return a;
    const DataType& t = n.args[0]->type;
    bool ceil = n.param;
    switch (t.root()) {
        case TypeRoot::Float:
        case TypeRoot::Double:
            return Datum::of_double(ceil ? std::ceil(a.d) : std::floor(a.d));
        case TypeRoot::Decimal: {
            __int128 div = pow10_128(t.scale());
            __int128 q = a.dec / div, r = a.dec % div;
            if (r != 0 && ceil && a.dec > 0) ++q;
            if (r != 0 && !ceil && a.dec < 0) --q;
            return Datum::of_decimal(q);
        }
        default:
            return a;
    }
}
NodePtr build_ceil_floor(CallSite& c, bool ceil) {
    c.arity(1, 1);
    c.require_numeric(0);
    DataType t = c.type(0);
    // Calcite's ARG0_OR_EXACT_NO_SCALE: DECIMAL(p, s) gives DECIMAL(p, 0).
    if (t.root() == TypeRoot::Decimal)
        t = DataType::decimal(t.precision(), 0).with_nullable(t.nullable());
    auto n = make_node(eval_ceil_floor, t, std::move(c.args));
    n->param = ceil;
    return n;
}
NodePtr b_ceil(CallSite& c) {
    return build_ceil_floor(c, true);
}
NodePtr b_floor(CallSite& c) {
    return build_ceil_floor(c, false);
}

// ROUND of a DOUBLE: BigDecimal.valueOf(v).setScale(d, HALF_UP).doubleValue(); of a FLOAT the
// same through Float.toString (ArithmeticFunctions.round). BigDecimal has no negative zero, so
// a result of zero is +0.0.
double round_floating(double v, std::int64_t d, bool is_float) {
    if (!std::isfinite(v)) return v;  // Java: NumberFormatException from BigDecimal.valueOf
    JavaDecimal x =
        is_float ? JavaDecimal::of_float(static_cast<float>(v)) : JavaDecimal::of_double(v);
    x.round_to_exponent(-d);
    if (x.count == 0) return 0.0;
    return is_float ? static_cast<double>(x.to_float()) : x.to_double();
}

// round(BigDecimal, d) = setScale(d, HALF_UP) of a value at `scale`, held at `to_scale` (the
// result type's).
std::optional<__int128> round_decimal(__int128 v, int scale, std::int64_t d, int to_scale) {
    if (d >= scale) return rescale(v, scale, to_scale);
    if (d < -38) return 0;
    int target = static_cast<int>(d);
    if (target >= 0) return rescale(rescale(v, scale, target), target, to_scale);
    // Round to 10^-target: at most 38 digits, so the rounded value fits; held at to_scale
    // (0 for a literal d), or at the operand's scale for a column d.
    __int128 whole = rescale(v, scale, 0);
    __int128 div = pow10_128(-target);
    __int128 q = whole / div, rem = whole % div;
    if ((rem < 0 ? -rem : rem) * 2 >= div) q += whole < 0 ? -1 : 1;
    auto r = checked_mul(q, div);
    if (!r) return std::nullopt;
    return scale_up(*r, to_scale);
}

Datum eval_round(const Node& n, EvalContext& c) {
    Datum a = n.args[0]->eval(c);
    if (a.null) return a;
    std::int64_t d = 0;
    if (n.args.size() > 1) {
        Datum b = n.args[1]->eval(c);
        if (b.null) return b;
        d = b.i;
    }
    const DataType& t = n.args[0]->type;
    switch (t.root()) {
        case TypeRoot::Float:
        case TypeRoot::Double:
            return Datum::of_double(round_floating(a.d, d, t.root() == TypeRoot::Float));
        case TypeRoot::Decimal: {
            auto r = round_decimal(a.dec, t.scale(), d, n.type.scale());
            if (!r || !fits_precision(*r, n.type.precision())) return Datum{};
            return Datum::of_decimal(*r);
        }
        default: {
            // round(BigDecimal.valueOf(v), d).xValue(): HALF_UP at 10^-d, the low bits kept.
            if (d >= 0) return a;
            if (d < -38) return Datum::of_long(0);
            __int128 div = pow10_128(static_cast<int>(-d));
            __int128 q = a.i / div, rem = a.i % div;
            if ((rem < 0 ? -rem : rem) * 2 >= div) q += a.i < 0 ? -1 : 1;
            auto low = static_cast<std::uint64_t>(static_cast<unsigned __int128>(q * div));
            return Datum::of_long(wrap(static_cast<std::int64_t>(low), n.type.root()));
        }
    }
}

// Flink's LogicalTypeMerging.findRoundDecimalType for ROUND(DECIMAL(p, s), r) with a literal r
// (TransformSqlReturnTypes.ROUND_FUNCTION); the operand's type otherwise.
DataType round_type(const DataType& t, const Node* digits, int max) {
    if (t.root() != TypeRoot::Decimal) return t;
    std::int64_t r = 0;
    if (digits) {
        if (!digits->is_constant || digits->constant.null) return t;
        r = digits->constant.i;
    }
    int p = t.precision(), s = t.scale();
    if (r >= s) return t;
    if (r < 0) return cap_decimal(DataType::decimal(std::min(38, 1 + p - s), 0), max);
    return cap_decimal(DataType::decimal(1 + p - s + static_cast<int>(r), static_cast<int>(r)),
                       max);
}

NodePtr b_round(CallSite& c) {
    c.arity(1, 2);
    c.require_numeric(0);
    if (c.args.size() > 1) c.require_integer(1);
    bool nullable = c.any_nullable();
    DataType t = round_type(c.type(0), c.args.size() > 1 ? c.args[1].get() : nullptr,
                            c.max_decimal_precision)
                     .with_nullable(nullable || c.type(0).root() == TypeRoot::Decimal);
    return make_node(eval_round, t, std::move(c.args));
}

Datum eval_uuid(const Node&, EvalContext& c) {
    thread_local std::mt19937_64 rng{std::random_device{}()};
    std::uint64_t hi = rng(), lo = rng();
    hi = (hi & 0xFFFFFFFFFFFF0FFFULL) | 0x0000000000004000ULL;
    lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;
    char* p = c.arena.alloc(36);
    static const char* hex = "0123456789abcdef";
    int k = 0;
    for (int i = 0; i < 32; ++i) {
        if (i == 8 || i == 12 || i == 16 || i == 20) p[k++] = '-';
        std::uint64_t w = i < 16 ? hi : lo;
        int shift = 60 - 4 * (i % 16);
        p[k++] = hex[(w >> shift) & 0xF];
    }
    return Datum::of_string(std::string_view(p, 36));
}
NodePtr b_uuid(CallSite& c) {
    c.arity(0, 0);
    return make_node(eval_uuid, DataType::string().not_null(), {});
}

}  // namespace

void register_arith(Registry& r) {
    r["+"] = b_add;
    r["-"] = b_sub;
    r["*"] = b_mul;
    r["/"] = b_div;
    r["%"] = b_mod;
    r["MOD"] = b_mod;
    r["NEGATE"] = b_negate;
    r["ABS"] = b_abs;
    r["CEIL"] = b_ceil;
    r["CEILING"] = b_ceil;
    r["FLOOR"] = b_floor;
    r["ROUND"] = b_round;
    r["UUID"] = b_uuid;
}

}  // namespace cdcd::transform
