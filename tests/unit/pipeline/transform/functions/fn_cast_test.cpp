// CAST and TRY_CAST against Flink CDC's CastingFunctions and the decimal precision mode of
// FlinkCdcTypeSystem. Each expectation names the Flink CDC file (master 23fb108e9bea) it comes
// from; values are printed as the values sink prints them.
#include <catch2/catch.hpp>

#include "config/diagnostics.h"
#include "pipeline/data/field_format.h"
#include "pipeline/event/event_format.h"
#include "pipeline/transform/compile/compiler.h"
#include "pipeline/transform/compile/types.h"
#include "pipeline/transform/functions/functions.h"
#include "pipeline/transform/syntax/parser.h"
#include "pipeline/transform/transform_operator.h"

using namespace cdcd;
using namespace cdcd::transform;

namespace {

Schema cast_schema() {
    return SchemaBuilder()
        .column("f", DataType::float_())
        .column("d", DataType::double_())
        .column("b", DataType::bigint())
        .column("dec", DataType::decimal(20, 2))
        .column("s", DataType::string())
        .column("ti", DataType::tinyint())
        .column("ts", DataType::timestamp(9))
        .column("ltz", DataType::timestamp_ltz(9))
        .column("tz", DataType::timestamp_tz(9))
        .build();
}

Row cast_row() {
    RowBuilder b(9);
    b.set_double(0, static_cast<double>(6.7F));
    b.set_double(1, -0.0);
    b.set_long(2, 3000000000LL);
    b.set_decimal(3, Decimal{static_cast<__int128>(1234567890123456789LL) * 10});  // …78.90
    b.set_string(4, " 42 ");
    b.set_long(5, -128);
    // TransformSpecsITCase's first record: TimestampData.fromMillis(123456789, 123456),
    // LocalZonedTimestampData.fromEpochMillis(123456789, 123456) and ZonedTimestampData.of(
    // 123456789, 123456, "Asia/Shanghai"), whose millis are the wall time in Shanghai (+08:00).
    b.set_timestamp(6, Timestamp{123456789, 123456});
    b.set_timestamp(7, Timestamp{123456789, 123456});
    b.set_zoned_timestamp(8,
                          ZonedTimestamp{Timestamp{123456789 - 8 * 3600 * 1000, 123456}, 8 * 3600});
    return std::move(b).build();
}

struct Result {
    std::string value;
    std::string type;
};

Result run(const std::string& text, DecimalPrecisionMode mode = DecimalPrecisionMode::UpTo38,
           const Zone* zone = Zone::utc().get()) {
    static const Schema schema = cast_schema();
    static const Row row = cast_row();
    try {
        auto expr = parse_expression(text);
        Scope scope{&schema, nullptr, nullptr, zone};
        scope.decimal_mode = mode;
        auto node = fit_decimal(compile(*expr, scope));
        EvalContext ctx;
        ctx.row = row.view();
        ctx.zone = zone;
        Datum d = node->eval(ctx);
        RowBuilder b(1);
        write_field(b, 0, d, node->type);
        Row r = std::move(b).build();
        return {format_field(r.view(), 0, node->type), node->type.with_nullable(true).to_string()};
    } catch (const std::exception& e) {
        return {std::string("ERROR: ") + e.what(), ""};
    }
}

void check_values(const std::vector<std::pair<const char*, const char*>>& cases,
                  DecimalPrecisionMode mode = DecimalPrecisionMode::UpTo38) {
    for (const auto& [expr, expected] : cases) {
        INFO(expr);
        CHECK(run(expr, mode).value == expected);
    }
}

}  // namespace

