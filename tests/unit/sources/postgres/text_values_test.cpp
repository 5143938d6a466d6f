// PostgreSQL's text output into row fields, for each mapped type, and the texts refused.
#include "sources/postgres/text_values.h"

#include <catch2/catch.hpp>

#include "pipeline/data/field_format.h"

using namespace cdcd;
using namespace cdcd::postgres;

namespace {

/// The field as the values sink prints it, or "refused: <why>".
std::string parsed(const DataType& type, std::string_view text) {
    RowBuilder row(1);
    if (auto why = set_text_value(row, 0, type, text)) return "refused: " + *why;
    Row built = std::move(row).build();
    return format_field(built, 0, type);
}

}  // namespace

TEST_CASE("text values: booleans from bool and bit(1)") {
    CHECK(parsed(DataType::boolean(), "t") == "true");
    CHECK(parsed(DataType::boolean(), "f") == "false");
    CHECK(parsed(DataType::boolean(), "1") == "true");
    CHECK(parsed(DataType::boolean(), "0") == "false");
    CHECK(parsed(DataType::boolean(), "yes").rfind("refused", 0) == 0);
}

TEST_CASE("text values: integers, floats and decimals") {
    CHECK(parsed(DataType::smallint(), "-32768") == "-32768");
    CHECK(parsed(DataType::int_(), "2147483647") == "2147483647");
    CHECK(parsed(DataType::bigint(), "-9223372036854775808") == "-9223372036854775808");
    CHECK(parsed(DataType::int_(), "1.5").rfind("refused", 0) == 0);
    CHECK(parsed(DataType::double_(), "1.25") == "1.25");
    CHECK(parsed(DataType::double_(), "NaN") == "NaN");
    CHECK(parsed(DataType::double_(), "-Infinity") == "-Infinity");
    CHECK(parsed(DataType::float_(), "0.1") == "0.1");
    CHECK(parsed(DataType::double_(), "1e300") == "1.0E300");
    CHECK(parsed(DataType::decimal(10, 2), "12345678.90") == "12345678.90");
    CHECK(parsed(DataType::decimal(10, 2), "-0.5") == "-0.50");
    CHECK(parsed(DataType::decimal(38, 0), "2.5") == "3");  // HALF_UP, as Flink's DECIMAL(38, 0)
    CHECK(parsed(DataType::decimal(10, 2), "NaN") == "refused: numeric NaN has no DECIMAL value");
}

TEST_CASE("text values: strings as sent, bytea from hex output") {
    CHECK(parsed(DataType::string(), "héllo, \"world\"") == "héllo, \"world\"");
    CHECK(parsed(DataType::char_(3), "ab ") == "ab ");
    RowBuilder row(1);
    REQUIRE_FALSE(set_text_value(row, 0, DataType::bytes(), "\\x00ff10"));
    Row built = std::move(row).build();
    CHECK(built.view().get_bytes(0) == std::string("\x00\xff\x10", 3));
    CHECK(parsed(DataType::bytes(), "\\x0").rfind("refused", 0) == 0);
    CHECK(parsed(DataType::bytes(), "\\xzz").rfind("refused", 0) == 0);
    CHECK(parsed(DataType::bytes(), "abc").rfind("refused", 0) == 0);
}

TEST_CASE("text values: dates, times and timestamps in DateStyle ISO") {
    CHECK(parsed(DataType::date(), "2024-02-29") == "2024-02-29");
    CHECK(parsed(DataType::date(), "infinity").rfind("refused", 0) == 0);
    CHECK(parsed(DataType::time(6), "10:15:30.123456") == "10:15:30.123456");
    CHECK(parsed(DataType::time(0), "23:59:59") == "23:59:59");
    CHECK(parsed(DataType::timestamp(6), "2024-01-02 03:04:05.5") == "2024-01-02T03:04:05.500");
    CHECK(parsed(DataType::timestamp(6), "2024-01-02 03:04:05") == "2024-01-02T03:04:05");
}

