// Comparison and logical operators: = <> < <= > >=, AND, OR, NOT, IS ..., BETWEEN, IN.
#include <cstring>

#include "pipeline/data/decimal_arithmetic.h"
#include "pipeline/transform/compile/operand.h"
#include "pipeline/transform/functions/functions.h"

namespace cdcd::transform {

namespace {

int cmp_bytes(std::string_view a, std::string_view b) {
    int c = a.compare(b);
    return c < 0 ? -1 : c > 0 ? 1 : 0;
}

template <typename T>
int cmp3(T a, T b) {
    return a < b ? -1 : a > b ? 1 : 0;
}

enum Op { kEq, kNe, kLt, kLe, kGt, kGe };

bool apply(Op op, int c) {
    switch (op) {
        case kEq:
            return c == 0;
        case kNe:
            return c != 0;
        case kLt:
            return c < 0;
        case kLe:
            return c <= 0;
        case kGt:
            return c > 0;
        case kGe:
            return c >= 0;
    }
    return false;
}

// A comparison with a NULL side: Flink CDC's ComparisonFunctions give false (valueEquals,
// greaterThan, ...) and JaninoCompiler emits `a <> b` as !valueEquals(a, b), so <> gives true.
Datum with_null(const Node& n) {
    return Datum::of_bool(static_cast<Op>(n.param) == kNe);
}

Datum eval_compare(const Node& n, EvalContext& c) {
    Datum a = n.args[0]->eval(c);
    if (a.null) return with_null(n);
    Datum b = n.args[1]->eval(c);
    if (b.null) return with_null(n);
    auto op = static_cast<Op>(n.param);
    const DataType& ta = n.args[0]->type;
    const DataType& tb = n.args[1]->type;
    if (op == kEq) return Datum::of_bool(values_equal(a, ta, b, tb));
    if (op == kNe) return Datum::of_bool(!values_equal(a, ta, b, tb));
    return Datum::of_bool(apply(op, compare_values(a, ta, b, tb)));
}

// Fast path: both sides BIGINT-like of the same Java class, or both integers under an ordering
// operator (compare_values compares any two integers exactly).
template <int KA, int KB>
struct CompareLong {
    static Datum eval(const Node& n, EvalContext& c) {
        std::int64_t x = 0, y = 0;
        if (!fetch_operand<KA>(n, 0, c, x)) return with_null(n);
        if (!fetch_operand<KB>(n, 1, c, y)) return with_null(n);
        switch (static_cast<Op>(n.param)) {  // the operator on the values, no three-way step
            case kEq:
                return Datum::of_bool(x == y);
            case kNe:
                return Datum::of_bool(x != y);
            case kLt:
                return Datum::of_bool(x < y);
            case kLe:
                return Datum::of_bool(x <= y);
            case kGt:
                return Datum::of_bool(x > y);
            case kGe:
                return Datum::of_bool(x >= y);
        }
        return Datum::of_bool(false);
    }

