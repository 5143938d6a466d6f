#pragma once
// Byte-wise text helpers for ASCII keywords, option values and protocol headers: no locale, bytes
// above 0x7F are left as they are.
#include <string>
#include <string_view>

namespace cdcd::ascii {

/// What std::isspace accepts in the "C" locale.
inline constexpr std::string_view kWhitespace = " \t\n\v\f\r";

/// `s` without the leading and trailing characters that are in `chars`.
std::string_view trim(std::string_view s, std::string_view chars = kWhitespace);
/// Equal but for the case of A-Z.
bool iequals(std::string_view a, std::string_view b);
/// A copy with A-Z lowered.
std::string to_lower(std::string_view s);

}  // namespace cdcd::ascii