TEST_CASE("CAST of text to numbers and BOOLEAN is NULL where Java cannot read it") {
    // flink-cdc-composer/src/test/resources/specs/casting.yaml:76-159 ("Cast To Boolean" ..
    // "Cast To Double"): values and NULL for 'FOOBAR'; integers narrow through Double.xValue().
    check_values({
        {"CAST('FALSE' AS BOOLEAN)", "false"},
        {"CAST('TRUE' AS BOOLEAN)", "true"},
        {"CAST('FOOBAR' AS BOOLEAN)", "false"},
        {"CAST(0 AS BOOLEAN)", "false"},
        {"CAST(1 AS BOOLEAN)", "true"},
        {"CAST('2.22' AS TINYINT)", "2"},
        {"CAST('333' AS TINYINT)", "77"},
        {"CAST('44.44' AS TINYINT)", "44"},
        {"CAST('5555555' AS TINYINT)", "99"},
        {"CAST('FOOBAR' AS TINYINT)", "null"},
        {"CAST('333' AS SMALLINT)", "333"},
        {"CAST('5555555' AS SMALLINT)", "-15005"},
        {"CAST('FOOBAR' AS SMALLINT)", "null"},
        {"CAST('5555555' AS INT)", "5555555"},
        {"CAST('FOOBAR' AS INT)", "null"},
        {"CAST('44.44' AS BIGINT)", "44"},
        {"CAST('FOOBAR' AS BIGINT)", "null"},
        {"CAST('2.22' AS FLOAT)", "2.22"},
        {"CAST('5555555' AS FLOAT)", "5555555.0"},
        {"CAST('FOOBAR' AS FLOAT)", "null"},
        {"CAST('44.44' AS DOUBLE)", "44.44"},
        {"CAST('FOOBAR' AS DOUBLE)", "null"},
        {"CAST('2.22' AS DECIMAL(10, 0))", "2"},
        {"CAST('44.44' AS DECIMAL(10, 0))", "44"},
        {"CAST('FOOBAR' AS DECIMAL(10, 0))", "null"},
    });
    // CastingFunctionsTest.java:86-89 (testExistingCastFailureBehaviorIsUnchanged).
    check_values({
        {"CAST('invalid' AS BOOLEAN)", "false"},
        {"CAST('128' AS TINYINT)", "-128"},
        {"CAST('1.5' AS INT)", "1"},
    });
    // CastingFunctions.castToInteger: Integer.valueOf fails, Double.valueOf("-0.5").intValue()
    // is 0; Double.valueOf ignores white space, reads exponents and a d/f suffix;
    // Boolean.valueOf is true for "true" in any case and nothing else (not even " true").
    check_values({
        {"CAST('-0.5' AS INT)", "0"},
        {"CAST(s AS INT)", "42"},
        {"CAST('1e3' AS INT)", "1000"},
        {"CAST('2.5d' AS INT)", "2"},
        {"CAST('0x10p0' AS INT)", "16"},
        {"CAST('9e99' AS INT)", "2147483647"},
        {"CAST('NaN' AS INT)", "0"},
        {"CAST('' AS INT)", "null"},
        {"CAST('3.14' AS BOOLEAN)", "false"},
        {"CAST('tRuE' AS BOOLEAN)", "true"},
        {"CAST(' true' AS BOOLEAN)", "false"},
        {"CAST(' 1.5 ' AS DOUBLE)", "1.5"},
        {"CAST('1.5e' AS DOUBLE)", "null"},
    });
}

TEST_CASE("CAST between numbers narrows as Java does") {
    // CastingFunctions.castToInteger(Long) goes through the text: Integer.valueOf fails, so
    // Double.intValue() saturates; castToByte(Integer 333) keeps the low bits of (int) 333.0.
    // castToBoolean(Double -0.0) is !(-0.0).equals(0d): true.
    check_values({
        {"CAST(b AS INT)", "2147483647"},
        {"CAST(b AS TINYINT)", "-1"},
        {"CAST(333 AS TINYINT)", "77"},
        {"CAST(d AS BOOLEAN)", "true"},
        {"CAST(dec AS TINYINT)", "78"},  // BigDecimal.byteValue(): low bits of the integer part
        {"CAST(CAST(-3.99 AS DOUBLE) AS INT)", "-3"},
    });
}