TEST_CASE("text values: timestamptz is an instant, whatever offset it was printed with") {
    const DataType ltz = DataType::timestamp_ltz(6);
    const std::string utc = parsed(ltz, "2024-01-02 03:04:05.25+00");
    CHECK(utc == parsed(ltz, "2024-01-02 05:04:05.25+02"));
    CHECK(utc == parsed(ltz, "2024-01-02 00:34:05.25-02:30"));
    CHECK(utc == parsed(ltz, "2024-01-02 03:04:06.25+00:00:01"));
    CHECK(utc != parsed(ltz, "2024-01-02 03:04:05.25+01"));
    CHECK(parsed(ltz, "2024-01-02 03:04:05").rfind("refused", 0) == 0);
    CHECK(parsed(ltz, "2024-01-02 03:04:05+1").rfind("refused", 0) == 0);
    CHECK(parsed(ltz, "infinity").rfind("refused", 0) == 0);
}

TEST_CASE("text values: a long refused value is cut in the error") {
    const std::string why = parsed(DataType::int_(), std::string(500, '9'));
    CHECK(why.size() < 200);
    CHECK(why.find("...") != std::string::npos);
}

TEST_CASE("text values: interval as Debezium's microseconds (30.4375 days a month)") {
    const DataType big = DataType::bigint();
    CHECK(parsed(big, "00:00:00") == "0");
    CHECK(parsed(big, "1 year 2 mons 3 days 04:05:06.789") == "37091106789000");
    CHECK(parsed(big, "1 mon -1 days") == "2543400000000");
    CHECK(parsed(big, "-1 years -2 mons") == "-36817200000000");
    CHECK(parsed(big, "-04:05:06.5") == "-14706500000");
    CHECK(parsed(big, "-1 days +02:03:00") == std::to_string((-86400LL + 7380) * 1'000'000));
    CHECK(parsed(big, "1 fortnight").rfind("refused", 0) == 0);
    CHECK(parsed(big, "1 day 04:05").rfind("refused", 0) == 0);
    // A SMALLINT or INT column is never an interval.
    CHECK(parsed(DataType::int_(), "00:00:01").rfind("refused", 0) == 0);
}

TEST_CASE("text values: money under lc_monetary C into DECIMAL(38, 2)") {
    const DataType money = DataType::decimal(38, 2);
    CHECK(parsed(money, "$1,234,567.89") == "1234567.89");
    CHECK(parsed(money, "-$5.00") == "-5.00");
    CHECK(parsed(money, "$0.00") == "0.00");
    CHECK(parsed(money, "-$92,233,720,368,547,758.08") == "-92233720368547758.08");
    CHECK(parsed(money, "$").rfind("refused", 0) == 0);
    CHECK(parsed(money, "-5$").rfind("refused", 0) == 0);
}

TEST_CASE("text values: one-dimensional arrays, NULL elements and quoted ones") {
    CHECK(parsed(DataType::array(DataType::int_()), "{1,NULL,-3}") == "[1, null, -3]");
    CHECK(parsed(DataType::array(DataType::int_()), "{}") == "[]");
    CHECK(parsed(DataType::array(DataType::string()), R"({a,"b c","q\"x","NULL",NULL,""})") ==
          R"([a, b c, q"x, NULL, null, ])");
    CHECK(parsed(DataType::array(DataType::decimal(5, 1)), "{1.5,2}") == "[1.5, 2.0]");
    CHECK(parsed(DataType::array(DataType::int_()), "{{1,2},{3,4}}").rfind("refused", 0) == 0);
    CHECK(parsed(DataType::array(DataType::int_()), "[2:3]={1,2}").rfind("refused", 0) == 0);
    CHECK(parsed(DataType::array(DataType::int_()), "{1,x}") ==
          "refused: array element 2: 'x' is not a whole number");
    CHECK(parsed(DataType::array(DataType::string()), R"({"open)").rfind("refused", 0) == 0);
}
