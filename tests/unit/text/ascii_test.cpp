#include "text/ascii.h"

#include <catch2/catch.hpp>

using namespace cdcd;

TEST_CASE("trim strips only the characters it is given") {
    CHECK(ascii::trim(" \t\r\n\v\fa b \n") == "a b");
    CHECK(ascii::trim(" \ta\r\n", " \t") == "a\r\n");
    CHECK(ascii::trim("\r a \r", " \t\r") == "a");
    CHECK(ascii::trim("  ", " ").empty());
    CHECK(ascii::trim("").empty());
}

TEST_CASE("iequals and to_lower fold A-Z only") {
    CHECK(ascii::iequals("Content-Type", "content-TYPE"));
    CHECK_FALSE(ascii::iequals("true", "tru"));
    CHECK_FALSE(ascii::iequals("\xC3\x89", "\xC3\xA9"));  // É / é: not ASCII, not folded
    CHECK(ascii::to_lower("X-Oss-Date: 1A") == "x-oss-date: 1a");
    CHECK(ascii::to_lower("\xC3\x89") == "\xC3\x89");
}
