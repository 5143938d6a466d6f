#include "pipeline/route/router.h"

#include <re2/re2.h>

#include <optional>

namespace cdcd {

namespace {

// A parsed Java replacement string (Matcher#appendReplacement): literal text and group refs.
struct ReplacementPiece {
    std::string literal;
    int group = -1;  // >= 0: a group reference
};

// Java regex constructs RE2 cannot run are rejected; `(?<name>` becomes RE2's `(?P<name>`.
std::optional<std::string> java_regex_to_re2(const std::string& java, std::string& error) {
    std::string out;
    bool in_class = false;
    std::size_t class_start = 0;
    for (std::size_t i = 0; i < java.size(); ++i) {
        char c = java[i];
        if (c == '\\') {
            if (i + 1 >= java.size()) {
                error = "trailing backslash";
                return std::nullopt;
            }
            char n = java[i + 1];
            if (n == 'Q') {  // quoted section: copy through \E untouched
                std::size_t end = java.find("\\E", i + 2);
                std::size_t stop = end == std::string::npos ? java.size() : end + 2;
                out.append(java, i, stop - i);
                i = stop - 1;
                continue;
            }
            if (!in_class && ((n >= '1' && n <= '9') || n == 'k')) {
                error = "backreferences are not supported (RE2 has none)";
                return std::nullopt;
            }
            out.push_back(c);
            out.push_back(n);
            ++i;
            continue;
        }
        if (in_class) {
            if (c == ']' && i > class_start) in_class = false;
            out.push_back(c);
            continue;
        }
        if (c == '[') {
            in_class = true;
            class_start = i + 1;
            if (class_start < java.size() && java[class_start] == '^') ++class_start;
            out.push_back(c);
            continue;
        }
        if (c == '(' && i + 2 < java.size() && java[i + 1] == '?') {
            std::string_view rest(java.data() + i + 2, java.size() - i - 2);
            if (rest.substr(0, 1) == "=" || rest.substr(0, 1) == "!" || rest.substr(0, 2) == "<=" ||
                rest.substr(0, 2) == "<!") {
                error = "lookahead/lookbehind assertions are not supported (RE2 has none)";
                return std::nullopt;
            }
            if (rest.substr(0, 1) == ">") {
                error = "atomic groups (?>...) are not supported (RE2 has none)";
                return std::nullopt;
            }
            if (rest.substr(0, 1) == "<") {  // named group
                out += "(?P<";
                i += 2;
                continue;
            }
        }
        if (c == '+' && i > 0 &&
            (java[i - 1] == '*' || java[i - 1] == '+' || java[i - 1] == '?' ||
             java[i - 1] == '}')) {
            bool escaped = i >= 2 && java[i - 2] == '\\';
            if (!escaped) {
                error = "possessive quantifiers are not supported (RE2 has none)";
                return std::nullopt;
            }
        }
        out.push_back(c);
    }
    return out;
}

// Matcher#appendReplacement's syntax: `\x` is x, `$n` / `${name}` a group.
std::optional<std::vector<ReplacementPiece>> parse_replacement(const std::string& text,
                                                               const re2::RE2& re,
                                                               std::string& error) {
    std::vector<ReplacementPiece> pieces;
    auto literal = [&]() -> std::string& {
        if (pieces.empty() || pieces.back().group >= 0) pieces.push_back({});
        return pieces.back().literal;
    };
    int groups = re.NumberOfCapturingGroups();
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == '\\') {
            if (++i >= text.size()) {
                error = "character to be escaped is missing";
                return std::nullopt;
            }
            literal().push_back(text[i]);
        } else if (c == '$') {
            if (++i >= text.size()) {
                error = "Illegal group reference: group index is missing";
                return std::nullopt;
            }
            int ref = -1;
            if (text[i] == '{') {
                std::size_t close = text.find('}', i);
                if (close == std::string::npos) {
                    error = "named capturing group is missing trailing '}'";
                    return std::nullopt;
                }
                std::string name = text.substr(i + 1, close - i - 1);
                auto it = re.NamedCapturingGroups().find(name);
                if (it == re.NamedCapturingGroups().end()) {
                    error = "No group with name {" + name + "}";
                    return std::nullopt;
                }
                ref = it->second;
                i = close;
            } else {
                if (text[i] < '0' || text[i] > '9') {
                    error = "Illegal group reference";
                    return std::nullopt;
                }
                ref = text[i] - '0';
                // Java takes more digits only while the number stays a valid group.
                while (i + 1 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '9') {
                    int next = ref * 10 + (text[i + 1] - '0');
                    if (next > groups) break;
                    ref = next;
                    ++i;
                }
                if (ref > groups) {
                    error = "No group " + std::to_string(ref);
                    return std::nullopt;
                }
            }
            pieces.push_back({{}, ref});
        } else {
            literal().push_back(c);
        }
    }
    return pieces;
}

}  // namespace

