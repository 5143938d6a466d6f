#include "text/utf8.h"

namespace cdcd::utf8 {

std::int32_t decode(std::string_view s, std::size_t i, std::size_t& len) {
    auto b = static_cast<unsigned char>(s[i]);
    len = 1;
    if (b < 0x80) return b;
    std::int32_t c;
    std::size_t need;
    std::int32_t min;
    if (b >= 0xC2 && b <= 0xDF) {
        c = b & 0x1F;
        need = 1;
        min = 0x80;
    } else if (b >= 0xE0 && b <= 0xEF) {
        c = b & 0x0F;
        need = 2;
        min = 0x800;
    } else if (b >= 0xF0 && b <= 0xF4) {
        c = b & 0x07;
        need = 3;
        min = 0x10000;
    } else {
        return -1;
    }
    if (s.size() - i - 1 < need) return -1;
    for (std::size_t k = 1; k <= need; ++k) {
        auto t = static_cast<unsigned char>(s[i + k]);
        if ((t & 0xC0) != 0x80) return -1;
        c = (c << 6) | (t & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return -1;
    len = need + 1;
    return c;
}

std::size_t encode(char32_t c, char* out) {
    auto u = static_cast<std::uint32_t>(c);
    if (u < 0x80) {
        out[0] = static_cast<char>(u);
        return 1;
    }
    if (u < 0x800) {
        out[0] = static_cast<char>(0xC0 | (u >> 6));
        out[1] = static_cast<char>(0x80 | (u & 0x3F));
        return 2;
    }
    if (u < 0x10000) {
        out[0] = static_cast<char>(0xE0 | (u >> 12));
        out[1] = static_cast<char>(0x80 | ((u >> 6) & 0x3F));
        out[2] = static_cast<char>(0x80 | (u & 0x3F));
        return 3;
    }
    out[0] = static_cast<char>(0xF0 | (u >> 18));
    out[1] = static_cast<char>(0x80 | ((u >> 12) & 0x3F));
    out[2] = static_cast<char>(0x80 | ((u >> 6) & 0x3F));
    out[3] = static_cast<char>(0x80 | (u & 0x3F));
    return 4;
}

void append(std::string& out, char32_t c) {
    char buf[kMaxBytes];
    out.append(buf, encode(c, buf));
}

std::string scrubbed(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    std::size_t i = 0;
    while (i < s.size()) {
        std::size_t len = 0;
        if (decode(s, i, len) < 0) {
            append(out, U'\uFFFD');
        } else {
            out.append(s.data() + i, len);
        }
        i += len;
    }
    return out;
}

}  // namespace cdcd::utf8
