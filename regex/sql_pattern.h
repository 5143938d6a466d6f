#pragma once
// SQL's pattern dialects on RE2, for the transform's LIKE ... ESCAPE and SIMILAR TO (LIKE
// without ESCAPE is a Java regex: regex/java_regex.h).
#include <re2/re2.h>

#include <memory>
#include <string>
#include <string_view>

namespace cdcd::regex {

/// SQL `LIKE p ESCAPE e` as an anchored RE2 (e == 0: no escape character); nullptr and *error
/// on a bad escape.
std::unique_ptr<RE2> compile_sql_like(std::string_view pattern, char escape, std::string* error);
/// SQL `SIMILAR TO p [ESCAPE e]` as an anchored RE2.
std::unique_ptr<RE2> compile_similar(std::string_view pattern, char escape, std::string* error);

}  // namespace cdcd::regex
