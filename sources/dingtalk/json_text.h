#pragma once
// Writing JSON text by hand (request bodies, the checkpoint state).
#include <cstdio>
#include <string>
#include <string_view>

namespace cdcd::dingtalk {

inline void append_json_string(std::string& out, std::string_view s) {
    out.push_back('"');
    for (char ch : s) {
        auto c = static_cast<unsigned char>(ch);
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
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out.push_back(ch);
                }
        }
    }
    out.push_back('"');
}

inline std::string json_string(std::string_view s) {
    std::string out;
    append_json_string(out, s);
    return out;
}

}  // namespace cdcd::dingtalk
