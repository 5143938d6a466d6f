#include "pipeline/util/json_escape.h"

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "pipeline/util/string_size.h"

namespace cdcd::json {

namespace {

// True when any of the 8 bytes in `w` is a control character, '"' or '\\' (SWAR: a zero byte in
// w ^ broadcast(c) marks c; "x < 0x20" is a borrow out of the byte's high bit).
inline bool needs_escape(std::uint64_t w) {
    constexpr std::uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    auto has_zero = [&](std::uint64_t v) { return (v - ones) & ~v & highs; };
    std::uint64_t below_space = (w - ones * 0x20) & ~w & highs;
    return (below_space | has_zero(w ^ (ones * '"')) | has_zero(w ^ (ones * '\\'))) != 0;
}

inline bool clean(unsigned char c) {
    return c >= 0x20 && c != '"' && c != '\\';
}

/// The position of the first byte of s[i, n) to escape, n if none, a byte at a time.
inline std::size_t byte_at_escape(const char* s, std::size_t i, std::size_t n) {
    while (i < n && clean(static_cast<unsigned char>(s[i]))) ++i;
    return i;
}

/// The position of the first byte of s[from, n) to escape, n if none. Most text has none.
/// Always inline: out of line, the call cost more than checking the tail by word saves.
[[gnu::always_inline]] inline std::size_t next_escape(const char* s, std::size_t from,
                                                      std::size_t n) {
    std::size_t i = from;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'),
                  control = _mm_set1_epi8(0x1f);
    for (; i + 16 <= n; i += 16) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
        // x <= 0x1f unsigned <=> max(x, 0x1f) == 0x1f
        const __m128i hit =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
                         _mm_cmpeq_epi8(_mm_max_epu8(x, control), control));
        if (const int mask = _mm_movemask_epi8(hit))
            return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
    }
#endif
    for (; i + 8 <= n; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, s + i, 8);
        if (needs_escape(w)) return byte_at_escape(s, i, n);
    }
    // Fewer than 8 bytes left, after 8 or more that were clean: the word that ends at n takes
    // them in at once.
    if (i < n && i >= from + 8) {
        std::uint64_t w;
        std::memcpy(&w, s + n - 8, 8);
        if (!needs_escape(w)) return n;
    }
    return byte_at_escape(s, i, n);
}

}  // namespace

void append_quoted(std::string& out, std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::size_t i = next_escape(s.data(), 0, s.size());
    if (i == s.size()) {  // nothing to escape: one append
        char* d = append_uninitialized(out, s.size() + 2);
        d[0] = '"';
        if (!s.empty()) std::memcpy(d + 1, s.data(), s.size());
        d[s.size() + 1] = '"';
        return;
    }
    out.push_back('"');
    std::size_t run_start = 0;
    while (i < s.size()) {
        out.append(s.data() + run_start, i - run_start);
        const auto c = static_cast<unsigned char>(s[i]);
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\b':
                out += "\\b";
                break;
            case '\f':
                out += "\\f";
                break;
            default:
                out += "\\u00";
                out.push_back(kHex[c >> 4]);
                out.push_back(kHex[c & 15]);
        }
        run_start = i + 1;
        i = next_escape(s.data(), run_start, s.size());
    }
    out.append(s.data() + run_start, s.size() - run_start);
    out.push_back('"');
}

}  // namespace cdcd::json
