// Java regexes on RE2: what is translated, what is refused and how. The "before" notes are what
// the two translators this one replaced (route's in pipeline/route/router.cpp and the transform's
// pipeline/transform/java_regex.cpp) did with the same pattern.
#include "regex/java_regex.h"

#include <catch2/catch.hpp>

using cdcd::regex::compile_java;
using cdcd::regex::Error;
using cdcd::regex::JavaOptions;
using cdcd::regex::refusal;

namespace {

// "match" / "no match" for a full match of `subject`, else the refusal.
std::string full_match(const std::string& pattern, const std::string& subject,
                       JavaOptions options = {}) {
    Error error;
    auto re = compile_java(pattern, &error, options);
    if (!re) return refusal(pattern, error);
    return RE2::FullMatch(subject, *re) ? "match" : "no match";
}

bool starts_with(const std::string& s, const std::string& prefix) {
    return s.rfind(prefix, 0) == 0;
}

}  // namespace

TEST_CASE("constructs RE2 cannot run are refused with one message naming construct and index") {
    CHECK(full_match("db(?=a)", "dba") ==
          "unsupported regular expression 'db(?=a)': lookahead/lookbehind '(?=' at index 2 is "
          "not supported: RE2, which cdcd matches with, cannot run it");
    CHECK(full_match("(?<!a)b", "b") ==
          "unsupported regular expression '(?<!a)b': lookahead/lookbehind '(?<!' at index 0 is "
          "not supported: RE2, which cdcd matches with, cannot run it");
    CHECK(full_match("(a)\\1", "aa") ==
          "unsupported regular expression '(a)\\1': backreference '\\1' at index 3 is not "
          "supported: RE2, which cdcd matches with, cannot run it");
    CHECK(starts_with(full_match("(?<n>a)\\k<n>", "aa"),
                      "unsupported regular expression '(?<n>a)\\k<n>': named backreference '\\k' "
                      "at index 7 is not supported"));
    CHECK(starts_with(full_match("a*+", "a"),
                      "unsupported regular expression 'a*+': possessive "
                      "quantifier '*+' at index 1 is not supported"));
    CHECK(starts_with(full_match("a{2}+", "aa"),
                      "unsupported regular expression 'a{2}+': possessive quantifier '}+'"));
    CHECK(starts_with(full_match("(?>a)", "a"),
                      "unsupported regular expression '(?>a)': atomic group '(?>' at index 0"));
    CHECK(starts_with(full_match("[a-z&&[^b]]", "a"),
                      "unsupported regular expression '[a-z&&[^b]]': character class "
                      "intersection '&&' at index 4"));
    CHECK(starts_with(full_match("[a[b]]", "b"),
                      "unsupported regular expression '[a[b]]': nested character class '[' at "
                      "index 2"));
    CHECK(starts_with(full_match("(?U)a", "a"),
                      "unsupported regular expression '(?U)a': inline flag '(?U)' at index 0"));
    CHECK(starts_with(full_match("a\\Z", "a"),
                      "unsupported regular expression 'a\\Z': escape '\\Z' at index 1"));
    CHECK(starts_with(full_match("\\p{javaLowerCase}", "a"),
                      "unsupported regular expression '\\p{javaLowerCase}': character class "
                      "'\\p{javaLowerCase}' at index 0"));
    CHECK(full_match("a{1001}", "a") ==
          "unsupported regular expression 'a{1001}': invalid repetition size: {1001}: beyond "
          "RE2's limits (a repetition count is at most 1000), which cdcd matches with");
}

TEST_CASE("what Java rejects is refused as invalid, with Java's words and index") {
    CHECK(full_match("a{", "a{") ==
          "invalid regular expression 'a{': Illegal repetition near "
          "index 1");
    CHECK(full_match("x{2,1}", "xx") ==
          "invalid regular expression 'x{2,1}': Illegal repetition range near index 1");
    CHECK(full_match("(?<a_b>x)", "x") ==
          "invalid regular expression '(?<a_b>x)': named capturing group is missing trailing "
          "'>' near index 4");
    CHECK(full_match("(?z)a", "a") ==
          "invalid regular expression '(?z)a': Unknown inline modifier 'z' near index 2");
    CHECK(full_match("\\u00e", "e") ==
          "invalid regular expression '\\u00e': Illegal Unicode escape sequence near index 2");
    CHECK(full_match("[ab", "a") ==
          "invalid regular expression '[ab': Unclosed character class near index 2");
    CHECK(full_match("\\0", "") ==
          "invalid regular expression '\\0': Illegal octal escape sequence near index 2");
    CHECK(full_match("[\\1]", "1") ==
          "invalid regular expression '[\\1]': Illegal/unsupported escape sequence near index 2");
    CHECK(starts_with(full_match("(", ""), "invalid regular expression '(': missing )"));
}

