// The regular-expression functions against the values Flink CDC pins. "SF" is
// flink-cdc-runtime/src/main/java/org/apache/flink/cdc/runtime/functions/impl/StringFunctions.java,
// "SFT" its StringFunctionsTest.java (commit 23fb108e9bea).
#include <catch2/catch.hpp>

#include "tests/unit/pipeline/transform/string_test_eval.h"

using cdcd::transform::testing::eval_printed;

namespace {

bool starts_with(const std::string& s, const std::string& prefix) {
    return s.rfind(prefix, 0) == 0;
}

}  // namespace

TEST_CASE("a pattern Java rejects makes a REGEXP_ function NULL, not a failure") {
    // SF:563-572 (getRegexpMatcher returns null on PatternSyntaxException);
    // SFT:195,209,214,219,224.
    CHECK(eval_printed("REGEXP_EXTRACT('abcd', '(', 0)") == "null");
    CHECK(eval_printed("REGEXP_EXTRACT('abcd', '(')") == "null");
    CHECK(eval_printed("REGEXP_EXTRACT_ALL('abcdeabde', '(', 0)") == "null");
    CHECK(eval_printed("REGEXP_COUNT('abcd', '(')") == "null");
    CHECK(eval_printed("REGEXP_INSTR('abcd', '(')") == "null");
    CHECK(eval_printed("REGEXP_SUBSTR('abcd', '(')") == "null");
    // SF:60-70: regexpReplace catches the exception and returns null.
    CHECK(eval_printed("REGEXP_REPLACE('abcd', '(', 'x')") == "null");
    // The same from a column, row by row: the pattern that fails gives NULL, a good one matches.
    CHECK(eval_printed("REGEXP_COUNT(s, bad)") == "null");
    CHECK(eval_printed("REGEXP_REPLACE(s, bad, 'x')") == "null");
    CHECK(eval_printed("REGEXP_COUNT(s, good)") == "1");
    CHECK(eval_printed("REGEXP_REPLACE(s, good, 'L')") == "ALice");
}

TEST_CASE("what Java rejects and RE2 would have taken is NULL too") {
    // java.util.regex.Pattern (JDK 17) refuses each of these: an unescaped `{` that is not a
    // counted repetition, a reversed range, a group name that is not letters and digits, an
    // unknown inline flag, a short \u escape. RE2 alone would have matched something.
    CHECK(eval_printed("REGEXP_COUNT('a{b', '{')") == "null");
    CHECK(eval_printed("REGEXP_COUNT('a{b', 'a{')") == "null");
    CHECK(eval_printed("REGEXP_COUNT('x{,2}', 'x{,2}')") == "null");
    CHECK(eval_printed("REGEXP_COUNT('xx', 'x{2,1}')") == "null");
    CHECK(eval_printed("REGEXP_EXTRACT('x', '(?<a_b>x)')") == "null");
    CHECK(eval_printed("REGEXP_EXTRACT('x', '(?<1a>x)')") == "null");
    CHECK(eval_printed("REGEXP_COUNT('a', '(?z)a')") == "null");
    CHECK(eval_printed("REGEXP_COUNT('a', '\\u00e')") == "null");
    // And what Java accepts keeps working: counted repetitions, flags, \uXXXX, a lone `}`.
    CHECK(eval_printed("REGEXP_COUNT('aaaa', 'a{2}')") == "2");
    CHECK(eval_printed("REGEXP_COUNT('aaaa', 'a{1,}')") == "1");
    CHECK(eval_printed("REGEXP_COUNT('a}', 'a}')") == "1");
    CHECK(eval_printed("REGEXP_REPLACE('aAb', '(?i-)a', 'x')") == "xxb");
    CHECK(eval_printed("REGEXP_REPLACE('aAb', '(?u)a', 'x')") == "xAb");
    CHECK(eval_printed("REGEXP_REPLACE('aAb', '(?i:a)b', 'x')") == "ax");
    CHECK(eval_printed("REGEXP_REPLACE('\u00e9t\u00e9', '\\u00e9', 'e')") == "ete");
}

TEST_CASE("a pattern Java accepts but RE2 cannot run still fails, and LIKE's bad pattern too") {
    // Flink would give a result here; cdcd cannot compute it, so it refuses the constant pattern
    // when the table is validated (docs/transform.md, "Deliberate differences").
    CHECK(starts_with(eval_printed("REGEXP_EXTRACT('x', '(?<=a)x')"), "COMPILE: "));
    CHECK(starts_with(eval_printed("REGEXP_COUNT('a b', '(?x)a b')"), "COMPILE: "));
    CHECK(starts_with(eval_printed("REGEXP_COUNT('a', 'a{1001}')"), "COMPILE: "));
    CHECK(starts_with(eval_printed("REGEXP_COUNT('aa', '(?U)a+')"), "COMPILE: "));
    // SF:162-164: LIKE compiles its pattern with Pattern.compile, which throws.
    CHECK(starts_with(eval_printed("s LIKE '('"), "COMPILE: "));
    CHECK(starts_with(eval_printed("s LIKE bad"), "ERROR: invalid regular expression '('"));
}

