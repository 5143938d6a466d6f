#include "cmd/option_tables.h"

#include <sstream>

#include "config/option_docs.h"

namespace cdcd::cli {

namespace {

constexpr std::string_view kBegin = "<!-- BEGIN cdcd describe --format markdown ";
constexpr std::string_view kEnd = "<!-- END cdcd describe -->";
constexpr std::string_view kClose = " -->";

}  // namespace

OptionTables refresh_option_tables(std::string_view markdown, const SpecLookup& lookup) {
    OptionTables out;
    std::size_t pos = 0;
    int line = 1;
    auto lines_in = [](std::string_view text) {
        int n = 0;
        for (char c : text) n += c == '\n';
        return n;
    };
    while (pos < markdown.size()) {
        std::size_t begin = markdown.find(kBegin, pos);
        if (begin == std::string_view::npos) break;
        line += lines_in(markdown.substr(pos, begin - pos));
        std::size_t close = markdown.find(kClose, begin + kBegin.size());
        std::size_t eol = markdown.find('\n', begin);
        if (close == std::string_view::npos || eol == std::string_view::npos || close > eol) {
            out.errors.push_back("line " + std::to_string(line) + ": unterminated BEGIN marker");
            break;
        }
        std::size_t end = markdown.find(kEnd, eol);
        if (end == std::string_view::npos) {
            out.errors.push_back("line " + std::to_string(line) + ": no `" + std::string(kEnd) +
                                 "` after the BEGIN marker");
            break;
        }
        std::istringstream words(
            std::string(markdown.substr(begin + kBegin.size(), close - begin - kBegin.size())));
        std::string block, name;
        words >> block >> name;
        const config::ConnectorOptionsSpec* spec = lookup(block, name);
        out.text += markdown.substr(pos, eol + 1 - pos);
        if (spec == nullptr) {
            out.errors.push_back("line " + std::to_string(line) + ": no " + block + " `" + name +
                                 "` (write source NAME, sink NAME or pipeline)");
            out.text += markdown.substr(eol + 1, end - eol - 1);
        } else {
            out.text += config::markdown_table(*spec);
            ++out.tables;
        }
        line += lines_in(markdown.substr(begin, end - begin));
        pos = end;
    }
    out.text += markdown.substr(pos);
    return out;
}

}  // namespace cdcd::cli
