#include "pipeline/util/json_escape.h"

#include <cstdint>
#include <cstring>

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

}  // namespace

void append_quoted(std::string& out, std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    auto clean = [](unsigned char c) { return c >= 0x20 && c != '"' && c != '\\'; };
    // Find the first byte to escape; most text has none and is copied with one append.
    size_t i = 0;
    while (i + 8 <= s.size()) {
        std::uint64_t w;
        std::memcpy(&w, s.data() + i, 8);
        if (needs_escape(w)) break;
        i += 8;
    }
    while (i < s.size() && clean(static_cast<unsigned char>(s[i]))) ++i;
    if (i == s.size()) {
        const size_t old = out.size();
        out.resize(old + s.size() + 2);
        char* d = out.data() + old;
        d[0] = '"';
        if (!s.empty()) std::memcpy(d + 1, s.data(), s.size());
        d[s.size() + 1] = '"';
        return;
    }
    out.push_back('"');
    size_t run_start = 0;
    while (i < s.size()) {
        // Skip clean 8-byte words quickly.
        while (i + 8 <= s.size()) {
            std::uint64_t w;
            std::memcpy(&w, s.data() + i, 8);
            if (needs_escape(w)) break;
            i += 8;
        }
        if (i >= s.size()) break;
        auto c = static_cast<unsigned char>(s[i]);
        if (clean(c)) {
            ++i;
            continue;
        }
        out.append(s.data() + run_start, i - run_start);
        run_start = i + 1;
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
        ++i;
    }
    out.append(s.data() + run_start, s.size() - run_start);
    out.push_back('"');
}

}  // namespace cdcd::json
