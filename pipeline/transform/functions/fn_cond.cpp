// Conditional functions: CASE (simple and searched), COALESCE, IF, IFNULL, NULLIF.
#include "pipeline/transform/compile/batch.h"
#include "pipeline/transform/functions/functions.h"

namespace cdcd::transform {

namespace {

DataType common_type(CallSite& c, const std::vector<std::size_t>& idx, bool force_nullable) {
    std::vector<DataType> types;
    for (auto i : idx)
        if (!c.args[i]->null_literal) types.push_back(c.type(i));
    if (types.empty()) return DataType::string();
    auto t = least_restrictive(types);
    if (!t) {
        std::string list;
        for (std::size_t k = 0; k < types.size(); ++k)
            list += (k ? ", " : "") + types[k].to_string();
        c.fail("Cannot infer a common type of " + c.name + " branches: " + list);
    }
    bool nullable = force_nullable;
    for (auto i : idx) nullable |= c.type(i).nullable() || c.args[i]->null_literal;
    return t->with_nullable(nullable);
}

void coerce_all(CallSite& c, const std::vector<std::size_t>& idx, const DataType& t) {
    for (auto i : idx) c.args[i] = coerce(std::move(c.args[i]), t, c.expr.args[i]->pos);
}

// A branch's value; a constant one (the usual THEN 'text') is read without a call.
Datum branch(const Node& b, EvalContext& c) {
    if (b.is_constant && !b.null_literal) return b.constant;
    return b.eval(c);
}

// Searched: (when, then)* [else]; param = has else. Simple: operand first; param2 = 1.
Datum eval_case(const Node& n, EvalContext& c) {
    std::size_t i = 0, size = n.args.size();
    bool has_else = n.param;
    Datum operand;
    if (n.param2) {
        operand = n.args[0]->eval(c);
        i = 1;
    }
    std::size_t pairs_end = has_else ? size - 1 : size;
    for (; i + 1 < pairs_end + 1 && i < pairs_end; i += 2) {
        Datum w = n.args[i]->eval(c);
        bool hit;
        if (n.param2)
            hit = !operand.null && values_equal(operand, n.args[0]->type, w, n.args[i]->type);
        else
            hit = w.truth();
        if (hit) return branch(*n.args[i + 1], c);
    }
    if (has_else) return branch(*n.args[size - 1], c);
    return Datum{};
}

// Searched CASE over a batch: each WHEN is evaluated for the rows no earlier WHEN took, each
// branch for the rows its WHEN took, as per row. A simple CASE goes row by row.
void batch_case(const Node& n, BatchContext& b, Selection sel, Datum* out) {
    if (n.param2) {
        eval_rows(n, b, sel, out);
        return;
    }
    const std::size_t size = n.args.size();
    const bool has_else = n.param;
    const std::size_t pairs_end = has_else ? size - 1 : size;
    ScratchColumn when(b);
    ScratchSelection hit(b), left_a(b), left_b(b);
    ScratchSelection* left = &left_a;  // the rows still without a branch, after `current`
    ScratchSelection* spare = &left_b;
    Selection current = sel;
    for (std::size_t i = 0; i < pairs_end && !current.empty(); i += 2) {
        eval_batch(*n.args[i], b, current, when.get());
        hit.clear();
        left->clear();
        for (std::uint32_t r : current) (when[r].truth() ? hit : *left).push_back(r);
        eval_batch(*n.args[i + 1], b, hit.get(), out);
        current = left->get();
        std::swap(left, spare);
    }
    if (has_else)
        eval_batch(*n.args[size - 1], b, current, out);
    else
        for (std::uint32_t r : current) ::new (at(out, r)) Datum();
}

NodePtr b_case(CallSite& c) {
    const Expr& e = c.expr;
    std::size_t start = e.case_has_operand ? 1 : 0;
    std::size_t end = e.case_has_else ? c.args.size() - 1 : c.args.size();
    std::vector<std::size_t> results;
    for (std::size_t i = start; i < end; i += 2) {
        if (!e.case_has_operand && c.type(i).root() != TypeRoot::Boolean &&
            !c.args[i]->null_literal)
            c.fail_arg(i, "CASE WHEN condition must be BOOLEAN, not " + c.type(i).to_string());
        if (e.case_has_operand)
            c.note_never_equal(0, i, "CASE's WHEN " + std::to_string(i / 2 + 1));
        results.push_back(i + 1);
    }
    if (e.case_has_else) results.push_back(c.args.size() - 1);
    DataType t = common_type(c, results, !e.case_has_else);
    coerce_all(c, results, t);
    auto n = make_node(eval_case, t, std::move(c.args));
    n->batch = batch_case;
    n->param = e.case_has_else;
    n->param2 = e.case_has_operand;
    return n;
}

Datum eval_coalesce(const Node& n, EvalContext& c) {
    for (const auto& a : n.args) {
        Datum d = a->eval(c);
        if (!d.null) return d;
    }
    return Datum{};
}
// Whether argument i can be NULL. A constant folded to a value cannot, whatever its type says:
// Calcite types CAST(0 AS DECIMAL(1, 0)) NOT NULL, where cdcd's CAST to DECIMAL is nullable.
bool may_be_null(const CallSite& c, std::size_t i) {
    const Node& a = *c.args[i];
    if (a.null_literal) return true;
    if (a.is_constant && !a.constant.null) return false;
    return a.type.nullable();
}

// COALESCE is nullable only when every argument is (Calcite's LEAST_NULLABLE); IFNULL likewise
// (TransformSqlReturnTypes.IF_NULL: the input's type when it is NOT NULL, else the replacement's
// nullability).
NodePtr b_coalesce(CallSite& c) {
    if (c.args.empty()) c.arity(1, 1000);
    std::vector<std::size_t> idx;
    bool all_nullable = true;
    for (std::size_t i = 0; i < c.args.size(); ++i) {
        idx.push_back(i);
        all_nullable &= may_be_null(c, i);
    }
    DataType t = common_type(c, idx, false).with_nullable(all_nullable);
    coerce_all(c, idx, t);
    return make_node(eval_coalesce, t, std::move(c.args));
}
NodePtr b_ifnull(CallSite& c) {
    c.arity(2, 2);
    return b_coalesce(c);
}

Datum eval_if(const Node& n, EvalContext& c) {
    Datum cond = n.args[0]->eval(c);
    return branch(*n.args[cond.truth() ? 1 : 2], c);
}
NodePtr b_if(CallSite& c) {
    c.arity(3, 3);
    if (c.type(0).root() != TypeRoot::Boolean && !c.args[0]->null_literal)
        c.fail_arg(0, "IF condition must be BOOLEAN, not " + c.type(0).to_string());
    DataType t = common_type(c, {1, 2}, false);
    coerce_all(c, {1, 2}, t);
    return make_node(eval_if, t, std::move(c.args));
}

bool is_floating(const DataType& t) {
    return t.root() == TypeRoot::Float || t.root() == TypeRoot::Double;
}

Datum eval_nullif(const Node& n, EvalContext& c) {
    Datum a = n.args[0]->eval(c);
    if (a.null) return a;
    Datum b = n.args[1]->eval(c);
    if (b.null) return a;
    const DataType& ta = n.args[0]->type;
    const DataType& tb = n.args[1]->type;
    bool eq;
    if (is_floating(ta) || is_floating(tb))
        // LogicalFunctions.valuesEqualForNullIf: doubleValue() ==, so NaN is never equal (NULLIF
        // keeps it) and -0.0 equals 0.0.
        eq = to_double(a, ta) == to_double(b, tb);
    else if (ta.is_numeric() && tb.is_numeric())
        eq = compare_values(a, ta, b, tb) == 0;
    else
        eq = values_equal(a, ta, b, tb);
    return eq ? Datum{} : a;
}
NodePtr b_nullif(CallSite& c) {
    c.arity(2, 2);
    DataType t = c.type(0).with_nullable(true);
    return make_node(eval_nullif, t, std::move(c.args));
}

}  // namespace

void register_cond(Registry& r) {
    r["CASE"] = b_case;
    r["COALESCE"] = b_coalesce;
    r["IFNULL"] = b_ifnull;
    r["IF"] = b_if;
    r["NULLIF"] = b_nullif;
}

}  // namespace cdcd::transform
