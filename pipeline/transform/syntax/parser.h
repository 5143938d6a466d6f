#pragma once
// Parses transform expressions (Calcite SQL precedence) and projection lists. Throws SyntaxError
// with the 0-based offset of the offending token.
#include <cstddef>
#include <string_view>
#include <vector>

#include "pipeline/transform/syntax/ast.h"
#include "pipeline/transform/syntax/lexer.h"

namespace cdcd::transform {

/// Deepest nesting the parser accepts: parentheses, function calls, NOT and signs each add a
/// level, and so does each operator of a chain (`a + b + c` is two levels above its operands).
/// It bounds the recursion of the parser, the compiler and evaluation, far below what overflows
/// a thread's stack (even under ASan); a longer list of alternatives is written with IN.
inline constexpr int kMaxExpressionDepth = 256;
/// Longest projection or filter text the parser accepts, in bytes.
inline constexpr std::size_t kMaxExpressionLength = 64 * 1024;

ExprPtr parse_expression(std::string_view text);
/// `*`, `expr AS name`, `expr name`, `expr` (a column keeps its name; others are EXPR$i).
std::vector<ProjectionItem> parse_projection(std::string_view text);

}  // namespace cdcd::transform
