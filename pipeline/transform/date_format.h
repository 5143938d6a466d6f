#pragma once
// java.text.SimpleDateFormat patterns, compiled once: formatting of wall-clock times and
// parsing (as SimpleDateFormat.parse does it: numeric fields, month/day names, literals).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cdcd::transform {

/// A wall-clock time split into fields.
struct LocalFields {
    std::int64_t year = 1970;
    int month = 1, day = 1, hour = 0, minute = 0, second = 0;
    std::int32_t nanos = 0;
    std::int32_t offset_seconds = 0;  // for z/Z/X
    std::string zone_id = "UTC";
};

LocalFields fields_of(std::int64_t local_millis, std::int32_t nanos_of_milli);
std::int64_t local_millis_of(const LocalFields& f);

class DateFormat {
  public:
    /// nullopt + error for unknown pattern letters or an unterminated quote (Java rejects them).
    static std::shared_ptr<const DateFormat> compile(std::string_view pattern, std::string* error);
    std::string format(const LocalFields& f) const;
    /// Appends the formatted fields to `out`.
    void format_to(const LocalFields& f, std::string& out) const;
    /// The span of wall-clock millis over which the output cannot change: the pattern's smallest
    /// field (a day when it has only date fields); 0 when it prints a zone or offset, which can
    /// change at any instant.
    std::int64_t resolution_millis() const;
    /// Parses from the start of `text` (trailing text is ignored, like SimpleDateFormat.parse).
    /// `has_offset` is set when the text carried a zone offset (then fields are UTC-adjusted).
    std::optional<LocalFields> parse(std::string_view text, bool* has_offset = nullptr) const;

  private:
    struct Item {
        char letter = 0;  // 0: literal
        int count = 0;
        std::string literal;
    };
    std::vector<Item> items_;
};

}  // namespace cdcd::transform
