// PostgreSQL's text output into row fields, for each mapped type, and the texts refused.
#include "sources/postgres/text_values.h"

#include <catch2/catch.hpp>

#include "pipeline/data/field_format.h"

using namespace cdcd;
using namespace cdcd::postgres;

namespace {

/// The field as the values sink prints it, or "refused: <why>".
std::string parsed(const DataType& type, std::string_view text, TextForm form = TextForm::Native) {
    RowBuilder row(1);
    if (auto why = set_text_value(row, 0, type, text, form)) return "refused: " + *why;
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
    CHECK_THAT(parsed(DataType::decimal(10, 2), "NaN"),
               Catch::StartsWith("refused: numeric NaN has no DECIMAL value"));
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

namespace {

/// A bit string's bytes (as Debezium gives them) in hex, or "refused: <why>".
std::string bits(std::string_view text) {
    RowBuilder row(1);
    if (auto why = set_text_value(row, 0, DataType::binary(64), text, TextForm::BitString))
        return "refused: " + *why;
    Row built = std::move(row).build();
    std::string hex;
    for (unsigned char c : built.view().get_bytes(0)) {
        static constexpr char kDigits[] = "0123456789abcdef";
        hex += kDigits[c >> 4];
        hex += kDigits[c & 15];
    }
    return hex;
}

std::string point(std::string_view text) {
    return parsed(DataType::string(), text, TextForm::Point);
}

std::string hstore(std::string_view text) {
    return parsed(DataType::string(), text, TextForm::Hstore);
}

}  // namespace

TEST_CASE("text values: bit strings as Debezium's little-endian bytes of their value") {
    // Flink CDC's full-types test: B'00001010' is {10}, B'00101010' {42}.
    CHECK(bits("00001010") == "0a");
    CHECK(bits("00101010") == "2a");
    // The last character is the lowest bit; as few bytes as hold the highest set bit.
    CHECK(bits("1") == "01");
    CHECK(bits("100") == "04");
    CHECK(bits("1000000000") == "0002");
    CHECK(bits("101000000011") == "030a");
    CHECK(bits("1111111111111111111") == "ffff07");
    // No bit set, or none at all: no bytes.
    CHECK(bits("000") == "");
    CHECK(bits("") == "");
    CHECK(bits("0000000100000000") == "0001");
    CHECK(bits("10x").rfind("refused: '10x' is not a bit string", 0) == 0);
    CHECK(parsed(DataType::binary(8), "00001010", TextForm::BitString) == "Cg==");
    CHECK(parsed(DataType::string(), "1", TextForm::BitString).rfind("refused: ", 0) == 0);
}

TEST_CASE("text values: point as the JSON Flink CDC writes for it") {
    // Flink CDC's full-types test: '(3.456,7.890)'::point.
    CHECK(point("(3.456,7.89)") == R"({"coordinates":"[[3.456,7.89]]","type":"Point","srid":0})");
    // Java's Double.toString: a fraction always, scientific outside [1e-3, 1e7).
    CHECK(point("(1,-2)") == R"({"coordinates":"[[1.0,-2.0]]","type":"Point","srid":0})");
    CHECK(point("(0,-0)") == R"({"coordinates":"[[0.0,-0.0]]","type":"Point","srid":0})");
    CHECK(point("(12345678,0.0001)") ==
          R"({"coordinates":"[[1.2345678E7,1.0E-4]]","type":"Point","srid":0})");
    CHECK(point("(1e+300,-1.5e-300)") ==
          R"({"coordinates":"[[1.0E300,-1.5E-300]]","type":"Point","srid":0})");
    // Jackson writes a non-finite number as a string, escaped inside the coordinates' text.
    CHECK(point("(Infinity,-Infinity)") ==
          R"({"coordinates":"[[\"Infinity\",\"-Infinity\"]]","type":"Point","srid":0})");
    CHECK(point("(NaN,1)").find("NaN coordinate") != std::string::npos);
    for (std::string_view bad : {"", "()", "(1)", "(1,2", "1,2)", "(a,b)", "(1,2,3)", "(1 , 2)"})
        CHECK(point(bad).rfind("refused: ", 0) == 0);
    CHECK(parsed(DataType::bigint(), "(1,2)", TextForm::Point).rfind("refused: ", 0) == 0);
}

TEST_CASE("text values: hstore as Debezium's JSON of it, in a Java HashMap's order") {
    // Flink CDC's full-types test: 'color => "blue", size => "L"', printed size first.
    CHECK(hstore(R"("size"=>"L", "color"=>"blue")") == R"({"size":"L","color":"blue"})");
    CHECK(hstore(R"("a"=>"1", "b"=>"2")") == R"({"a":"1","b":"2"})");
    // The map's order, not the text's: "b" hashes to bucket 2, "a" to 1, "aa" (3104) to 0.
    CHECK(hstore(R"("b"=>"2", "a"=>"1", "aa"=>"3")") == R"({"aa":"3","a":"1","b":"2"})");
    CHECK(hstore("") == "{}");
    CHECK(hstore(R"("k"=>NULL)") == R"({"k":null})");
    CHECK(hstore(R"("k"=>"NULL")") == R"({"k":"NULL"})");
    CHECK(hstore(R"("q\"x"=>"back\\slash", "t"=>"a	b")") ==
          R"({"t":"a\tb","q\"x":"back\\slash"})");
    CHECK(hstore("\"c\"=>\"\x01\"") == R"({"c":"\u0001"})");
    CHECK(hstore(R"(""=>"")") == R"({"":""})");
    for (std::string_view bad : {"a=>b", R"("a"=>)", R"("a"=>"b",)", R"("a"=>"b","c"=>"d")",
                                 R"("a"->"b")", R"("a=>"b")", R"("a"=>"b)", R"("a"=>nul)"})
        CHECK(hstore(bad).rfind("refused: '", 0) == 0);
    CHECK(parsed(DataType::int_(), "", TextForm::Hstore).rfind("refused: ", 0) == 0);
}
