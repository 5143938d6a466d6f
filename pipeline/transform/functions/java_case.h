#pragma once
// Java's String.toUpperCase()/toLowerCase() on UTF-8, as Flink CDC's UPPER and LOWER run them
// (the JVM's default locale, taken here as Locale.ROOT/en: no tr/az/lt rules).
#include <cstddef>
#include <string_view>

namespace cdcd::transform {

/// Bytes the mapping of n bytes can take at most: one code point's full mapping is at most three
/// times its UTF-8 length (U+0390 'ΐ', two bytes, uppercases to three two-byte code points).
constexpr std::size_t java_case_capacity(std::size_t n) {
    return 3 * n;
}

/// Writes toUpperCase(Locale.ROOT) of s to out (java_case_capacity(s.size()) bytes) and returns its
/// length: Unicode's full mappings, e.g. 'ß' to "SS". Bytes that are not UTF-8 are copied as
/// they are.
std::size_t java_to_upper(std::string_view s, char* out);

/// Writes toLowerCase(Locale.ROOT) of s to out (java_case_capacity(s.size()) bytes) and returns its
/// length: simple mappings, 'İ' to "i̇", and 'Σ' to final 'ς' by Java's own rule (a cased
/// letter before it and none after it within its word, words as java.text.BreakIterator finds
/// them). Bytes that are not UTF-8 are copied as they are.
std::size_t java_to_lower(std::string_view s, char* out);

}  // namespace cdcd::transform
