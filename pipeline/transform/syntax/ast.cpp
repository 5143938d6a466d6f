#include "pipeline/transform/syntax/ast.h"

namespace cdcd::transform {

ExprPtr Expr::clone() const {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->pos = pos;
    e->end = end;
    e->height = height;
    e->name = name;
    e->literal = literal;
    for (const auto& a : args) e->args.push_back(a->clone());
    e->case_has_operand = case_has_operand;
    e->case_has_else = case_has_else;
    e->cast_type = cast_type;
    e->try_cast = try_cast;
    e->interval_months = interval_months;
    e->interval_value = interval_value;
    return e;
}

}  // namespace cdcd::transform
