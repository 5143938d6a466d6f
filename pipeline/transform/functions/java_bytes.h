#pragma once
// Bytes as Java reads them: java.util.Base64's basic decoder and new String(bytes, UTF_8).
#include <optional>
#include <string>
#include <string_view>

namespace cdcd::transform {

/// Base64.getDecoder().decode(text): the standard alphabet; trailing `=` padding is optional but,
/// when present, must complete the last unit; no whitespace. nullopt (and `error`) where Java
/// throws IllegalArgumentException.
std::optional<std::string> java_base64_decode(std::string_view text, std::string* error);

/// Appends `bytes` decoded as new String(bytes, UTF_8) would, written back as UTF-8: every
/// malformed sequence becomes one U+FFFD, the way the JDK's decoder splits them (a maximal
/// invalid subpart; an encoded surrogate or a truncated sequence at the end as a whole).
void java_utf8_decode(std::string_view bytes, std::string& out);

/// Whether `bytes` is well-formed UTF-8 (then java_utf8_decode would copy it unchanged).
bool is_utf8(std::string_view bytes);

}  // namespace cdcd::transform
