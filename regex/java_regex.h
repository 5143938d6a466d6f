#pragma once
// Java regular expressions (java.util.regex, as Flink CDC compiles them) on RE2: the one
// translation every regex option and function uses. Constructs RE2 cannot run (look-around,
// back-references, possessive quantifiers, atomic groups, class intersections, ...) are refused
// with one message, never approximated; patterns Java rejects are refused as Java would.
#include <re2/re2.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace cdcd::regex {

/// Why a pattern was not compiled.
struct Error {
    enum class Kind {
        Invalid,      // Java rejects it too (PatternSyntaxException)
        Unsupported,  // Java accepts it, RE2 cannot run it
    };
    Kind kind = Kind::Invalid;
    std::string detail;  // e.g. "Unclosed group near index 1"

    bool unsupported() const { return kind == Kind::Unsupported; }
};

/// The refusal every caller shows for `pattern` (prefixed with its option or function name):
///   invalid regular expression '<pattern>': <detail>
///   unsupported regular expression '<pattern>': <detail>
std::string refusal(std::string_view pattern, const Error& error);

struct JavaOptions {
    bool case_insensitive = false;  // Pattern.CASE_INSENSITIVE
};

/// Translates a java.util.regex pattern into RE2 syntax; nullopt and *error when it cannot.
/// RE2's own limits (a repetition count above 1000, ...) are checked only by compile_java.
std::optional<std::string> translate_java(std::string_view pattern, Error* error);

/// Translates and compiles; nullptr and *error (when given) on failure.
std::unique_ptr<RE2> compile_java(std::string_view pattern, Error* error = nullptr,
                                  JavaOptions options = {});

}  // namespace cdcd::regex
