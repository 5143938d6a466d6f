#pragma once
// JSON string escaping, the one implementation every JSON writer of cdcd uses. It lives at the
// bottom layer (pipeline/util) so that pipeline/ can write JSON without linking formats/.
#include <string>
#include <string_view>

namespace cdcd::json {

/// Appends `text` as a JSON string literal (with quotes). `"`, `\\` and control characters are
/// escaped (short escapes where JSON has them, else \u00XX); bytes >= 0x80 are copied as-is (the
/// text is expected to be UTF-8).
void append_quoted(std::string& out, std::string_view text);

inline std::string quoted(std::string_view text) {
    std::string out;
    append_quoted(out, text);
    return out;
}

}  // namespace cdcd::json