TEST_CASE("group indexes out of range are NULL") {
    // SF:78-87 and 94-108: a negative index, or one past the pattern's groups, is NULL.
    CHECK(eval_printed("REGEXP_EXTRACT('foothebar', 'foo(.*?)(bar)', 2)") == "bar");     // SFT:189
    CHECK(eval_printed("REGEXP_EXTRACT('foothebar', 'foo(.*?)(bar)')") == "foothebar");  // SFT:190
    CHECK(eval_printed("REGEXP_EXTRACT('foothebar', 'foo(.*?)(bar)', 3)") == "null");    // SFT:192
    CHECK(eval_printed("REGEXP_EXTRACT('foobar', '(foo)|(bar)', 2)") == "null");         // SFT:193
    CHECK(eval_printed("REGEXP_EXTRACT('abcd', 'z', 0)") == "null");                     // SFT:194
    CHECK(eval_printed("REGEXP_EXTRACT('abcd', 'a', -1)") == "null");                    // SFT:196
    CHECK(eval_printed("REGEXP_EXTRACT_ALL('100-200, 300-400', '(\\d+)-(\\d+)')") ==
          "[100, 300]");  // SFT:198
    CHECK(eval_printed("REGEXP_EXTRACT_ALL('100-200, 300-400', '(\\d+)-(\\d+)', 0)") ==
          "[100-200, 300-400]");  // SFT:200
    CHECK(eval_printed("REGEXP_EXTRACT_ALL('100-200, 300-400', '(\\d+)-(\\d+)', 2)") ==
          "[200, 400]");  // SFT:202
    CHECK(eval_printed("REGEXP_EXTRACT_ALL('abcdeabde', '(abcdeabde)|([a-z]*)', 2)") ==
          "[null, ]");                                                         // SFT:204
    CHECK(eval_printed("REGEXP_EXTRACT_ALL('100-200', '[a-z]', 0)") == "[]");  // SFT:206
    // The default group is 1, and this pattern has none: SFT:207.
    CHECK(eval_printed("REGEXP_EXTRACT_ALL('abcdeabde', 'abcdeabde')") == "null");
    CHECK(eval_printed("REGEXP_EXTRACT_ALL('abcdeabde', '(abcdeabde)', 2)") == "null");   // SFT:208
    CHECK(eval_printed("REGEXP_EXTRACT_ALL('abcdeabde', '(abcdeabde)', -1)") == "null");  // SFT:210
    CHECK(eval_printed("REGEXP_EXTRACT_ALL(s, 'l', i)") == "null");
}

TEST_CASE("REGEXP_COUNT, REGEXP_INSTR and REGEXP_SUBSTR") {
    CHECK(eval_printed("REGEXP_COUNT('abc123xyz456', '\\d')") == "6");  // SFT:212
    CHECK(eval_printed("REGEXP_COUNT('abcd', 'z')") == "0");            // SFT:213
    CHECK(eval_printed("REGEXP_INSTR('hello world! Hello everyone!', 'Hello')") ==
          "14");                                              // SFT:216
    CHECK(eval_printed("REGEXP_INSTR('abcd', 'z')") == "0");  // SFT:218
    CHECK(eval_printed("REGEXP_SUBSTR('100-200, 300-400', '(\\d+)-(\\d+)')") == "100-200");  // :221
    CHECK(eval_printed("REGEXP_SUBSTR('abcd', 'z')") == "null");  // SFT:223
    CHECK(eval_printed("REGEXP_COUNT(n_null, 'a')") == "null");   // SFT:179
    CHECK(eval_printed("REGEXP_SUBSTR('a', n_null)") == "null");  // SFT:184
}

TEST_CASE("REGEXP_REPLACE takes the replacement literally") {
    // SF:61 replaces with Matcher.quoteReplacement(replacement): no group references, no escapes.
    CHECK(eval_printed("REGEXP_REPLACE('a', 'a', '$1')") == "$1");  // SFT:154
    CHECK(eval_printed("REGEXP_REPLACE('a', 'a', '\\')") == "\\");  // SFT:155
    CHECK(eval_printed("REGEXP_REPLACE('ab', '(a)', '[$0$1]')") == "[$0$1]b");
    CHECK(eval_printed("REGEXP_REPLACE('ab', 'a', '$9')") == "$9b");
    CHECK(eval_printed("REGEXP_REPLACE('ab', 'a', '\\$')") == "\\$b");
    CHECK(eval_printed("REGEXP_REPLACE('ab', 'a', 'x\\')") == "x\\b");
    CHECK(eval_printed("REGEXP_REPLACE('ab', '(?<n>a)', '${n}')") == "${n}b");
    // Empty matches: the replacement goes between every character (String.replaceAll).
    CHECK(eval_printed("REGEXP_REPLACE('abc', 'x*', '-')") == "-a-b-c-");
    CHECK(eval_printed("REGEXP_REPLACE('abc', 'b*', '$')") == "$a$$c$");
    CHECK(eval_printed("REGEXP_REPLACE(s, 'l', n_null)") == "null");
}
