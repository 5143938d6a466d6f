#pragma once
// Syntax tree of transform expressions, as parsed; names are resolved later by the compiler.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/types/data_type.h"

namespace cdcd::transform {

enum class ExprKind : std::uint8_t {
    Literal,   // text + literal kind
    Column,    // name (case-sensitive, backticks removed)
    Call,      // name = upper-case function or operator name; args
    Case,      // args: [operand] (when, then)* [else]
    Cast,      // args[0]; cast_type; try_cast
    Symbol,    // a keyword argument: time unit of EXTRACT/TIMESTAMPADD, BOTH/LEADING/TRAILING
    Interval,  // INTERVAL literal: interval_months or interval_millis
};

enum class LiteralKind : std::uint8_t {
    Null,
    Boolean,
    Integer,
    Decimal,
    Double,
    String,
    Date,
    Time,
    Timestamp
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
    ExprKind kind = ExprKind::Literal;
    int pos = 0;     // 0-based offset of the expression's first character in the parsed text
    int end = 0;     // offset one past its last character
    int height = 1;  // nodes on the longest path down to a leaf (the parser bounds it)
    std::string name;
    LiteralKind literal = LiteralKind::Null;
    std::vector<ExprPtr> args;
    bool case_has_operand = false;
    bool case_has_else = false;
    std::optional<DataType> cast_type;
    bool try_cast = false;
    bool interval_months = false;  // YEAR/MONTH intervals count months, the others millis
    std::int64_t interval_value = 0;

    ExprPtr clone() const;
};

/// One item of a projection list: `*`, or an expression with its output name.
struct ProjectionItem {
    bool star = false;
    ExprPtr expr;
    std::string name;
    std::string text;  // the item's source text, for messages
    int pos = 0;
};

}  // namespace cdcd::transform