TEST_CASE("TRY_CAST reads text strictly and gives NULL where it fails") {
    // CastingFunctionsTest.java:30-62 (testTryCastSupportedTypes,
    // testTryCastInvalidDataReturnsNull) and casting.yaml:380-397 ("Try Cast").
    check_values({
        {"TRY_CAST('true' AS BOOLEAN)", "true"},
        {"TRY_CAST('yes' AS BOOLEAN)", "true"},
        {"TRY_CAST('no' AS BOOLEAN)", "false"},
        {"TRY_CAST('invalid' AS BOOLEAN)", "null"},
        {"TRY_CAST('1' AS TINYINT)", "1"},
        {"TRY_CAST(128 AS TINYINT)", "-128"},
        {"TRY_CAST('128' AS TINYINT)", "null"},
        {"TRY_CAST('32768' AS SMALLINT)", "null"},
        {"TRY_CAST('1.5' AS INT)", "null"},
        {"TRY_CAST(CAST(1.5 AS DOUBLE) AS INT)", "1"},
        {"TRY_CAST('9223372036854775808' AS BIGINT)", "null"},
        {"TRY_CAST('5.5' AS FLOAT)", "5.5"},
        {"TRY_CAST('6.5' AS DOUBLE)", "6.5"},
        {"TRY_CAST('invalid' AS DOUBLE)", "null"},
        {"TRY_CAST('7.50' AS DECIMAL(3, 2))", "7.50"},
        {"TRY_CAST('invalid' AS DECIMAL(10, 2))", "null"},
        {"TRY_CAST('123' AS INTEGER)", "123"},
        {"TRY_CAST('FOOBAR' AS INTEGER)", "null"},
        {"IFNULL(TRY_CAST('FOOBAR' AS INTEGER), 17)", "17"},
        // tryCastToInteger trims the text; tryCastToBoolean does not (and is case-insensitive).
        {"TRY_CAST(s AS INT)", "42"},
        {"TRY_CAST(' yes' AS BOOLEAN)", "null"},
        {"TRY_CAST('Y' AS BOOLEAN)", "true"},
    });
}

TEST_CASE("CAST to DECIMAL goes through the value's Java text") {
    // FlinkPipelineTransformITCase.java:2305-2350 (testNumericCastingsWithTruncation): FLOAT 6.7
    // becomes 6.7 (Float.toString), not 6.699999809265137; the text is rounded to the declared
    // precision (MathContext) and then to the scale, and NULL when it needs more digits.
    check_values({
        {"CAST(f AS DECIMAL(19, 10))", "6.7000000000"},
        {"CAST(f AS DECIMAL(1, 0))", "7"},
        {"CAST(f AS DECIMAL(3, 1))", "6.7"},
        {"CAST(f AS DOUBLE)", "6.699999809265137"},
        {"CAST(CAST(-10.11 AS DECIMAL(10, 2)) AS DECIMAL(1, 0))", "null"},
        {"CAST(CAST(-10.11 AS DECIMAL(10, 2)) AS DECIMAL(2, 0))", "-10"},
        {"CAST('-12.13' AS DECIMAL(3, 1))", "-12.1"},
        {"CAST(CAST(1.0E10 AS DOUBLE) AS DECIMAL(12, 1))", "10000000000.0"},
        // new BigDecimal("1.23456", MathContext(4)) is 1.235, then setScale(2, HALF_UP) 1.24.
        {"CAST('1.23456' AS DECIMAL(4, 2))", "1.24"},
        {"CAST('5e-3' AS DECIMAL(5, 2))", "0.01"},
        {"CAST(' 1.5' AS DECIMAL(5, 2))", "null"},  // BigDecimal reads no white space
        {"TRY_CAST(' 1.5' AS DECIMAL(5, 2))", "1.50"},
        {"CAST(CAST('NaN' AS DOUBLE) AS DECIMAL(5, 2))", "null"},
    });
}

