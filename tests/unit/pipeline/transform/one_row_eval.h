#pragma once
// Compiles one expression against a schema and evaluates it on one row, for the tests of single
// function families (fn_*_test.cpp): the value as the values sink prints it and the result type.
// Compile and evaluation errors propagate (CompileError, EvalError).
#include <string>

#include "pipeline/data/field_format.h"
#include "pipeline/transform/compiler.h"
#include "pipeline/transform/parser.h"
#include "pipeline/transform/types.h"
#include "pipeline/transform/zone.h"

namespace cdcd::transform::testing {

struct Evaluated {
    std::string value;  // "null" for NULL
    std::string type;   // DataType::to_string(), NOT NULL included
};

inline Evaluated eval_on_row(const std::string& text, const Schema& schema, const Row& row) {
    auto expr = parse_expression(text);
    auto zone = Zone::utc();
    Scope scope{&schema, nullptr, nullptr, zone.get()};
    auto node = compile(*expr, scope);
    EvalContext ctx;
    ctx.row = row.view();
    ctx.table = TableId::of("db", "tbl");
    ctx.zone = zone.get();
    Datum d = node->eval(ctx);
    RowBuilder b(1);
    write_field(b, 0, d, node->type);
    Row r = std::move(b).build();
    return {format_field(r.view(), 0, node->type), node->type.to_string()};
}

}  // namespace cdcd::transform::testing
