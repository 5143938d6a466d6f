// SQL LIKE ... ESCAPE and SIMILAR TO patterns on RE2.
#include "regex/sql_pattern.h"

#include <catch2/catch.hpp>

using cdcd::regex::compile_similar;
using cdcd::regex::compile_sql_like;

TEST_CASE("LIKE with ESCAPE: % and _ are wildcards, the rest literal") {
    std::string error;
    auto re = compile_sql_like("50!%_a.c", '!', &error);
    REQUIRE(re);
    CHECK(RE2::FullMatch("50%xa.c", *re));
    CHECK_FALSE(RE2::FullMatch("50%xabc", *re));
    CHECK_FALSE(compile_sql_like("a!b", '!', &error));
    CHECK(error == "Invalid escape sequence 'a!b', 1");
}

TEST_CASE("SIMILAR TO: SQL regex over the whole string") {
    std::string error;
    auto re = compile_similar("(a|b)%[0-9]", 0, &error);
    REQUIRE(re);
    CHECK(RE2::FullMatch("bxx7", *re));
    CHECK_FALSE(RE2::FullMatch("cxx7", *re));
}
