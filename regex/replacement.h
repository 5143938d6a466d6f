#pragma once
// Java's replacement strings and Matcher#replaceAll on RE2: the one replace loop, used by route
// `sink-table` (Matcher#appendReplacement syntax: `$n`, `${name}`, `\x`) and REGEXP_REPLACE
// (the replacement taken literally, as Matcher.quoteReplacement).
#include <re2/re2.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cdcd::regex {

class Replacement {
  public:
    /// Matcher#appendReplacement's syntax against `re`'s groups: `\x` is x, `$n` a numbered
    /// group (more digits only while the number stays a group of `re`), `${name}` a named one.
    /// nullopt and *error (Java's message) when it refers to a group `re` lacks or is cut short.
    static std::optional<Replacement> parse_java(std::string_view text, const RE2& re,
                                                 std::string* error);
    /// `text` inserted as it is (Matcher.quoteReplacement).
    static Replacement literal(std::string_view text);

    bool has_group_reference() const;
    /// The text it inserts, when it has no group reference.
    std::string literal_text() const;

    /// Matcher#replaceAll: every match of `re` in `input` replaced, appended to `out`. After an
    /// empty match the search moves one code point on (Java: one UTF-16 unit), never into the
    /// middle of a UTF-8 sequence.
    void replace_all(const RE2& re, std::string_view input, std::string& out) const;

  private:
    struct Piece {
        std::string literal;
        int group = -1;  // >= 0: a group reference
    };
    std::vector<Piece> pieces_;
};

}  // namespace cdcd::regex