TEST_CASE("CAST to TIMESTAMP is typed TIMESTAMP(3) at most and keeps the nanoseconds") {
    // casting.yaml:343 ("Cast To Timestamp (UTC)"), :364 (Asia/Shanghai) and :386 ("Try Cast"):
    // Calcite caps a TIMESTAMP's precision at 3 (RelDataTypeSystemImpl.getMaxPrecision) and its
    // default is 0; castToTimestamp (CastingFunctions.java:374-418) returns the LocalDateTime
    // whole, so TIMESTAMP(3) values print all nine digits.
    CHECK(run("CAST(ts AS TIMESTAMP(6))").type == "TIMESTAMP(3)");
    CHECK(run("CAST(ts AS TIMESTAMP(9))").type == "TIMESTAMP(3)");
    CHECK(run("CAST(ts AS TIMESTAMP(2))").type == "TIMESTAMP(2)");
    CHECK(run("CAST(ts AS TIMESTAMP)").type == "TIMESTAMP(0)");
    CHECK(run("TRY_CAST('FOOBAR' AS TIMESTAMP(6))").type == "TIMESTAMP(3)");
    check_values({
        {"CAST(ts AS TIMESTAMP(6))", "1970-01-02T10:17:36.789123456"},
        {"CAST(ts AS TIMESTAMP(0))", "1970-01-02T10:17:36.789123456"},
        {"CAST('2019-12-31T21:48:25.123456789' AS TIMESTAMP(3))", "2019-12-31T21:48:25.123456789"},
        {"TRY_CAST('2019-12-31T21:48:25' AS TIMESTAMP(6))", "2019-12-31T21:48:25"},
        {"TRY_CAST('FOOBAR' AS TIMESTAMP(6))", "null"},
    });
    // casting.yaml:399 ("Cast To Timestamp Failure"): the row fails.
    CHECK(run("CAST('FOOBAR' AS TIMESTAMP(6))").value.rfind("ERROR: Cannot cast 'FOOBAR'", 0) == 0);
}

TEST_CASE("CAST of TIMESTAMP_TZ and TIMESTAMP_LTZ to TIMESTAMP is the pipeline zone's wall time") {
    // casting.yaml:343/364: castToTimestamp reads an Instant with LocalDateTime.ofInstant and a
    // ZonedDateTime with withZoneSameInstant, both in the pipeline's zone; a TIMESTAMP_TZ's own
    // offset does not matter. Text with a zone is read by Instant.parse likewise.
    check_values({
        {"CAST(tz AS TIMESTAMP(6))", "1970-01-02T02:17:36.789123456"},
        {"CAST(ltz AS TIMESTAMP(6))", "1970-01-02T10:17:36.789123456"},
        {"CAST('2019-12-31T21:48:25Z' AS TIMESTAMP)", "2019-12-31T21:48:25"},
    });
    const auto shanghai = Zone::find("Asia/Shanghai");
    REQUIRE(shanghai);
    for (const auto& [expr, expected] : std::vector<std::pair<const char*, const char*>>{
             {"CAST(tz AS TIMESTAMP(6))", "1970-01-02T10:17:36.789123456"},
             {"CAST(ltz AS TIMESTAMP(6))", "1970-01-02T18:17:36.789123456"},
             {"CAST(ts AS TIMESTAMP(6))", "1970-01-02T10:17:36.789123456"},
             {"CAST('2019-12-31T21:48:25Z' AS TIMESTAMP)", "2020-01-01T05:48:25"},
             {"CAST('2019-12-31T21:48:25' AS TIMESTAMP)", "2019-12-31T21:48:25"},
         }) {
        INFO(expr);
        CHECK(run(expr, DecimalPrecisionMode::UpTo38, shanghai.get()).value == expected);
    }
}

