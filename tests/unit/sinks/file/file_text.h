#pragma once
// What an output file holds, for the file sink tests to compare.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace cdcd::testing {

/// The whole text of the file at `path` (empty when there is none).
inline std::string file_text(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace cdcd::testing
