#pragma once
// Compiles one expression against a schema and evaluates it on one row, the way every expression
// test does: the value as the values sink prints it and the result type. The pipeline's time
// zone is a parameter; NOW() and the other clock functions see 2024-03-15T10:20:30.123Z.
#include <stdexcept>
#include <string>

#include "pipeline/data/field_format.h"
#include "pipeline/transform/compile/compiler.h"
#include "pipeline/transform/compile/types.h"
#include "pipeline/transform/functions/zone.h"
#include "pipeline/transform/syntax/parser.h"

namespace cdcd::transform::testing {

struct Evaluated {
    std::string value;  // "null" for NULL
    std::string type;   // DataType::to_string(), NOT NULL included
};

/// Compile and evaluation errors propagate (SyntaxError, CompileError, EvalError).
inline Evaluated eval_on_row(const std::string& text, const Schema& schema, const Row& row,
                             const std::string& zone_id = "UTC") {
    auto expr = parse_expression(text);
    auto zone = Zone::find(zone_id);
    if (!zone) throw std::invalid_argument("unknown zone " + zone_id);
    Scope scope{&schema, nullptr, nullptr, zone.get()};
    auto node = compile(*expr, scope);
    EvalContext ctx;
    ctx.row = row.view();
    ctx.table = TableId::of("db", "tbl");
    ctx.zone = zone.get();
    ctx.now_millis = 1710498030123;  // 2024-03-15T10:20:30.123Z
    Datum d = node->eval(ctx);
    RowBuilder b(1);
    write_field(b, 0, d, node->type);
    Row r = std::move(b).build();
    return {format_field(r.view(), 0, node->type), node->type.to_string()};
}

/// The same, with a refused expression or a failing row as the value: "SYNTAX: …",
/// "COMPILE: …" or "ERROR: …" (and no type).
inline Evaluated eval_or_error(const std::string& text, const Schema& schema, const Row& row,
                               const std::string& zone_id = "UTC") {
    try {
        return eval_on_row(text, schema, row, zone_id);
    } catch (const SyntaxError& e) {
        return {std::string("SYNTAX: ") + e.what(), ""};
    } catch (const CompileError& e) {
        return {std::string("COMPILE: ") + e.what(), ""};
    } catch (const EvalError& e) {
        return {std::string("ERROR: ") + e.what(), ""};
    }
}

}  // namespace cdcd::transform::testing
