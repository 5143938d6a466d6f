// What `cdcd validate` finds in an expression before any table schema is known: unknown
// functions (with a suggestion), wrong argument counts, and errors of literal-only parts; what
// depends on a column's type is left to the compile against the schema.
#include "pipeline/transform/compile/schema_free_check.h"

#include <catch2/catch.hpp>

#include "pipeline/transform/syntax/parser.h"

using namespace cdcd::transform;

namespace {

// "column: message" for each problem (1-based columns, as in diagnostics).
std::vector<std::string> problems(const std::string& text) {
    auto expr = parse_expression(text);
    std::vector<std::string> out;
    for (const auto& p : check_without_schema(*expr, Zone::utc().get()))
        out.push_back(std::to_string(p.pos + 1) + ": " + p.message);
    return out;
}

using Lines = std::vector<std::string>;

}  // namespace

TEST_CASE("unknown functions are reported where they are called with the closest name") {
    CHECK(problems("UPPR(name)") ==
          Lines{"1: No match found for function signature UPPR(...); did you mean `UPPER`?"});
    CHECK(problems("upper(lowr(name)) = 'x'") ==
          Lines{"7: No match found for function signature LOWR(...); did you mean `LOWER`?"});
    CHECK(problems("FROBNICATE(a)") ==
          Lines{"1: No match found for function signature FROBNICATE(...)"});
    // Every problem of the text, in its order.
    CHECK(problems("FROBNICATE(a) + SUBSTRING(s) + CHAR_LENGHT(s)") ==
          Lines{"1: No match found for function signature FROBNICATE(...)",
                "17: Invalid number of arguments to function 'SUBSTRING'. Was expecting 2 to 3 "
                "arguments, got 1",
                "32: No match found for function signature CHAR_LENGHT(...); did you mean "
                "`CHAR_LENGTH`?"});
}

TEST_CASE("wrong argument counts are reported whatever the columns' types") {
    CHECK(problems("CHAR_LENGTH(col1, 2) > 0") ==
          Lines{"1: Invalid number of arguments to function 'CHAR_LENGTH'. Was expecting 1 "
                "arguments, got 2"});
    CHECK(
        problems("IF(a = 1, b)") ==
        Lines{"1: Invalid number of arguments to function 'IF'. Was expecting 3 arguments, got 2"});
    CHECK(problems("REGEXP_REPLACE(s, 'a')") ==
          Lines{"1: Invalid number of arguments to function 'REGEXP_REPLACE'. Was expecting 3 "
                "arguments, got 2"});
    CHECK(problems("MAP[k, v, k]") == Lines{"1: MAP needs key/value pairs"});
    CHECK(problems("ROUND(d, 1, 2)") ==
          Lines{"1: Invalid number of arguments to function 'ROUND'. Was expecting 1 to 2 "
                "arguments, got 3"});
}

TEST_CASE("parts made of literals only are compiled: their type errors are reported") {
    CHECK(problems("name = UPPER(1)") ==
          Lines{"14: Cannot apply 'UPPER' to arguments of type UPPER(INT): argument 1 must be a "
                "string"});
    CHECK(problems("SUBSTRING(s, 'x')").empty());  // s stands in as NULL: left to the compile
    CHECK(problems("SUBSTRING('abc', 'x')") ==
          Lines{"18: Cannot apply 'SUBSTRING' to arguments of type SUBSTRING(CHAR(3), CHAR(1)): "
                "argument 2 must be an integer"});
    CHECK(problems("d > DATE '2024-13-45'") == Lines{"5: illegal DATE literal '2024-13-45'"});
    CHECK(problems("a > 123456789012345678901234567890123456789") ==
          Lines{"5: numeric literal '123456789012345678901234567890123456789' out of range"});
}

TEST_CASE("what depends on a column's type or on a row is left alone") {
    CHECK(problems("UPPER(a) || b").empty());
    CHECK(problems("a + 1 > 2 AND s LIKE 'x%'").empty());
    CHECK(problems("CASE WHEN a = 1 THEN s ELSE t END").empty());
    CHECK(problems("CAST(a AS INT) + TIMESTAMPADD(DAY, 1, ts)").empty());
    CHECK(problems("__table_name__ = 'orders' AND op_ts > 0").empty());
    CHECK(problems("1 / 0 = a").empty());  // fails per row, as in Flink: nothing is evaluated
}
