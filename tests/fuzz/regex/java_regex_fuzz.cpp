// Java regular expressions from hostile text: the pattern (up to the first NUL), a replacement
// (up to the second) and a subject (the rest). The pattern is translated and compiled, in both
// case modes; a refusal is rendered; a compiled pattern replaces through the parsed replacement
// and through the literal one. Refusals are expected; nothing else may escape, and a
// replacement must not split a UTF-8 sequence of a valid subject.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "regex/java_regex.h"
#include "regex/replacement.h"

namespace {

std::string_view next_field(std::string_view& rest) {
    auto cut = rest.find('\0');
    std::string_view field = rest.substr(0, cut);
    rest = cut == std::string_view::npos ? std::string_view{} : rest.substr(cut + 1);
    return field;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view rest(reinterpret_cast<const char*>(data), size);
    const std::string_view pattern = next_field(rest);
    const std::string_view replacement = next_field(rest);
    const std::string_view subject = rest;
    for (bool case_insensitive : {false, true}) {
        cdcd::regex::Error error;
        auto re =
            cdcd::regex::compile_java(pattern, &error, {.case_insensitive = case_insensitive});
        if (!re) {
            if (cdcd::regex::refusal(pattern, error).empty()) std::abort();
            continue;
        }
        std::string parse_error, out;
        if (auto parsed = cdcd::regex::Replacement::parse_java(replacement, *re, &parse_error))
            parsed->replace_all(*re, subject, out);
        else if (parse_error.empty())
            std::abort();  // a refusal always says why
        out.clear();
        cdcd::regex::Replacement::literal(replacement).replace_all(*re, subject, out);
    }
    return 0;
}
