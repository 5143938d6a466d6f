#pragma once
// Java regular expressions on RE2. Constructs RE2 cannot run (look-around, back-references,
// possessive quantifiers, atomic groups, class intersections) are rejected, never approximated.
#include <re2/re2.h>

#include <memory>
#include <string>
#include <string_view>

namespace cdcd::transform {

/// Translates a java.util.regex pattern into RE2 syntax; on failure returns nullptr and sets error.
/// `unsupported` (when given) tells the two failures apart: true for a pattern Java accepts but
/// RE2 cannot run (look-around, `a{1001}`, ...), false for one Java rejects too.
std::unique_ptr<RE2> compile_java_regex(std::string_view pattern, std::string* error,
                                        bool* unsupported = nullptr);
/// SQL `LIKE p ESCAPE e` as an anchored RE2 (e == 0: no escape character).
std::unique_ptr<RE2> compile_sql_like(std::string_view pattern, char escape, std::string* error);
/// SQL `SIMILAR TO p [ESCAPE e]` as an anchored RE2.
std::unique_ptr<RE2> compile_similar(std::string_view pattern, char escape, std::string* error);

/// String.replaceAll(regex, Matcher.quoteReplacement(rep)): every match replaced by `rep` taken
/// literally (no `$n` or `\\` processing); after an empty match the search moves one character on.
void replace_all_literal(const RE2& re, std::string_view text, std::string_view rep,
                         std::string& out);

}  // namespace cdcd::transform
