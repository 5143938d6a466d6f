#include "pipeline/transform/functions/java_bytes.h"

#include <cstdint>

namespace cdcd::transform {

namespace {

int base64_value(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

bool cont(unsigned char b) {
    return (b & 0xC0) == 0x80;
}

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace

std::optional<std::string> java_base64_decode(std::string_view in, std::string* error) {
    auto fail = [&](const std::string& msg) -> std::optional<std::string> {
        if (error) *error = msg;
        return std::nullopt;
    };
    if (in.size() == 1) return fail("Input byte[] should at least have 2 bytes for base64 bytes");
    std::string out;
    out.reserve(in.size() / 4 * 3 + 2);
    std::uint32_t bits = 0;
    int shift = 18;  // where the next 6 bits go; 18 at the start of a 4-character unit
    std::size_t i = 0;
    while (i < in.size()) {
        char c = in[i++];
        int v = base64_value(c);
        if (v < 0) {
            if (c != '=') {
                // Java prints the (signed) byte in hex: 0x21 is "21", 0xFE is "-2".
                static const char* kHex = "0123456789abcdef";
                const auto u = static_cast<unsigned char>(c);
                const int b = u >= 0x80 ? static_cast<int>(u) - 256 : static_cast<int>(u);
                std::string hex = b < 0 ? "-" : "";
                unsigned m = static_cast<unsigned>(b < 0 ? -b : b);
                if (m >= 0x10) hex.push_back(kHex[m >> 4]);
                hex.push_back(kHex[m & 15]);
                return fail("Illegal base64 character " + hex);
            }
            // `=` ends the data: it may follow two characters of a unit (then a second `=` must
            // come) or three; at a unit's start it is wrong.
            if (shift == 18 || (shift == 6 && (i == in.size() || in[i++] != '=')))
                return fail("Input byte array has wrong 4-byte ending unit");
            break;
        }
        bits |= static_cast<std::uint32_t>(v) << shift;
        shift -= 6;
        if (shift < 0) {
            out.push_back(static_cast<char>(bits >> 16));
            out.push_back(static_cast<char>(bits >> 8));
            out.push_back(static_cast<char>(bits));
            shift = 18;
            bits = 0;
        }
    }
    if (shift == 6) {
        out.push_back(static_cast<char>(bits >> 16));
    } else if (shift == 0) {
        out.push_back(static_cast<char>(bits >> 16));
        out.push_back(static_cast<char>(bits >> 8));
    } else if (shift == 12) {
        return fail("Last unit does not have enough valid bits");
    }
    if (i < in.size())
        return fail("Input byte array has incorrect ending byte at " + std::to_string(i));
    return out;
}

bool is_utf8(std::string_view s) {
    std::size_t i = 0;
    const std::size_t n = s.size();
    while (i < n) {
        auto b = static_cast<unsigned char>(s[i]);
        if (b < 0x80) {
            ++i;
            continue;
        }
        std::size_t len;
        unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
        if (b >= 0xC2 && b <= 0xDF) {
            len = 2;
        } else if (b >= 0xE0 && b <= 0xEF) {
            len = 3;
            if (b == 0xE0) lo = 0xA0;
            if (b == 0xED) hi = 0x9F;  // no surrogates
        } else if (b >= 0xF0 && b <= 0xF4) {
            len = 4;
            if (b == 0xF0) lo = 0x90;
            if (b == 0xF4) hi = 0x8F;
        } else {
            return false;
        }
        if (n - i < len) return false;
        auto b1 = static_cast<unsigned char>(s[i + 1]);
        if (b1 < lo || b1 > hi) return false;
        for (std::size_t k = 2; k < len; ++k)
            if (!cont(static_cast<unsigned char>(s[i + k]))) return false;
        i += len;
    }
    return true;
}

// The JDK's UTF-8 decoding with replacement (java.lang.String's decodeUTF8_UTF16), byte for
// byte: how many bytes each malformed sequence takes before its single U+FFFD.
void java_utf8_decode(std::string_view s, std::string& out) {
    const std::size_t n = s.size();
    auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    std::size_t i = 0;
    while (i < n) {
        const unsigned char b1 = at(i);
        if (b1 < 0x80) {
            out.push_back(static_cast<char>(b1));
            ++i;
        } else if (b1 >= 0xC2 && b1 <= 0xDF) {
            if (i + 1 >= n) {  // truncated at the end
                out.append(kReplacement);
                return;
            }
            if (!cont(at(i + 1))) {
                out.append(kReplacement);
                ++i;
            } else {
                out.append(s.substr(i, 2));
                i += 2;
            }
        } else if (b1 >= 0xE0 && b1 <= 0xEF) {
            // A second byte that cannot follow this lead (overlong E0 80..9F, or no continuation).
            auto bad2 = [&](unsigned char b2) {
                return (b1 == 0xE0 && (b2 & 0xE0) == 0x80) || !cont(b2);
            };
            if (i + 2 < n) {
                const unsigned char b2 = at(i + 1), b3 = at(i + 2);
                if (bad2(b2) || !cont(b3)) {
                    out.append(kReplacement);
                    i += bad2(b2) ? 1 : 2;
                } else {
                    if (b1 == 0xED && b2 >= 0xA0)  // an encoded surrogate: one U+FFFD for all 3
                        out.append(kReplacement);
                    else
                        out.append(s.substr(i, 3));
                    i += 3;
                }
            } else if (i + 1 < n && bad2(at(i + 1))) {
                out.append(kReplacement);
                ++i;
            } else {  // truncated at the end: one U+FFFD for what is left
                out.append(kReplacement);
                return;
            }
        } else if (b1 >= 0xF0 && b1 <= 0xF7) {
            auto bad2 = [&](unsigned char b2) {
                return b1 > 0xF4 || (b1 == 0xF0 && (b2 < 0x90 || b2 > 0xBF)) ||
                       (b1 == 0xF4 && (b2 & 0xF0) != 0x80) || !cont(b2);
            };
            if (i + 3 < n) {
                const unsigned char b2 = at(i + 1), b3 = at(i + 2), b4 = at(i + 3);
                if (bad2(b2) || !cont(b3) || !cont(b4)) {
                    out.append(kReplacement);
                    i += bad2(b2) ? 1 : !cont(b3) ? 2 : 3;
                } else {
                    out.append(s.substr(i, 4));
                    i += 4;
                }
            } else if (b1 > 0xF4 || (i + 1 < n && bad2(at(i + 1)))) {
                out.append(kReplacement);
                ++i;
            } else {
                // Truncated at the end: the lead and its second byte make one U+FFFD; a third byte
                // goes with them if it is a continuation, else it is read on its own.
                out.append(kReplacement);
                i += 2;
                if (i < n && !cont(at(i))) continue;
                return;
            }
        } else {  // a continuation byte or C0, C1, F8..FF where a character should start
            out.append(kReplacement);
            ++i;
        }
    }
}

}  // namespace cdcd::transform
