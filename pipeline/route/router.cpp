#include "pipeline/route/router.h"

#include <re2/re2.h>

#include "regex/java_regex.h"
#include "regex/replacement.h"

namespace cdcd {

struct Router::Rule {
    std::unique_ptr<re2::RE2> re;
    std::string replace_symbol;
    std::string sink_table;
    regex::Replacement replacement;  // sink_table, when there is no replace_symbol
    config::SourceLocation where;

    std::string resolve(TableId upstream) const {
        if (!replace_symbol.empty()) {
            std::string out;
            std::size_t from = 0;
            while (true) {
                std::size_t at = sink_table.find(replace_symbol, from);
                if (at == std::string::npos) break;
                out.append(sink_table, from, at - from);
                out += upstream.table_name();
                from = at + replace_symbol.size();
            }
            out.append(sink_table, from, std::string::npos);
            return out;
        }
        // Matcher#replaceAll(sink-table) over the whole identifier.
        std::string out;
        replacement.replace_all(*re, upstream.str(), out);
        return out;
    }
};

std::string Router::source_table_to_regex(const std::string& source_table) {
    std::vector<std::string> parts;
    std::size_t from = 0;
    while (true) {
        std::size_t comma = source_table.find(',', from);
        parts.push_back(
            source_table.substr(from, comma == std::string::npos ? comma : comma - from));
        if (comma == std::string::npos) break;
        from = comma + 1;
    }
    while (!parts.empty() && parts.back().empty()) parts.pop_back();  // String#split drops them
    std::string joined;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        std::string_view p = parts[i];
        while (!p.empty() && static_cast<unsigned char>(p.front()) <= ' ') p.remove_prefix(1);
        while (!p.empty() && static_cast<unsigned char>(p.back()) <= ' ') p.remove_suffix(1);
        if (i) joined.push_back('|');
        joined.append(p);
    }
    // `\.` → any char, `.` → literal dot (placeholder dance as in TableIdRouter).
    std::string out;
    for (std::size_t i = 0; i < joined.size(); ++i) {
        if (joined[i] == '\\' && i + 1 < joined.size() && joined[i + 1] == '.') {
            out.push_back('.');
            ++i;
        } else if (joined[i] == '.') {
            out += "\\.";
        } else {
            out.push_back(joined[i]);
        }
    }
    return out;
}

Router::Router() = default;
Router::Router(Router&&) noexcept = default;
Router& Router::operator=(Router&&) noexcept = default;
Router::~Router() = default;

Router Router::create(const std::vector<config::RouteDef>& routes, RouteMode mode,
                      config::Diagnostics& diags) {
    Router router;
    router.mode_ = mode;
    for (const auto& def : routes) {
        auto rule = std::make_unique<Rule>();
        rule->where = def.where;
        rule->replace_symbol = def.replace_symbol;
        rule->sink_table = def.sink_table;
        if (def.source_table.find_first_not_of(" \t") == std::string::npos) {
            // It would match no table: the route would do nothing, without a word.
            diags.error(def.where, "route source-table must not be empty");
            continue;
        }
        std::string java = source_table_to_regex(def.source_table);
        regex::Error error;
        rule->re = regex::compile_java(java, &error);
        if (!rule->re) {
            diags.error(def.where, "route source-table '" + def.source_table +
                                       "': " + regex::refusal(java, error));
            continue;
        }
        if (def.sink_table.empty()) {
            diags.error(def.where, "route sink-table must not be empty");
            continue;
        }
        bool literal_sink = false;  // no group reference in sink_table
        std::string literal = def.sink_table;
        if (rule->replace_symbol.empty()) {
            std::string replacement_error;
            auto parsed =
                regex::Replacement::parse_java(def.sink_table, *rule->re, &replacement_error);
            if (!parsed) {
                diags.error(def.where,
                            "route sink-table '" + def.sink_table + "': " + replacement_error);
                continue;
            }
            rule->replacement = std::move(*parsed);
            literal_sink = !rule->replacement.has_group_reference();
            literal = rule->replacement.literal_text();
        } else {
            literal_sink = def.sink_table.find(def.replace_symbol) == std::string::npos;
        }
        if (literal_sink && !TableId::parse(literal)) {
            diags.error(def.where, "route sink-table '" + def.sink_table +
                                       "' is not a table id (1 to 3 non-empty parts "
                                       "separated by '.')");
            continue;
        }
        router.rules_.push_back(std::move(rule));
    }
    return router;
}

const std::vector<TableId>& Router::route(TableId upstream) const {
    if (auto it = cache_.find(upstream); it != cache_.end()) return it->second;
    std::vector<TableId> targets;
    for (const auto& rule : rules_) {
        if (!re2::RE2::FullMatch(upstream.str(), *rule->re)) continue;
        std::string resolved = rule->resolve(upstream);
        auto id = TableId::parse(resolved);
        if (!id) {
            throw RouteError(rule->where.to_string() + ": route sink-table '" + rule->sink_table +
                             "' resolves to '" + resolved + "' for table " + upstream.str() +
                             ", which is not a table id (1 to 3 non-empty parts)");
        }
        targets.push_back(*id);
        if (mode_ == RouteMode::FirstMatch) break;
    }
    if (targets.empty()) targets.push_back(upstream);
    return cache_.emplace(upstream, std::move(targets)).first->second;
}

const std::string& Router::pattern(std::size_t i) const {
    return rules_.at(i)->re->pattern();
}
std::size_t Router::size() const {
    return rules_.size();
}

}  // namespace cdcd
