#pragma once
// UTF-8 code points one at a time, for the few places that work on code points rather than bytes
// (case mapping, XML character references). Strict: overlong forms, surrogates and values past
// U+10FFFF are not UTF-8.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cdcd::utf8 {

/// Longest encoding of one code point.
inline constexpr std::size_t kMaxBytes = 4;

/// The code point that starts at s[i], with its length in bytes in `len`; -1 (and a length of
/// one byte) where the bytes there are not UTF-8.
std::int32_t decode(std::string_view s, std::size_t i, std::size_t& len);
/// Writes the code point (at most 0x10FFFF) into `out`; returns the bytes written (1 to 4).
std::size_t encode(char32_t c, char* out);
void append(std::string& out, char32_t c);

/// `s` with every byte that is not part of a UTF-8 sequence replaced by U+FFFD, for text from
/// outside (a server's error message) that must become valid UTF-8, e.g. in a JSON log line.
std::string scrubbed(std::string_view s);

}  // namespace cdcd::utf8
