#include "pipeline/route/selectors.h"

#include "regex/java_regex.h"
#include "text/ascii.h"

namespace cdcd {

namespace {

std::vector<std::string> split_unescaped(std::string_view s, char sep, bool keep_escape) {
    std::vector<std::string> out(1);
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == sep) {
            if (keep_escape) out.back().push_back('\\');
            out.back().push_back(sep);
            ++i;
        } else if (s[i] == sep) {
            out.emplace_back();
        } else {
            out.back().push_back(s[i]);
        }
    }
    return out;
}

}  // namespace

std::unique_ptr<Selectors> Selectors::parse(std::string_view text, std::string* error) {
    auto sel = std::make_unique<Selectors>();
    for (const auto& alt_text : split_unescaped(text, ',', false)) {
        std::string a(ascii::trim(alt_text));
        if (a.empty()) continue;
        // `\.` stays as the two characters so that the regex sees an escaped... any char, as
        // Flink: it replaces "\." by "." after splitting.
        auto parts = split_unescaped(a, '.', false);
        if (parts.size() > 3) {
            if (error) *error = "table selector '" + a + "' has more than 3 parts";
            return nullptr;
        }
        Alternative alt;
        for (const auto& p : parts) {
            regex::Error err;
            auto re = regex::compile_java(p, &err, {.case_insensitive = true});
            if (!re) {
                if (error) *error = "invalid table selector '" + a + "': " + regex::refusal(p, err);
                return nullptr;
            }
            alt.parts.push_back(std::move(re));
        }
        sel->alternatives_.push_back(std::move(alt));
    }
    if (sel->alternatives_.empty()) {
        if (error) *error = "empty table selector";
        return nullptr;
    }
    return sel;
}

bool Selectors::matches(TableId t) const {
    int n = t.part_count();
    for (const auto& alt : alternatives_) {
        if (static_cast<int>(alt.parts.size()) != n) continue;
        const std::string* names[3];
        int k = 0;
        if (n == 3) names[k++] = &t.namespace_name();
        if (n >= 2) names[k++] = &t.schema_name();
        names[k++] = &t.table_name();
        bool ok = true;
        for (int i = 0; i < n && ok; ++i) ok = RE2::FullMatch(*names[i], *alt.parts[i]);
        if (ok) return true;
    }
    return false;
}

}  // namespace cdcd
