#pragma once
// Reading the files under tests/unit/ that tests compare with (golden samples, captured inputs):
// found from CDCD_SOURCE_DIR (set by ctest), else from the working directory.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cdcd::testing {

/// The bytes of tests/unit/<relative>; throws when the file cannot be read.
inline std::string testdata(std::string_view relative) {
    const char* root = std::getenv("CDCD_SOURCE_DIR");
    const std::string path =
        std::string(root ? root : ".") + "/tests/unit/" + std::string(relative);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read test data " + path);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

/// Hex digits (whitespace ignored) as bytes: binary golden samples are kept as hex text.
inline std::string from_hex(std::string_view hex) {
    auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    std::string out;
    int high = -1;
    for (char c : hex) {
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
        int v = nibble(c);
        if (v < 0) throw std::runtime_error(std::string("not a hex digit: ") + c);
        if (high < 0) {
            high = v;
        } else {
            out.push_back(static_cast<char>(high * 16 + v));
            high = -1;
        }
    }
    if (high >= 0) throw std::runtime_error("odd number of hex digits");
    return out;
}

}  // namespace cdcd::testing
