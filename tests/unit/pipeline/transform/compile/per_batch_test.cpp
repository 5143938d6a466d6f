// Expressions of the clock and constants are evaluated once per batch: the same values as
// evaluating them per row (the clock is one instant per batch), errors still per row.
#include "pipeline/transform/compile/per_batch.h"

#include <catch2/catch.hpp>
#include <cstring>

#include "pipeline/data/field_format.h"
#include "pipeline/transform/compile/compiler.h"
#include "pipeline/transform/compile/types.h"
#include "pipeline/transform/syntax/parser.h"

using namespace cdcd;
using namespace cdcd::transform;

namespace {

const Schema& schema() {
    static const Schema s =
        SchemaBuilder().column("n", DataType::bigint()).column("s", DataType::string()).build();
    return s;
}

NodePtr compiled(const std::string& text) {
    Scope scope{&schema(), nullptr, nullptr, Zone::utc().get()};
    return compile(*parse_expression(text), scope);
}

Row row_of(std::int64_t n, const char* s) {
    RowBuilder b(2);
    b.set_long(0, n).set_string(1, s);
    return std::move(b).build();
}

// Evaluates `node` on rows of one batch whose clock is `now_millis`; an evaluation error is
// printed as "ERROR: ...". The arena is reset and overwritten between rows, as later rows would,
// so a kept value that pointed into it would show.
std::vector<std::string> eval_batch(const Node& node, EvalContext& ctx, std::int64_t now_millis,
                                    const std::vector<Row>& rows) {
    ++ctx.batch;
    ctx.now_millis = now_millis;
    std::vector<std::string> out;
    for (const Row& row : rows) {
        ctx.arena.reset();
        std::memset(ctx.arena.alloc(256), 'x', 256);
        ctx.arena.reset();
        ctx.row = row.view();
        try {
            Datum d = node.eval(ctx);
            RowBuilder b(1);
            write_field(b, 0, d, node.type);
            out.push_back(format_field(std::move(b).build().view(), 0, node.type));
        } catch (const EvalError& e) {
            out.push_back(std::string("ERROR: ") + e.what());
        }
    }
    return out;
}

constexpr std::int64_t k2024 = 1710498030123;  // 2024-03-15T10:20:30.123Z
constexpr std::int64_t k2025 = 1741990830123;  // 2025-03-14T22:20:30.123Z

}  // namespace

TEST_CASE("which expressions are evaluated once per batch") {
    // A computation of the clock alone: the whole expression.
    CHECK(compiled("DATE_FORMAT(LOCALTIMESTAMP, 'yyyy')")->args.size() == 1);
    CHECK(compiled("DATE_FORMAT(LOCALTIMESTAMP, 'yyyy')")->batch_constant);
    // A bare clock read costs no more than the kept value: left as it is.
    CHECK(compiled("LOCALTIMESTAMP")->reads_clock);
    CHECK(compiled("LOCALTIMESTAMP")->args.empty());
    // Mixed with a column: only the clock's part.
    auto mixed = compiled("CONCAT(s, DATE_FORMAT(NOW(), 'yyyy'))");
    CHECK_FALSE(mixed->batch_constant);
    REQUIRE(mixed->args.size() == 2);
    CHECK(mixed->args[1]->batch_constant);
    CHECK(mixed->args[1]->args.size() == 1);
    CHECK(mixed->args[1]->args[0]->args.size() == 2);  // DATE_FORMAT's own two arguments
    // UUID() and RAND() change per row: never kept.
    CHECK_FALSE(compiled("CONCAT(UUID(), DATE_FORMAT(NOW(), 'yyyy'))")->batch_constant);
    CHECK_FALSE(compiled("UPPER(UUID())")->batch_constant);
    // Constants alone are folded at compile time, as before.
    CHECK(compiled("UPPER('abc')")->is_constant);
}

TEST_CASE("a value kept for a batch is its clock's, and the next batch computes its own") {
    auto node = compiled("CONCAT(DATE_FORMAT(LOCALTIMESTAMP, 'yyyy-MM-dd'), '/', s)");
    EvalContext ctx;
    ctx.zone = Zone::utc().get();
    std::vector<Row> rows;
    rows.push_back(row_of(1, "a"));
    rows.push_back(row_of(2, "b"));
    CHECK(eval_batch(*node, ctx, k2024, rows) ==
          std::vector<std::string>{"2024-03-15/a", "2024-03-15/b"});
    CHECK(eval_batch(*node, ctx, k2025, rows) ==
          std::vector<std::string>{"2025-03-14/a", "2025-03-14/b"});
    // The whole expression kept: its text survives the arena's reuse between rows.
    auto whole = compiled("UPPER(DATE_FORMAT(LOCALTIMESTAMP, 'MMMM yyyy'))");
    CHECK(eval_batch(*whole, ctx, k2024, rows) ==
          std::vector<std::string>{"MARCH 2024", "MARCH 2024"});
}

TEST_CASE("a clock expression that fails is not kept: every row that needs it fails alone") {
    // An integer division by zero fails; CASE reaches it only for rows with n > 1.
    auto node = compiled(
        "CASE WHEN n > 1 THEN CAST(DATE_FORMAT(LOCALTIMESTAMP, 'yyyy') AS BIGINT) / 0 ELSE n END");
    EvalContext ctx;
    ctx.zone = Zone::utc().get();
    std::vector<Row> rows;
    rows.push_back(row_of(1, "a"));
    rows.push_back(row_of(2, "b"));
    rows.push_back(row_of(1, "c"));
    rows.push_back(row_of(3, "d"));
    auto out = eval_batch(*node, ctx, k2024, rows);
    REQUIRE(out.size() == 4);
    CHECK(out[0] == "1");
    CHECK(out[1].rfind("ERROR: ", 0) == 0);
    CHECK(out[2] == "1");
    CHECK(out[3] == out[1]);
}
