#include "pipeline/transform/java_regex.h"

#include <cctype>
#include <vector>

namespace cdcd::transform {

namespace {

std::unique_ptr<RE2> build(const std::string& re2_pattern, std::string* error) {
    RE2::Options opts;
    opts.set_log_errors(false);
    opts.set_encoding(RE2::Options::EncodingUTF8);
    auto re = std::make_unique<RE2>(re2_pattern, opts);
    if (!re->ok()) {
        if (error) *error = re->error();
        return nullptr;
    }
    return re;
}

bool fail(std::string* error, const std::string& msg) {
    if (error) *error = msg;
    return false;
}

bool translate(std::string_view p, std::string& out, std::string* error) {
    bool in_class = false;
    for (std::size_t i = 0; i < p.size(); ++i) {
        char c = p[i];
        if (c == '\\') {
            if (i + 1 >= p.size())
                return fail(error, "Unexpected internal error: trailing backslash");
            char n = p[i + 1];
            if (n == 'Q') {  // quoted section up to \E
                auto e = p.find("\\E", i + 2);
                std::string_view lit = p.substr(
                    i + 2, e == std::string_view::npos ? std::string_view::npos : e - i - 2);
                for (char ch : lit) {
                    if (!std::isalnum(static_cast<unsigned char>(ch)) && !(ch & 0x80))
                        out.push_back('\\');
                    out.push_back(ch);
                }
                i = e == std::string_view::npos ? p.size() : e + 1;
                continue;
            }
            if (!in_class && n >= '1' && n <= '9')
                return fail(error,
                            "back-references (\\" + std::string(1, n) + ") are not supported");
            if (n == 'k') return fail(error, "named back-references (\\k<...>) are not supported");
            if (n == 'G' || n == 'Z' || n == 'R' || n == 'X' || n == 'h' || n == 'H' || n == 'V' ||
                n == 'v' || n == 'e' || n == 'c')
                return fail(error, "\\" + std::string(1, n) + " is not supported");
            if (n == 'p' || n == 'P') {
                auto close = p.find('}', i);
                if (i + 2 < p.size() && p[i + 2] == '{' && close != std::string_view::npos) {
                    std::string name(p.substr(i + 3, close - i - 3));
                    static const std::pair<const char*, const char*> kPosix[] = {
                        {"Lower", "a-z"},
                        {"Upper", "A-Z"},
                        {"ASCII", "\\x00-\\x7F"},
                        {"Alpha", "a-zA-Z"},
                        {"Digit", "0-9"},
                        {"Alnum", "a-zA-Z0-9"},
                        {"Punct", "[:punct:]"},
                        {"Graph", "[:graph:]"},
                        {"Print", "[:print:]"},
                        {"Blank", " \\t"},
                        {"Cntrl", "[:cntrl:]"},
                        {"XDigit", "0-9a-fA-F"},
                        {"Space", " \\t\\n\\x0B\\f\\r"}};
                    bool mapped = false;
                    for (const auto& [k, v] : kPosix) {
                        if (name != k) continue;
                        if (in_class && n == 'p')
                            out += v;
                        else
                            out += std::string(n == 'P' ? "[^" : "[") + v + "]";
                        mapped = true;
                    }
                    if (name.rfind("java", 0) == 0)
                        return fail(error, "\\p{" + name + "} is not supported");
                    if (mapped) {
                        i = close;
                        continue;
                    }
                    if (name.rfind("Is", 0) == 0 || name.rfind("In", 0) == 0) name = name.substr(2);
                    out += std::string("\\") + n + "{" + name + "}";
                    i = close;
                    continue;
                }
            }
            out.push_back(c);
            out.push_back(n);
            ++i;
            continue;
        }
        if (in_class) {
            if (c == '[') {
                if (i + 1 < p.size() && p[i + 1] == ':') {
                    out.push_back(c);
                    continue;
                }
                return fail(error, "nested character classes are not supported");
            }
            if (c == '&' && i + 1 < p.size() && p[i + 1] == '&')
                return fail(error, "character class intersections (&&) are not supported");
            if (c == ']') in_class = false;
            out.push_back(c);
            continue;
        }
        if (c == '[') {
            in_class = true;
            out.push_back(c);
            if (i + 1 < p.size() && p[i + 1] == '^') {
                out.push_back('^');
                ++i;
            }
            if (i + 1 < p.size() && p[i + 1] == ']') {  // leading ] is literal
                out += "\\]";
                ++i;
            }
            continue;
        }
        if (c == '(' && i + 1 < p.size() && p[i + 1] == '?') {
            std::string_view rest = p.substr(i + 2);
            if (rest.starts_with("=") || rest.starts_with("!") || rest.starts_with("<=") ||
                rest.starts_with("<!"))
                return fail(error, "look-around groups are not supported");
            if (rest.starts_with(">")) return fail(error, "atomic groups are not supported");
            if (rest.starts_with("<")) {  // named group (?<name>...)
                out += "(?P<";
                i += 2;
                continue;
            }
        }
        if ((c == '+') && i > 0) {
            char prev = p[i - 1];
            bool escaped = i > 1 && p[i - 2] == '\\';
            if (!escaped && (prev == '*' || prev == '+' || prev == '?' || prev == '}'))
                return fail(error, "possessive quantifiers are not supported");
        }
        out.push_back(c);
    }
    if (in_class) return fail(error, "Unclosed character class");
    return true;
}

std::string quote(char c) {
    std::string s;
    if (!std::isalnum(static_cast<unsigned char>(c)) && !(c & 0x80)) s.push_back('\\');
    s.push_back(c);
    return s;
}

}  // namespace

std::unique_ptr<RE2> compile_java_regex(std::string_view pattern, std::string* error) {
    std::string out;
    if (!translate(pattern, out, error)) return nullptr;
    return build(out, error);
}

std::unique_ptr<RE2> compile_sql_like(std::string_view p, char escape, std::string* error) {
    std::string out = "(?s)";
    for (std::size_t i = 0; i < p.size(); ++i) {
        char c = p[i];
        if (escape && c == escape) {
            if (i + 1 >= p.size() || (p[i + 1] != '%' && p[i + 1] != '_' && p[i + 1] != escape)) {
                if (error)
                    *error =
                        "Invalid escape sequence '" + std::string(p) + "', " + std::to_string(i);
                return nullptr;
            }
            out += quote(p[++i]);
        } else if (c == '%') {
            out += ".*";
        } else if (c == '_') {
            out += ".";
        } else {
            out += quote(c);
        }
    }
    return build(out, error);
}

std::unique_ptr<RE2> compile_similar(std::string_view p, char escape, std::string* error) {
    std::string out = "(?s)";
    bool in_class = false;
    for (std::size_t i = 0; i < p.size(); ++i) {
        char c = p[i];
        if (escape && c == escape) {
            if (i + 1 >= p.size()) {
                if (error)
                    *error = "Invalid escape sequence at the end of '" + std::string(p) + "'";
                return nullptr;
            }
            out += quote(p[++i]);
            continue;
        }
        if (in_class) {
            if (c == ']') in_class = false;
            if (c == '\\') out.push_back('\\');
            out.push_back(c);
            continue;
        }
        switch (c) {
            case '%':
                out += ".*";
                break;
            case '_':
                out += ".";
                break;
            case '[':
                in_class = true;
                out.push_back(c);
                break;
            case '|':
            case '*':
            case '+':
            case '?':
            case '{':
            case '}':
            case '(':
            case ')':
                out.push_back(c);
                break;
            default:
                out += quote(c);
        }
    }
    return build(out, error);
}

bool java_replace_all(const RE2& re, std::string_view text, std::string_view rep, std::string& out,
                      std::string* error) {
    int groups = re.NumberOfCapturingGroups();
    std::vector<re2::StringPiece> m(groups + 1);
    std::size_t pos = 0, last = 0;
    while (pos <= text.size()) {
        if (!re.Match(re2::StringPiece(text.data(), text.size()), pos, text.size(), RE2::UNANCHORED,
                      m.data(), groups + 1))
            break;
        std::size_t start = m[0].data() - text.data();
        std::size_t end = start + m[0].size();
        out.append(text.substr(last, start - last));
        for (std::size_t i = 0; i < rep.size(); ++i) {
            char c = rep[i];
            if (c == '\\') {
                if (i + 1 >= rep.size())
                    return error && (*error = "character to be escaped is missing", false);
                out.push_back(rep[++i]);
            } else if (c == '$') {
                if (i + 1 >= rep.size())
                    return error &&
                           (*error = "Illegal group reference: group index is missing", false);
                if (rep[i + 1] == '{') {
                    auto close = rep.find('}', i);
                    if (close == std::string_view::npos)
                        return error &&
                               (*error = "named capturing group is missing trailing '}'", false);
                    std::string name(rep.substr(i + 2, close - i - 2));
                    const auto& names = re.NamedCapturingGroups();
                    auto it = names.find(name);
                    if (it == names.end())
                        return error && (*error = "No group with name {" + name + "}", false);
                    out.append(m[it->second].data(), m[it->second].size());
                    i = close;
                } else if (std::isdigit(static_cast<unsigned char>(rep[i + 1]))) {
                    int g = rep[++i] - '0';
                    if (g > groups)
                        return error && (*error = "No group " + std::to_string(g), false);
                    // Java takes more digits while the group number stays valid.
                    while (i + 1 < rep.size() &&
                           std::isdigit(static_cast<unsigned char>(rep[i + 1])) &&
                           g * 10 + (rep[i + 1] - '0') <= groups)
                        g = g * 10 + (rep[++i] - '0');
                    out.append(m[g].data(), m[g].size());
                } else {
                    return error && (*error = "Illegal group reference", false);
                }
            } else {
                out.push_back(c);
            }
        }
        if (end == start) {
            if (start >= text.size()) {
                last = text.size();
                break;
            }
            std::size_t len = 1;
            while (start + len < text.size() &&
                   (static_cast<unsigned char>(text[start + len]) & 0xC0) == 0x80)
                ++len;
            out.append(text.substr(start, len));
            pos = last = start + len;
        } else {
            pos = last = end;
        }
    }
    if (last < text.size()) out.append(text.substr(last));
    return true;
}

}  // namespace cdcd::transform