    template <typename Cmp>
    static void batch_of(const Node& n, BatchContext& b, Selection sel, Datum* out, Cmp cmp) {
        const Datum on_null = with_null(n);
        for_each_long_operands<KA, KB>(
            n, b, sel,
            [&](std::uint32_t i, std::int64_t x, std::int64_t y) {
                ::new (at(out, i)) Datum(Datum::of_bool(cmp(x, y)));
            },
            [&](std::uint32_t i) { out[i] = on_null; });
    }
    static void batch(const Node& n, BatchContext& b, Selection sel, Datum* out) {
        using V = std::int64_t;
        switch (static_cast<Op>(n.param)) {
            case kEq:
                return batch_of(n, b, sel, out, [](V x, V y) { return x == y; });
            case kNe:
                return batch_of(n, b, sel, out, [](V x, V y) { return x != y; });
            case kLt:
                return batch_of(n, b, sel, out, [](V x, V y) { return x < y; });
            case kLe:
                return batch_of(n, b, sel, out, [](V x, V y) { return x <= y; });
            case kGt:
                return batch_of(n, b, sel, out, [](V x, V y) { return x > y; });
            case kGe:
                return batch_of(n, b, sel, out, [](V x, V y) { return x >= y; });
        }
        for (std::uint32_t i : sel) ::new (at(out, i)) Datum(Datum::of_bool(false));
    }
};

Datum eval_compare_text(const Node& n, EvalContext& c) {
    Datum a = n.args[0]->eval(c);
    if (a.null) return with_null(n);
    Datum b = n.args[1]->eval(c);
    if (b.null) return with_null(n);
    return Datum::of_bool(apply(static_cast<Op>(n.param), cmp_bytes(a.s, b.s)));
}

NodePtr build_compare(CallSite& c, Op op) {
    c.arity(2, 2);
    const DataType& ta = c.type(0);
    const DataType& tb = c.type(1);
    bool nulls = c.args[0]->null_literal || c.args[1]->null_literal;
    if (!nulls && op != kEq && op != kNe && !orderable(ta, tb))
        c.fail("Cannot apply '" + c.name + "' to arguments of type " + c.signature());
    if (op == kEq || op == kNe)
        c.note_never_equal(0, 1, std::string("`") + (op == kEq ? "=" : "<>") + "`");
    EvalFn fn = eval_compare;
    if (!nulls && java_class(ta) == java_class(tb)) {
        if (ta.is_integer() || ta.root() == TypeRoot::Boolean || ta.root() == TypeRoot::Date ||
            ta.root() == TypeRoot::Time)
            fn = pick_long_fn<CompareLong>(*c.args[0], *c.args[1]);
        else if (is_text(ta))
            fn = eval_compare_text;
    } else if (!nulls && op != kEq && op != kNe && ta.is_integer() && tb.is_integer()) {
        fn = pick_long_fn<CompareLong>(*c.args[0], *c.args[1]);
    }
    auto n = make_node(fn, DataType::boolean().not_null(), std::move(c.args));
    n->param = op;
    if (fn != eval_compare && fn != eval_compare_text) {
        set_long_operands(*n);
        n->batch = pick_long_batch<CompareLong>(*n);
    }
    return n;
}

NodePtr b_eq(CallSite& c) {
    return build_compare(c, kEq);
}
NodePtr b_ne(CallSite& c) {
    return build_compare(c, kNe);
}
NodePtr b_lt(CallSite& c) {
    return build_compare(c, kLt);
}
NodePtr b_le(CallSite& c) {
    return build_compare(c, kLe);
}
NodePtr b_gt(CallSite& c) {
    return build_compare(c, kGt);
}
NodePtr b_ge(CallSite& c) {
    return build_compare(c, kGe);
}

void require_boolean(const CallSite& c) {
    for (std::size_t i = 0; i < c.args.size(); ++i)
        if (c.type(i).root() != TypeRoot::Boolean && !c.args[i]->null_literal)
            c.fail_arg(i, "Cannot apply '" + c.name + "' to arguments of type " + c.signature());
}

Datum eval_and(const Node& n, EvalContext& c) {
    Datum a = n.args[0]->eval(c);
    if (!a.null && !a.i) return Datum::of_bool(false);
    Datum b = n.args[1]->eval(c);
    if (!b.null && !b.i) return Datum::of_bool(false);
    if (a.null || b.null) return Datum{};
    return Datum::of_bool(true);
}
Datum eval_or(const Node& n, EvalContext& c) {
    Datum a = n.args[0]->eval(c);
    if (!a.null && a.i) return Datum::of_bool(true);
    Datum b = n.args[1]->eval(c);
    if (!b.null && b.i) return Datum::of_bool(true);
    if (a.null || b.null) return Datum{};
    return Datum::of_bool(false);
}
Datum eval_not(const Node& n, EvalContext& c) {
    Datum a = n.args[0]->eval(c);
    if (a.null) return a;
    return Datum::of_bool(!a.i);
}

NodePtr b_and(CallSite& c) {
    c.arity(2, 2);
    require_boolean(c);
    bool nullable = c.any_nullable();
    return make_node(eval_and, DataType::boolean().with_nullable(nullable), std::move(c.args));
}
NodePtr b_or(CallSite& c) {
    c.arity(2, 2);
    require_boolean(c);
    bool nullable = c.any_nullable();
    return make_node(eval_or, DataType::boolean().with_nullable(nullable), std::move(c.args));
}
NodePtr b_not(CallSite& c) {
    c.arity(1, 1);
    require_boolean(c);
    bool nullable = c.any_nullable();
    return make_node(eval_not, DataType::boolean().with_nullable(nullable), std::move(c.args));
}

enum IsKind { kIsNull, kIsNotNull, kIsTrue, kIsNotTrue, kIsFalse, kIsNotFalse };

Datum eval_is(const Node& n, EvalContext& c) {
    Datum a = n.args[0]->eval(c);
    switch (n.param) {
        case kIsNull:
            return Datum::of_bool(a.null);
        case kIsNotNull:
            return Datum::of_bool(!a.null);
        case kIsTrue:
            return Datum::of_bool(!a.null && a.i);
        case kIsNotTrue:
            return Datum::of_bool(a.null || !a.i);
        case kIsFalse:
            return Datum::of_bool(!a.null && !a.i);
        default:
            return Datum::of_bool(a.null || a.i);
    }
}

NodePtr build_is(CallSite& c, IsKind k) {
    c.arity(1, 1);
    if (k != kIsNull && k != kIsNotNull) require_boolean(c);
    auto n = make_node(eval_is, DataType::boolean().not_null(), std::move(c.args));
    n->param = k;
    return n;
}
NodePtr b_is_null(CallSite& c) {
    return build_is(c, kIsNull);
}
NodePtr b_is_not_null(CallSite& c) {
    return build_is(c, kIsNotNull);
}
NodePtr b_is_true(CallSite& c) {
    return build_is(c, kIsTrue);
}
NodePtr b_is_not_true(CallSite& c) {
    return build_is(c, kIsNotTrue);
}
NodePtr b_is_false(CallSite& c) {
    return build_is(c, kIsFalse);
}
NodePtr b_is_not_false(CallSite& c) {
    return build_is(c, kIsNotFalse);
}
NodePtr b_is_unknown(CallSite& c) {
    c.arity(1, 1);
    require_boolean(c);
    return build_is(c, kIsNull);
}
NodePtr b_is_not_unknown(CallSite& c) {
    c.arity(1, 1);
    require_boolean(c);
    return build_is(c, kIsNotNull);
}

Datum eval_distinct(const Node& n, EvalContext& c) {
    Datum a = n.args[0]->eval(c);
    Datum b = n.args[1]->eval(c);
    bool same;
    if (a.null || b.null)
        same = a.null && b.null;
    else
        same = values_equal(a, n.args[0]->type, b, n.args[1]->type);
    return Datum::of_bool(n.param ? same : !same);
}
NodePtr b_distinct(CallSite& c) {
    c.arity(2, 2);
    return make_node(eval_distinct, DataType::boolean().not_null(), std::move(c.args));
}
NodePtr b_not_distinct(CallSite& c) {
    auto n = b_distinct(c);
    n->param = 1;
    return n;
}

bool between(const Datum& x, const DataType& tx, const Datum& lo, const DataType& tl,
             const Datum& hi, const DataType& th) {
    if (lo.null || hi.null) return false;
    return compare_values(x, tx, lo, tl) >= 0 && compare_values(x, tx, hi, th) <= 0;
}

Datum eval_between(const Node& n, EvalContext& c) {
    Datum x = n.args[0]->eval(c);
    if (x.null) return Datum::of_bool(false);
    Datum lo = n.args[1]->eval(c);
    Datum hi = n.args[2]->eval(c);
    const auto& t = n.args;
    bool r = between(x, t[0]->type, lo, t[1]->type, hi, t[2]->type);
    if (!r && n.param) r = between(x, t[0]->type, hi, t[2]->type, lo, t[1]->type);
    return Datum::of_bool(r);
}
NodePtr build_between(CallSite& c, bool symmetric) {
    c.arity(3, 3);
    for (std::size_t i = 1; i < 3; ++i)
        if (!c.args[0]->null_literal && !c.args[i]->null_literal &&
            !orderable(c.type(0), c.type(i)))
            c.fail("Cannot apply 'BETWEEN' to arguments of type " + c.signature());
    auto n = make_node(eval_between, DataType::boolean().not_null(), std::move(c.args));
    n->param = symmetric;
    return n;
}
NodePtr b_between(CallSite& c) {
    return build_between(c, false);
}
NodePtr b_between_sym(CallSite& c) {
    return build_between(c, true);
}

Datum eval_in(const Node& n, EvalContext& c) {
    Datum x = n.args[0]->eval(c);
    if (x.null) return Datum::of_bool(false);
    for (std::size_t i = 1; i < n.args.size(); ++i) {
        Datum v = n.args[i]->eval(c);
        if (!v.null && values_equal(x, n.args[0]->type, v, n.args[i]->type))
            return Datum::of_bool(true);
    }
    return Datum::of_bool(false);
}
NodePtr b_in(CallSite& c) {
    if (c.args.size() < 2) c.fail_arity("IN needs a value list");
    for (std::size_t i = 1; i < c.args.size(); ++i)
        c.note_never_equal(0, i, "IN, at its value " + std::to_string(i) + ",");
    return make_node(eval_in, DataType::boolean().not_null(), std::move(c.args));
}

}  // namespace

bool orderable(const DataType& a, const DataType& b) {
    if (a.is_numeric() && b.is_numeric()) return true;
    if (java_class(a) != java_class(b)) return false;
    return !a.is_nested() && !a.is_binary();
}

bool values_equal(const Datum& a, const DataType& ta, const Datum& b, const DataType& tb) {
    if (a.null || b.null) return false;
    if (java_class(ta) != java_class(tb)) return false;
    switch (ta.root()) {
        case TypeRoot::Float:
        case TypeRoot::Double:
            return a.d == b.d;
        case TypeRoot::Decimal:
            return compare_decimals(a.dec, ta.scale(), b.dec, tb.scale()) == 0;
        case TypeRoot::Timestamp:
        case TypeRoot::TimestampLtz:
            return a.i == b.i && a.nanos == b.nanos;
        case TypeRoot::TimestampTz:
            return a.i == b.i && a.nanos == b.nanos && a.off == b.off;
        case TypeRoot::Char:
        case TypeRoot::Varchar:
        case TypeRoot::Binary:
        case TypeRoot::Varbinary:
        case TypeRoot::Array:
        case TypeRoot::Map:
        case TypeRoot::Row:
            return a.s == b.s;
        default:
            return a.i == b.i;
    }
}

int compare_values(const Datum& a, const DataType& ta, const Datum& b, const DataType& tb) {
    if (ta.is_numeric() && tb.is_numeric()) {
        if (ta.is_integer() && tb.is_integer()) return cmp3(a.i, b.i);
        if (ta.root() == TypeRoot::Decimal && tb.root() == TypeRoot::Decimal)
            return compare_decimals(a.dec, ta.scale(), b.dec, tb.scale());
        return cmp3(to_double(a, ta), to_double(b, tb));
    }
    switch (ta.root()) {
        case TypeRoot::Char:
        case TypeRoot::Varchar:
        case TypeRoot::Binary:
        case TypeRoot::Varbinary:
            return cmp_bytes(a.s, b.s);
        case TypeRoot::Timestamp:
        case TypeRoot::TimestampLtz:
        case TypeRoot::TimestampTz:
            return a.i != b.i ? cmp3(a.i, b.i) : cmp3(a.nanos, b.nanos);
        default:
            return cmp3(a.i, b.i);
    }
}

void register_logic(Registry& r) {
    r["="] = b_eq;
    r["<>"] = b_ne;
    r["<"] = b_lt;
    r["<="] = b_le;
    r[">"] = b_gt;
    r[">="] = b_ge;
    r["AND"] = b_and;
    r["OR"] = b_or;
    r["NOT"] = b_not;
    r["IS NULL"] = b_is_null;
    r["IS NOT NULL"] = b_is_not_null;
    r["IS TRUE"] = b_is_true;
    r["IS NOT TRUE"] = b_is_not_true;
    r["IS FALSE"] = b_is_false;
    r["IS NOT FALSE"] = b_is_not_false;
    r["IS UNKNOWN"] = b_is_unknown;
    r["IS NOT UNKNOWN"] = b_is_not_unknown;
    r["IS DISTINCT FROM"] = b_distinct;
    r["IS NOT DISTINCT FROM"] = b_not_distinct;
    r["BETWEEN"] = b_between;
    r["BETWEEN SYMMETRIC"] = b_between_sym;
    r["IN"] = b_in;
}

}  // namespace cdcd::transform
