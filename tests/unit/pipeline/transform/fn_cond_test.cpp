// Conditional functions against Flink CDC's LogicalFunctions (master 23fb108e9bea); values are
// printed as the values sink prints them.
#include <catch2/catch.hpp>

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
