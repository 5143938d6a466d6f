#include "pipeline/runtime/sensitive_columns.h"

#include "regex/java_regex.h"
#include "text/ascii.h"

namespace cdcd {

namespace {

// Splits at dots not escaped by a backslash, keeping `\.` in the part (a regex's any-char, as
// in table selectors).
std::vector<std::string> split_parts(std::string_view s) {
    std::vector<std::string> out(1);
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '.') {
            out.back() += "\\.";
            ++i;
        } else if (s[i] == '.') {
            out.emplace_back();
        } else {
            out.back().push_back(s[i]);
        }
    }
    return out;
}

// `*` alone: any name, written for the regex itself (`.*`) or for a table selector, where a
// bare dot separates parts (`\.*`).
std::string any_if_star(const std::string& part, bool in_selector) {
    if (part != "*") return part;
    return in_selector ? "\\.*" : ".*";
}

}  // namespace

std::optional<SensitiveColumns> SensitiveColumns::parse(const std::vector<std::string>& entries,
                                                        std::string* error) {
    SensitiveColumns out;
    for (const auto& raw : entries) {
        std::string entry(ascii::trim(raw));
        if (entry.empty()) continue;
        auto parts = split_parts(entry);
        if (parts.size() < 2 || parts.size() > 4) {
            if (error)
                *error = "sensitive column '" + entry +
                         "' must be TABLE.COLUMN with a table of 1 to 3 parts (or * for any "
                         "table), e.g. app.users.password or *.password";
            return std::nullopt;
        }
        Rule rule;
        regex::Error err;
        // As in a selector's parts, `\.` is the regex's any-char.
        std::string column = any_if_star(parts.back(), false);
        for (auto at = column.find("\\."); at != std::string::npos; at = column.find("\\.", at))
            column.erase(at, 1);
        auto re = regex::compile_java(column, &err, {.case_insensitive = true});
        if (!re) {
            if (error) *error = "sensitive column '" + entry + "': " + regex::refusal(column, err);
            return std::nullopt;
        }
        rule.column = std::move(re);
        parts.pop_back();
        if (!(parts.size() == 1 && parts[0] == "*")) {
            std::string selector;
            for (const auto& p : parts)
                selector += (selector.empty() ? "" : ".") + any_if_star(p, true);
            std::string why;
            auto tables = Selectors::parse(selector, &why);
            if (!tables) {
                if (error) *error = "sensitive column '" + entry + "': " + why;
                return std::nullopt;
            }
            rule.tables = std::move(tables);
        }
        out.rules_.push_back(std::move(rule));
    }
    return out;
}

std::vector<bool> SensitiveColumns::mask(TableId table, const Schema& schema) const {
    std::vector<bool> hidden(schema.size(), false);
    for (const auto& rule : rules_) {
        if (rule.tables && !rule.tables->matches(table)) continue;
        for (std::size_t i = 0; i < schema.size(); ++i)
            if (!hidden[i] && RE2::FullMatch(schema.columns()[i].name, *rule.column))
                hidden[i] = true;
    }
    return hidden;
}

}  // namespace cdcd
