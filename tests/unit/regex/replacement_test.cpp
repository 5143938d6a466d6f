// Java replacement strings and Matcher#replaceAll on RE2.
#include "regex/replacement.h"

#include <catch2/catch.hpp>

#include "regex/java_regex.h"

using cdcd::regex::compile_java;
using cdcd::regex::Replacement;

namespace {

std::string replace_all(const std::string& pattern, const std::string& input,
                        const std::string& replacement) {
    auto re = compile_java(pattern);
    REQUIRE(re);
    std::string error;
    auto r = Replacement::parse_java(replacement, *re, &error);
    if (!r) return "ERROR: " + error;
    std::string out;
    r->replace_all(*re, input, out);
    return out;
}

std::string replace_literal(const std::string& pattern, const std::string& input,
                            const std::string& replacement) {
    auto re = compile_java(pattern);
    REQUIRE(re);
    std::string out;
    Replacement::literal(replacement).replace_all(*re, input, out);
    return out;
}

}  // namespace

TEST_CASE("group references: $n, ${name}, escapes") {
    CHECK(replace_all("db_(\\w+)\\.(\\w+)", "db_a.t", "sink_$1.$2") == "sink_a.t");
    CHECK(replace_all("(?<y>\\d+)-(?<m>\\d+)", "2024-03", "${m}/${y}") == "03/2024");
    CHECK(replace_all("a", "a", "\\$1\\\\") == "$1\\");
    // Java takes more digits only while the number stays a group: $12 is group 1, then '2'.
    CHECK(replace_all("(a)", "a", "$12") == "a2");
    CHECK(replace_all("a", "a", "$0$0") == "aa");
    // A group that did not take part inserts nothing.
    CHECK(replace_all("(a)|(b)", "b", "[$1]") == "[]");
}

TEST_CASE("bad replacement strings get Java's messages") {
    CHECK(replace_all("(a)", "a", "$2") == "ERROR: No group 2");
    CHECK(replace_all("a", "a", "x$") == "ERROR: Illegal group reference: group index is missing");
    CHECK(replace_all("a", "a", "$x") == "ERROR: Illegal group reference");
    CHECK(replace_all("a", "a", "x\\") == "ERROR: character to be escaped is missing");
    CHECK(replace_all("a", "a", "${n") == "ERROR: named capturing group is missing trailing '}'");
    CHECK(replace_all("a", "a", "${n}") == "ERROR: No group with name {n}");
}

TEST_CASE("a literal replacement takes dollar signs and backslashes as they are") {
    CHECK(replace_literal("l", "Alice", "$1\\") == "A$1\\ice");
    Replacement r = Replacement::literal("a.b");
    CHECK_FALSE(r.has_group_reference());
    CHECK(r.literal_text() == "a.b");
}

TEST_CASE("empty matches: the search moves on by one code point, as Java's by one char") {
    CHECK(replace_literal("x*", "abc", "-") == "-a-b-c-");
    CHECK(replace_literal("b*", "abc", "-") == "-a--c-");
    CHECK(replace_literal("", "", "-") == "-");
    // Route's old loop moved on by one byte: it inserted between the two bytes of é and
    // produced invalid UTF-8 ("t\xC3t\xA9t"). Java gives "tét".
    CHECK(replace_all("(?:|\u00e9)", "\u00e9", "t") == "t\u00e9t");
    CHECK(replace_literal("", "\u00e9\u4e2d", "|") == "|\u00e9|\u4e2d|");
}
