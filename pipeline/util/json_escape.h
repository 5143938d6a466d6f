#pragma once
// Minimal JSON string escaping, dependency-free so that pipeline/ can write JSON without
// linking formats/ (which depends on pipeline/).
#include <string>
#include <string_view>

namespace cdcd::json {

/// Appends `text` as a JSON string literal (with quotes). Control characters become \uXXXX
/// (or their short escapes); bytes >= 0x80 are copied as-is (the text is expected to be UTF-8).
inline void append_quoted(std::string& out, std::string_view text) {
    static constexpr char kHex[] = "0123456789abcdef";
    out.push_back('"');
    for (char c : text) {
        auto u = static_cast<unsigned char>(c);
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
                if (u < 0x20) {
                    out += "\\u00";
                    out.push_back(kHex[u >> 4]);
                    out.push_back(kHex[u & 0xF]);
                } else {
                    out.push_back(c);
                }
        }
    }
    out.push_back('"');
}

inline std::string quoted(std::string_view text) {
    std::string out;
    append_quoted(out, text);
    return out;
}

}  // namespace cdcd::json