struct Router::Rule {
    std::string regex;
    std::unique_ptr<re2::RE2> re;
    std::string replace_symbol;
    std::string sink_table;
    std::vector<ReplacementPiece> replacement;
    bool literal_sink = false;  // no group reference in sink_table
    config::SourceLocation where;

    // Matcher#replaceAll(replacement) over the whole identifier.
    std::string replace_all(const std::string& input) const {
        int n = re->NumberOfCapturingGroups() + 1;
        std::vector<re2::StringPiece> groups(static_cast<std::size_t>(n));
        std::string out;
        std::size_t append_from = 0, search_from = 0;
        bool previous_empty = false;
        while (search_from <= input.size()) {
            std::size_t start = search_from + (previous_empty ? 1 : 0);
            if (start > input.size()) break;
            if (!re->Match(input, start, input.size(), re2::RE2::UNANCHORED, groups.data(), n))
                break;
            auto match_start = static_cast<std::size_t>(groups[0].data() - input.data());
            auto match_end = match_start + groups[0].size();
            out.append(input, append_from, match_start - append_from);
            for (const auto& piece : replacement) {
                if (piece.group < 0) {
                    out += piece.literal;
                } else if (groups[static_cast<std::size_t>(piece.group)].data() != nullptr) {
                    out.append(groups[static_cast<std::size_t>(piece.group)].data(),
                               groups[static_cast<std::size_t>(piece.group)].size());
                }
            }
            append_from = match_end;
            previous_empty = match_end == match_start;
            search_from = match_end;
        }
        out.append(input, append_from, std::string::npos);
        return out;
    }

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
        return replace_all(upstream.str());
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
        std::string java = source_table_to_regex(def.source_table);
        std::string error;
        auto translated = java_regex_to_re2(java, error);
        if (!translated) {
            diags.error(def.where, "route source-table '" + def.source_table + "': " + error);
            continue;
        }
        rule->regex = *translated;
        re2::RE2::Options options;
        options.set_log_errors(false);
        rule->re = std::make_unique<re2::RE2>(rule->regex, options);
        if (!rule->re->ok()) {
            diags.error(def.where, "route source-table '" + def.source_table +
                                       "' is not a valid regular expression: " + rule->re->error());
            continue;
        }
        if (def.sink_table.empty()) {
            diags.error(def.where, "route sink-table must not be empty");
            continue;
        }
        if (rule->replace_symbol.empty()) {
            auto pieces = parse_replacement(def.sink_table, *rule->re, error);
            if (!pieces) {
                diags.error(def.where, "route sink-table '" + def.sink_table + "': " + error);
                continue;
            }
            rule->replacement = std::move(*pieces);
            rule->literal_sink = rule->replacement.size() <= 1 &&
                                 (rule->replacement.empty() || rule->replacement[0].group < 0);
        } else {
            rule->literal_sink = def.sink_table.find(def.replace_symbol) == std::string::npos;
        }
        if (rule->literal_sink) {
            std::string literal = rule->replace_symbol.empty() && !rule->replacement.empty()
                                      ? rule->replacement[0].literal
                                      : def.sink_table;
            if (!TableId::parse(literal)) {
                diags.error(def.where, "route sink-table '" + def.sink_table +
                                           "' is not a table id (1 to 3 non-empty parts "
                                           "separated by '.')");
                continue;
            }
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
    return rules_.at(i)->regex;
}
std::size_t Router::size() const {
    return rules_.size();
}

}  // namespace cdcd
