#pragma once
// Parses transform expressions (Calcite SQL precedence) and projection lists. Throws SyntaxError
// with the 0-based offset of the offending token.
#include <string_view>
#include <vector>

#include "pipeline/transform/ast.h"
#include "pipeline/transform/lexer.h"

namespace cdcd::transform {

ExprPtr parse_expression(std::string_view text);
/// `*`, `expr AS name`, `expr name`, `expr` (a column keeps its name; others are EXPR$i).
std::vector<ProjectionItem> parse_projection(std::string_view text);

}  // namespace cdcd::transform
