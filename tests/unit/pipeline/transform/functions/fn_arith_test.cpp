// ROUND, CEIL, FLOOR and DECIMAL division against Flink CDC's ArithmeticFunctions and the
// result types of TransformSqlReturnTypes / Calcite. Expectations cite the Flink CDC file
// (master 23fb108e9bea) they come from; values are printed as the values sink prints them.
#include <catch2/catch.hpp>

#include "pipeline/data/field_format.h"
#include "pipeline/transform/compile/compiler.h"
#include "pipeline/transform/compile/types.h"
#include "pipeline/transform/syntax/parser.h"

using namespace cdcd;
using namespace cdcd::transform;

namespace {

// The columns of FlinkPipelineTransformITCase#testFloorCeilAndRoundFunction.
Schema arith_schema() {
    return SchemaBuilder()
        .column("float_col", DataType::float_())
        .column("double_col", DataType::double_())
        .column("decimal_col", DataType::decimal(10, 3))
        .column("int_col", DataType::int_())
        .build();
}

struct Result {
    std::string value;
    std::string type;
};

Result run(const std::string& text, double f, double d, __int128 dec, std::int64_t i = 1) {
    static const Schema schema = arith_schema();
    RowBuilder b(4);
    b.set_double(0, static_cast<double>(static_cast<float>(f)));
    b.set_double(1, d);
    b.set_decimal(2, Decimal{dec});
    b.set_long(3, i);
    Row row = std::move(b).build();
    auto expr = parse_expression(text);
    Scope scope{&schema, nullptr, nullptr, Zone::utc().get()};
    auto node = compile(*expr, scope);
    EvalContext ctx;
    ctx.row = row.view();
    Datum v = node->eval(ctx);
    RowBuilder out(1);
    write_field(out, 0, v, node->type);
    Row r = std::move(out).build();
    return {format_field(r.view(), 0, node->type), node->type.with_nullable(true).to_string()};
}

}  // namespace

TEST_CASE("ROUND, CEIL and FLOOR: values and result types of Flink CDC") {
    // FlinkPipelineTransformITCase.java:2600-2606 (testFloorCeilAndRoundFunction): rows of
    // float 1.1 / 5.555 / 9999999.999, double the same, decimal(10, 3) the same.
    CHECK(run("ROUND(decimal_col, 2)", 0, 0, 1100).value == "1.10");
    CHECK(run("ROUND(decimal_col, 2)", 0, 0, 1100).type == "DECIMAL(10, 2)");
    CHECK(run("ROUND(decimal_col, 0)", 0, 0, 1100).value == "1");
    CHECK(run("ROUND(decimal_col, 0)", 0, 0, 1100).type == "DECIMAL(8, 0)");
    CHECK(run("ROUND(decimal_col, 2)", 0, 0, 5555).value == "5.56");
    CHECK(run("ROUND(decimal_col, 0)", 0, 0, 5555).value == "6");
    CHECK(run("ROUND(decimal_col, 2)", 0, 0, 9999999999).value == "10000000.00");
    CHECK(run("CEIL(decimal_col)", 0, 0, 1100).type == "DECIMAL(10, 0)");
    CHECK(run("CEIL(decimal_col)", 0, 0, 1100).value == "2");
    CHECK(run("FLOOR(decimal_col)", 0, 0, 9999999999).value == "9999999");
    CHECK(run("ROUND(float_col, 2)", 5.555, 0, 0).value == "5.56");
    CHECK(run("ROUND(float_col, 2)", 5.555, 0, 0).type == "FLOAT");
    CHECK(run("ROUND(float_col, 0)", 9999999.999, 0, 0).value == "1.0E7");
    CHECK(run("ROUND(double_col, 2)", 0, 5.555, 0).value == "5.56");
    CHECK(run("ROUND(double_col, 0)", 0, 5.555, 0).value == "6.0");
    CHECK(run("FLOOR(double_col)", 0, 9999999.999, 0).value == "9999999.0");
    CHECK(run("CEIL(double_col)", 0, 9999999.999, 0).value == "1.0E7");
    // ROUND(Float) reads Float.toString: 1.005f is "1.005", so it rounds up (the float's
    // binary value, 1.00499999523, would round down).
    CHECK(run("ROUND(float_col, 2)", 1.005, 0, 0).value == "1.01");
    // BigDecimal has no negative zero: ROUND(-0.4) is 0.0 (ArithmeticFunctions.round(Double)).
    CHECK(run("ROUND(double_col, 0)", 0, -0.4, 0).value == "0.0");
    CHECK(run("ROUND(double_col, 0)", 0, -0.0, 0).value == "0.0");
    CHECK(run("ROUND(float_col, 0)", -0.3, 0, 0).value == "0.0");
    CHECK(run("ROUND(double_col, -2)", 0, 1250.0, 0).value == "1300.0");
    CHECK(run("ROUND(double_col, 1)", 0, -185.15, 0).value == "-185.2");
    // A rounding position that is no literal keeps the operand's type.
    CHECK(run("ROUND(decimal_col, int_col)", 0, 0, 5555, 1).type == "DECIMAL(10, 3)");
    CHECK(run("ROUND(decimal_col, int_col)", 0, 0, 5555, 1).value == "5.600");
}

TEST_CASE("DECIMAL division truncates at the dividend's scale") {
    // ArithmeticFunctions.divides(BigDecimal, BigDecimal) is lhs.divide(rhs, RoundingMode.DOWN):
    // the quotient at the dividend's scale, then DecimalData.fromBigDecimal to the result type.
    CHECK(run("decimal_col / CAST(3 AS DECIMAL(1, 0))", 0, 0, 10000).value == "3.333000");
    CHECK(run("decimal_col / CAST(3 AS DECIMAL(1, 0))", 0, 0, 10000).type == "DECIMAL(13, 6)");
    CHECK(run("CAST(2 AS DECIMAL(1, 0)) / CAST(3 AS DECIMAL(1, 0))", 0, 0, 0).value == "0.000000");
}