TEST_CASE("where the two old translators disagreed there is now one answer") {
    // Route passed (?U) to RE2, where it means ungreedy (Java: Unicode classes); transform
    // refused it. Refused (above). Route refused \u00e9 (RE2: invalid escape); transform took it.
    CHECK(full_match("caf\\u00e9", "caf\u00e9") == "match");
    // Route passed nested classes and && to RE2, which read `[a[b]` then a literal `]`: `b` did
    // not match where Java matches it; transform refused them. Refused (above).
    // Route took a malformed `{` literally (Java rejects it); transform refused it. Refused.
    CHECK(starts_with(full_match("db{1", "db{1"), "invalid regular expression"));
    // Route passed \v to RE2 (vertical tab only; Java: any vertical whitespace); refused now.
    CHECK(starts_with(full_match("\\v", "\n"), "unsupported regular expression"));
    // Route passed (?u) to RE2, which refused it; transform dropped it (RE2 folds Unicode case
    // always). Accepted.
    CHECK(full_match("(?iu)\u00e9", "\u00c9") == "match");
    // Route passed \p{Lower} to RE2, which has no such class; transform translated it.
    CHECK(full_match("\\p{Lower}\\P{Lower}", "aB") == "match");
    // Route accepted a group name with `_`, which Java rejects; transform refused it. Refused.
    CHECK(starts_with(full_match("(?<a_b>x)", "x"), "invalid regular expression"));
}

TEST_CASE("what both old translators got wrong") {
    // Both read `}+` after \p{...} as a possessive quantifier.
    CHECK(full_match("\\p{Lower}+", "abc") == "match");
    CHECK(full_match("\\p{IsLatin}+", "abc") == "match");
    CHECK(full_match("\\x{e9}+", "\u00e9\u00e9") == "match");
    // The transform read \x{e9} as a malformed repetition.
    CHECK(full_match("\\x{e9}", "\u00e9") == "match");
    CHECK(full_match("\\x41", "A") == "match");
    // Java's octal \0101 is 'A'; RE2 reads \010 then '1'.
    CHECK(full_match("\\0101", "A") == "match");
    CHECK(full_match("\\0377", "\u00ff") == "match");
    // `[[:alpha:]]` is a nested class in Java (the characters ':', 'a', 'l', 'p', 'h'), a POSIX
    // class in RE2; the transform passed it through to RE2.
    CHECK(starts_with(full_match("[[:alpha:]]", "b"), "unsupported regular expression"));
}

TEST_CASE("what Java and RE2 share passes through") {
    CHECK(full_match("a{2}", "aa") == "match");
    CHECK(full_match("a{1,}", "aaa") == "match");
    CHECK(full_match("a}", "a}") == "match");
    CHECK(full_match("a*?b", "aab") == "match");
    CHECK(full_match("a+?", "aa") == "match");
    CHECK(full_match("(?i)ab", "AB") == "match");
    CHECK(full_match("(?i:a)b", "Ab") == "match");
    CHECK(full_match("(?i:a)b", "AB") == "no match");
    CHECK(full_match("(?<year>\\d{4})", "2024") == "match");
    CHECK(full_match("\\Qa.b\\E", "a.b") == "match");
    CHECK(full_match("\\Qa.b\\E", "axb") == "no match");
    CHECK(full_match("\\Qa(b", "a(b") == "match");
    CHECK(full_match("[]a]+", "]a") == "match");
    CHECK(full_match("[\\p{Digit}x]+", "1x") == "match");
    CHECK(full_match("[\\P{Digit}]", "1") == "no match");
    CHECK(full_match("\\d+\\.\\w+", "12.ab") == "match");
}

TEST_CASE("case-insensitive compilation is an option, not a rewrite of the pattern") {
    CHECK(full_match("app_\\w+", "APP_X", {.case_insensitive = true}) == "match");
    CHECK(full_match("app_\\w+", "APP_X") == "no match");
    // A quoted section to the end of the pattern stays one: wrapping it in (?i)(?:...) would have
    // quoted the closing parenthesis.
    CHECK(full_match("\\Qa(", "A(", {.case_insensitive = true}) == "match");
}