TEST_CASE("transform.decimal.precision.mode caps DECIMAL types at 19 or 38 digits") {
    // casting.yaml:200-330 ("Cast To Decimal(20, 5)", "(38, 0)", "(38, 10)", "(38, 18)" in
    // both modes) and decimal.yaml:16-120.
    using M = DecimalPrecisionMode;
    CHECK(run("CAST('333' AS DECIMAL(20, 5))", M::UpTo19).type == "DECIMAL(19, 5)");
    CHECK(run("CAST('333' AS DECIMAL(38, 10))", M::UpTo19).value == "333.0000000000");
    CHECK(run("CAST('2.22' AS DECIMAL(38, 18))", M::UpTo19).value == "2.220000000000000000");
    CHECK(run("CAST('333' AS DECIMAL(38, 18))", M::UpTo19).type == "DECIMAL(19, 18)");
    CHECK(run("CAST('333' AS DECIMAL(38, 18))", M::UpTo19).value == "null");
    CHECK(run("CAST('333' AS DECIMAL(38, 18))", M::UpTo38).value == "333.000000000000000000");
    CHECK(run("CAST('333' AS DECIMAL(38, 18))", M::UpTo38).type == "DECIMAL(38, 18)");
    // A DECIMAL(20, 2) column is DECIMAL(19, 2) to Calcite: its 20-digit value overflows it.
    CHECK(run("dec + CAST(1 AS DECIMAL(1, 0))", M::UpTo19).type == "DECIMAL(19, 2)");
    CHECK(run("dec + CAST(1 AS DECIMAL(1, 0))", M::UpTo19).value == "null");
    CHECK(run("dec + CAST(1 AS DECIMAL(1, 0))", M::UpTo38).type == "DECIMAL(21, 2)");
    CHECK(run("dec + CAST(1 AS DECIMAL(1, 0))", M::UpTo38).value == "123456789012345679.90");
    CHECK(run("dec * CAST(2 AS DECIMAL(1, 0))", M::UpTo38).type == "DECIMAL(21, 2)");
    CHECK(run("dec / CAST(2 AS DECIMAL(1, 0))", M::UpTo19).type == "DECIMAL(19, 2)");
    CHECK(run("dec / CAST(2 AS DECIMAL(1, 0))", M::UpTo19).value == "61728394506172839.45");
    CHECK(run("dec / CAST(2 AS DECIMAL(1, 0))", M::UpTo38).type == "DECIMAL(24, 6)");
    CHECK(run("dec / CAST(2 AS DECIMAL(1, 0))", M::UpTo38).value == "61728394506172839.450000");
    CHECK(run("ABS(dec)", M::UpTo19).type == "DECIMAL(19, 2)");
    CHECK(run("ABS(dec)", M::UpTo19).value == "null");
    CHECK(run("ABS(dec)", M::UpTo38).value == "123456789012345678.90");
    CHECK(run("CEIL(dec)", M::UpTo19).type == "DECIMAL(19, 0)");
    CHECK(run("CEIL(dec)", M::UpTo38).type == "DECIMAL(20, 0)");
    CHECK(run("CEIL(dec)", M::UpTo38).value == "123456789012345679");
    CHECK(run("FLOOR(dec)", M::UpTo38).value == "123456789012345678");
    CHECK(run("ROUND(dec, 1)", M::UpTo19).type == "DECIMAL(19, 1)");
    CHECK(run("ROUND(dec, 1)", M::UpTo19).value == "123456789012345678.9");
    CHECK(run("ROUND(dec, 1)", M::UpTo38).type == "DECIMAL(20, 1)");
}

TEST_CASE("TransformOperator applies the decimal precision mode it is given") {
    // casting.yaml:224-262: DECIMAL(38, 0) is DECIMAL(19, 0) under UP_TO_19, the default.
    config::TransformDef def;
    def.source_table = "db.t";
    def.projection = "id, CAST(id AS DECIMAL(38, 0)) AS c";
    const TableId table = TableId::of("db", "t");
    Schema schema = SchemaBuilder().column("id", DataType::bigint().not_null()).build();
    auto schema_of = [&](std::optional<DecimalPrecisionMode> mode) {
        config::Diagnostics diags;
        auto op = mode ? TransformOperator::create({def}, "UTC", diags, {}, *mode)
                       : TransformOperator::create({def}, "UTC", diags);
        REQUIRE(diags.ok());
        EventBatch in, out;
        in.push_back(Event(CreateTableEvent{table, schema}));
        op->process(in, out);
        REQUIRE(out.size() == 1);
        return format_schema_change(*as_schema_change(out[0]));
    };
    CHECK_THAT(schema_of(std::nullopt), Catch::Contains("`c` DECIMAL(19, 0)"));
    CHECK_THAT(schema_of(DecimalPrecisionMode::UpTo19), Catch::Contains("`c` DECIMAL(19, 0)"));
    CHECK_THAT(schema_of(DecimalPrecisionMode::UpTo38), Catch::Contains("`c` DECIMAL(38, 0)"));
    CHECK(parse_decimal_precision_mode("UP_TO_38") == DecimalPrecisionMode::UpTo38);
    CHECK(!parse_decimal_precision_mode("up_to_38"));
}
