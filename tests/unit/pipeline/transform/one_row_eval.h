#pragma once
// Compiles one expression against a schema and evaluates it on one row, the way every expression
// test does: the value as the values sink prints it and the result type. Each evaluation is
// checked column-at-a-time too, so every expression test also tests that evaluator. The pipeline's
// time zone is a parameter; NOW() and the other clock functions see 2024-03-15T10:20:30.123Z.
#include <cctype>
#include <optional>
#include <stdexcept>
#include <string>

#include "pipeline/data/field_format.h"
#include "pipeline/transform/compile/batch.h"
#include "pipeline/transform/compile/compiler.h"
#include "pipeline/transform/compile/types.h"
#include "pipeline/transform/functions/zone.h"
#include "pipeline/transform/syntax/parser.h"

namespace cdcd::transform::testing {

struct Evaluated {
    std::string value;  // "null" for NULL
    std::string type;   // DataType::to_string(), NOT NULL included
};

inline std::string formatted(const Datum& d, const DataType& type) {
    RowBuilder b(1);
    write_field(b, 0, d, type);
    Row r = std::move(b).build();
    return format_field(r.view(), 0, type);
}

inline void set_up(EvalContext& ctx, const Zone* zone) {
    ctx.table = TableId::of("db", "tbl");
    ctx.zone = zone;
    ctx.now_millis = 1710498030123;  // 2024-03-15T10:20:30.123Z
}

/// Evaluates `node` column-at-a-time (compile/batch.h) over a batch of three copies of the row:
/// each must have the row's value (`expected`), or the batch must fail where the row failed
/// (no `expected`). Throws std::logic_error when it does not, which fails the test.
inline void check_batch_agrees(const std::string& text, const Node& node, const Row& row,
                               const Zone* zone, const std::optional<std::string>& expected) {
    std::string upper = text;
    for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    if (upper.find("UUID") != std::string::npos || upper.find("RAND") != std::string::npos)
        return;  // a new value each time
    BatchRows rows;
    for (int k = 0; k < 3; ++k) rows.add(row.view(), "+I", nullptr);
    EvalContext ctx;
    set_up(ctx, zone);
    BatchScratch scratch;
    BatchContext b{rows, ctx, scratch};
    const std::uint32_t all[] = {0, 1, 2};
    Datum out[3];
    try {
        eval_batch(node, b, Selection(all, 3), out);
    } catch (const std::exception& e) {
        if (expected)
            throw std::logic_error("`" + text + "` failed column-at-a-time (" + e.what() +
                                   ") but gave " + *expected + " row by row");
        return;
    }
    if (!expected)
        throw std::logic_error("`" + text + "` failed row by row but not column-at-a-time");
    for (const Datum& d : out) {
        std::string got = formatted(d, node.type);
        if (got != *expected)
            throw std::logic_error("`" + text + "` gave " + got + " column-at-a-time but " +
                                   *expected + " row by row");
    }
}

/// Compile and evaluation errors propagate (SyntaxError, CompileError, EvalError). Every
/// evaluation is also checked column-at-a-time (check_batch_agrees).
inline Evaluated eval_on_row(const std::string& text, const Schema& schema, const Row& row,
                             const std::string& zone_id = "UTC") {
    auto expr = parse_expression(text);
    auto zone = Zone::find(zone_id);
    if (!zone) throw std::invalid_argument("unknown zone " + zone_id);
    Scope scope{&schema, nullptr, nullptr, zone.get()};
    auto node = compile(*expr, scope);
    EvalContext ctx;
    ctx.row = row.view();
    set_up(ctx, zone.get());
    Datum d;
    try {
        d = node->eval(ctx);
    } catch (const EvalError&) {
        check_batch_agrees(text, *node, row, zone.get(), std::nullopt);
        throw;
    }
    std::string value = formatted(d, node->type);
    check_batch_agrees(text, *node, row, zone.get(), value);
    return {value, node->type.to_string()};
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
