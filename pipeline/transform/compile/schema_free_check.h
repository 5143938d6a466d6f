#pragma once
// What `cdcd validate` can find wrong in an expression before the table's schema is known:
// unknown functions, wrong numbers of arguments, and any error of a part that reads no column.
#include <string>
#include <vector>

#include "pipeline/connector/transform_functions.h"
#include "pipeline/transform/functions/zone.h"
#include "pipeline/transform/syntax/ast.h"

namespace cdcd::transform {

struct ExpressionProblem {
    int pos = 0;  // 0-based offset in the parsed text
    std::string message;
};

/// Every problem found, in the order of the text. Nothing is evaluated. A problem that depends
/// on a column's type (e.g. UPPER of an INT column) is left to the compile against the schema.
/// `functions`: the pipeline's connector functions (may be null).
std::vector<ExpressionProblem> check_without_schema(const Expr& e, const Zone* zone,
                                                    const TransformFunctions* functions = nullptr);

}  // namespace cdcd::transform
