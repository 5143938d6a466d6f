#pragma once
// Date patterns, compiled once: formatting of wall-clock times and parsing (numeric fields,
// month/day names, literals), in the dialect of java.text.SimpleDateFormat or of
// java.time.format.DateTimeFormatter (Flink CDC uses both; see DateFormat::Dialect).
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
    enum class Dialect {
        // java.text.SimpleDateFormat: S counts milliseconds; parsing is lenient (out-of-range
        // fields roll over) and stops where the pattern ends (trailing text is ignored).
        Simple,
        // java.time.format.DateTimeFormatter (SMART resolver): S is the fraction of the second
        // (SSSSSS: microseconds); parsing takes the exact widths of MM, dd, HH, mm, ss, rejects
        // out-of-range fields (a day past the month's end becomes its last day) and must use the
        // whole text.
        JavaTime,
    };
    /// nullopt + error for unknown pattern letters or an unterminated quote (Java rejects them).
    static std::shared_ptr<const DateFormat> compile(std::string_view pattern, std::string* error,
                                                     Dialect dialect = Dialect::Simple);
    std::string format(const LocalFields& f) const;
    /// Appends the formatted fields to `out`.
    void format_to(const LocalFields& f, std::string& out) const;
    /// The span of wall-clock millis over which the output cannot change: the pattern's smallest
    /// field (a day when it has only date fields); 0 when it prints a zone or offset, which can
    /// change at any instant.
    std::int64_t resolution_millis() const;
    /// Parses from the start of `text` (Simple: trailing text is ignored, like
    /// SimpleDateFormat.parse; JavaTime: the whole text, like DateTimeFormatter).
    /// `has_offset` is set when the text carried a zone offset (then fields are UTC-adjusted).
    std::optional<LocalFields> parse(std::string_view text, bool* has_offset = nullptr) const;
    /// JavaTime: whether the pattern has the fields of a date (year, month, day) and of a time
    /// (an hour), which LocalDate.parse and LocalDateTime.parse require.
    bool has_date_fields() const;
    bool has_hour_field() const;
    Dialect dialect() const { return dialect_; }

  private:
    struct Item {
        char letter = 0;  // 0: literal
        int count = 0;
        std::string literal;
    };
    std::vector<Item> items_;
    Dialect dialect_ = Dialect::Simple;
};

}  // namespace cdcd::transform
