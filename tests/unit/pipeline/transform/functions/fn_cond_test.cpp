// Conditional functions against Flink CDC's LogicalFunctions (master 23fb108e9bea); values are
// printed as the values sink prints them.
#include <catch2/catch.hpp>

#include "tests/unit/pipeline/transform/one_row_eval.h"
#include "tests/unit/pipeline/transform/string_test_eval.h"

using cdcd::transform::testing::eval_printed;

TEST_CASE("NULLIF compares floating-point operands with Java's double ==") {
    // LogicalFunctions.valuesEqualForNullIf compares doubleValue() with == as soon as one side is
    // a Float or Double: NaN is not equal to NaN, so NULLIF keeps it, and -0.0 equals 0.0
    // (LogicalFunctionsTest.java:51-62, testNullIfFloatingPointValues).
    const std::pair<const char*, const char*> cases[] = {
        {"NULLIF(CAST('NaN' AS FLOAT), CAST('NaN' AS FLOAT))", "NaN"},
        {"NULLIF(CAST('NaN' AS DOUBLE), CAST('NaN' AS DOUBLE))", "NaN"},
        {"NULLIF(CAST('NaN' AS DOUBLE), CAST('NaN' AS FLOAT))", "NaN"},
        {"NULLIF(CAST('-0.0' AS DOUBLE), CAST('0.0' AS DOUBLE))", "null"},
        {"NULLIF(CAST('-0.0' AS FLOAT), 0)", "null"},
        {"NULLIF(CAST('Infinity' AS DOUBLE), CAST('Infinity' AS DOUBLE))", "null"},
        {"NULLIF(CAST('Infinity' AS DOUBLE), CAST('-Infinity' AS DOUBLE))", "Infinity"},
        // LogicalFunctionsTest.java:42-44: 1 == 1.0; a long that a float cannot hold differs.
        {"NULLIF(1, 1.0E0)", "null"},
        {"NULLIF(CAST(16777217 AS BIGINT), CAST(16777217 AS FLOAT))", "16777217"},
        {"NULLIF(d, 2.5)", "null"},
        {"NULLIF(dec, CAST(12.34 AS DOUBLE))", "null"},
    };
    for (const auto& [expr, expected] : cases) {
        INFO(expr);
        CHECK(eval_printed(expr) == expected);
    }
}

// Result nullability of IFNULL and COALESCE: NOT NULL when an argument cannot be NULL
// (TransformSqlReturnTypes.IF_NULL, Calcite's COALESCE LEAST_NULLABLE); a constant folded to a
// value counts as NOT NULL as Calcite types it (CAST(0 AS DECIMAL(1, 0)) is NOT NULL there).

using namespace cdcd;
using cdcd::transform::testing::eval_on_row;

namespace {

const Schema& schema() {
    static const Schema s = SchemaBuilder()
                                .column("dec", DataType::decimal(20, 2))
                                .column("dec_null", DataType::decimal(20, 2))
                                .column("i", DataType::int_())
                                .build();
    return s;
}

const Row& row() {
    static const Row r = [] {
        RowBuilder b(3);
        b.set_decimal(0, Decimal{12345}).set_long(2, 3);
        return std::move(b).build();
    }();
    return r;
}

}  // namespace

TEST_CASE("IFNULL with a constant DECIMAL replacement is NOT NULL", "[fn_cond]") {
    // specs/decimal.yaml:44: IFNULL(decimal_20_2_ + CAST(1 AS DECIMAL(1, 0)),
    // CAST(0 AS DECIMAL(1, 0))) is DECIMAL(21, 2) NOT NULL.
    auto r = eval_on_row("IFNULL(dec + CAST(1 AS DECIMAL(1, 0)), CAST(0 AS DECIMAL(1, 0)))",
                         schema(), row());
    CHECK(r.type == "DECIMAL(21, 2) NOT NULL");
    CHECK(r.value == "124.45");
    r = eval_on_row("IFNULL(dec_null, CAST(0 AS DECIMAL(1, 0)))", schema(), row());
    CHECK(r.type == "DECIMAL(20, 2) NOT NULL");
    CHECK(r.value == "0.00");
}

TEST_CASE("IFNULL and COALESCE stay nullable when every argument can be NULL", "[fn_cond]") {
    CHECK(eval_on_row("IFNULL(dec_null, dec)", schema(), row()).type == "DECIMAL(20, 2)");
    CHECK(eval_on_row("COALESCE(dec_null, dec, NULL)", schema(), row()).type == "DECIMAL(20, 2)");
    CHECK(eval_on_row("IFNULL(i, CAST(NULL AS INT))", schema(), row()).type == "INT");
}

TEST_CASE("COALESCE with a constant argument is NOT NULL", "[fn_cond]") {
    auto r = eval_on_row("COALESCE(dec_null, CAST(7 AS DECIMAL(1, 0)))", schema(), row());
    CHECK(r.type == "DECIMAL(20, 2) NOT NULL");
    CHECK(r.value == "7.00");
    CHECK(eval_on_row("COALESCE(i, 1)", schema(), row()).type == "INT NOT NULL");
}
