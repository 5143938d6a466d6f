#include "pipeline/transform/java_regex.h"

#include <algorithm>
#include <cctype>

namespace cdcd::transform {

namespace {

// RE2's own refusals of a translated pattern: its size limits (a repetition count above 1000,
// a program too large) are RE2's, not Java's; every other error is a syntax error in Java too.
bool re2_limit(RE2::ErrorCode code) {
    return code == RE2::ErrorRepeatSize || code == RE2::ErrorPatternTooLarge ||
           code == RE2::ErrorInternal;
}

std::unique_ptr<RE2> build(const std::string& re2_pattern, std::string* error,
                           bool* unsupported = nullptr) {
    RE2::Options opts;
    opts.set_log_errors(false);
    opts.set_encoding(RE2::Options::EncodingUTF8);
    auto re = std::make_unique<RE2>(re2_pattern, opts);
    if (!re->ok()) {
        if (error) *error = re->error();
        if (unsupported) *unsupported = re2_limit(re->error_code());
        return nullptr;
    }
    return re;
}

// Why a pattern cannot be compiled: the message, and whether Java would have accepted it.
struct Failure {
    std::string* error;
    bool unsupported = false;

    bool invalid(const std::string& msg) {
        if (error) *error = msg;
        return false;
    }
    bool not_supported(const std::string& msg) {
        unsupported = true;
        return invalid(msg);
    }
};

bool is_hex(char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}
bool is_digit(char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
}
bool is_ascii_letter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Java reads every unescaped `{` outside a class as a counted repetition `{n}`, `{n,}` or
// `{n,m}` (n <= m) and rejects anything else; RE2 would take a malformed one literally.
bool check_repetition(std::string_view p, std::size_t i, Failure& f) {
    std::size_t k = i + 1;
    auto number = [&](long long& v) {
        if (k >= p.size() || !is_digit(p[k])) return false;
        v = 0;
        while (k < p.size() && is_digit(p[k])) {
            v = std::min<long long>(v * 10 + (p[k] - '0'), 1LL << 31);
            ++k;
        }
        return true;
    };
    long long lo = 0, hi = 0;
    if (!number(lo)) return f.invalid("Illegal repetition near index " + std::to_string(i));
    hi = lo;
    if (k < p.size() && p[k] == ',') {
        ++k;
        if (k < p.size() && is_digit(p[k]) && number(hi) && hi < lo)
            return f.invalid("Illegal repetition range near index " + std::to_string(i));
    }
    if (k >= p.size() || p[k] != '}')
        return f.invalid("Unclosed counted closure near index " + std::to_string(i));
    return true;
}

// `(?flags)` / `(?flags:` at `rest` (just after "(?"), written to `out` with its `)` or `:`;
// `used` is how many characters of `rest` that took. Java's flags are i d m s u x U c and `-`.
// RE2 has i m s; `u` (Unicode case folding) is what RE2 always does, so it is dropped; RE2's U
// means something else (ungreedy), so d x U c are refused rather than misread.
bool translate_flags(std::string_view rest, std::string& out, std::size_t& used, Failure& f) {
    std::string on, off;
    bool negated = false;
    std::size_t k = 0;
    for (; k < rest.size() && rest[k] != ')' && rest[k] != ':'; ++k) {
        char c = rest[k];
        if (c == '-') {
            negated = true;
        } else if (c == 'i' || c == 'm' || c == 's') {
            (negated ? off : on).push_back(c);
        } else if (c == 'd' || c == 'x' || c == 'U' || c == 'c') {
            return f.not_supported(std::string("the inline flag (?") + c + ") is not supported");
        } else if (c != 'u') {
            return f.invalid(std::string("Unknown inline modifier '") + c + "'");
        }
    }
    if (k >= rest.size()) return f.invalid("Unclosed group");
    std::string flags = on + (off.empty() ? "" : "-" + off);
    if (rest[k] == ':')
        out += "(?" + flags + ":";
    else if (!flags.empty())
        out += "(?" + flags + ")";
    used = k + 1;
    return true;
}

bool translate(std::string_view p, std::string& out, Failure& f) {
    bool in_class = false;
    for (std::size_t i = 0; i < p.size(); ++i) {
        char c = p[i];
        if (c == '\\') {
            if (i + 1 >= p.size())
                return f.invalid("Unexpected internal error: trailing backslash");
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
                return f.not_supported("back-references (\\" + std::string(1, n) +
                                       ") are not supported");
            if (n == 'k')
                return f.not_supported("named back-references (\\k<...>) are not supported");
            if (n == 'G' || n == 'Z' || n == 'R' || n == 'X' || n == 'h' || n == 'H' || n == 'V' ||
                n == 'v' || n == 'e' || n == 'c' || n == 'N')
                return f.not_supported("\\" + std::string(1, n) + " is not supported");
            if (n == 'u') {  // \uXXXX: exactly four hex digits in Java
                std::string_view hex = p.substr(i + 2, 4);
                if (hex.size() != 4 || !std::all_of(hex.begin(), hex.end(), is_hex))
                    return f.invalid("Illegal Unicode escape sequence");
                out += "\\x{" + std::string(hex) + "}";
                i += 5;
                continue;
            }
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
                        return f.not_supported("\\p{" + name + "} is not supported");
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
                return f.not_supported("nested character classes are not supported");
            }
            if (c == '&' && i + 1 < p.size() && p[i + 1] == '&')
                return f.not_supported("character class intersections (&&) are not supported");
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
                return f.not_supported("look-around groups are not supported");
            if (rest.starts_with(">")) return f.not_supported("atomic groups are not supported");
            if (rest.starts_with("<")) {  // named group (?<name>...): a Latin letter, then alnum
                std::size_t k = 1;
                while (k < rest.size() && std::isalnum(static_cast<unsigned char>(rest[k]))) ++k;
                if (k == 1 || !is_ascii_letter(rest[1]))
                    return f.invalid("capturing group name does not start with a Latin letter");
                if (k >= rest.size() || rest[k] != '>')
                    return f.invalid("named capturing group is missing trailing '>'");
                out += "(?P<";
                i += 2;
                continue;
            }
            if (!rest.empty() && rest[0] != ':') {
                std::size_t used = 0;
                if (!translate_flags(rest, out, used, f)) return false;
                i += 1 + used;  // the loop's ++i steps past the ':' or ')'
                continue;
            }
        }
        if ((c == '+') && i > 0) {
            char prev = p[i - 1];
            bool escaped = i > 1 && p[i - 2] == '\\';
            if (!escaped && (prev == '*' || prev == '+' || prev == '?' || prev == '}'))
                return f.not_supported("possessive quantifiers are not supported");
        }
        if (c == '{' && !check_repetition(p, i, f)) return false;
        out.push_back(c);
    }
    if (in_class) return f.invalid("Unclosed character class");
    return true;
}

std::string quote(char c) {
    std::string s;
    if (!std::isalnum(static_cast<unsigned char>(c)) && !(c & 0x80)) s.push_back('\\');
    s.push_back(c);
    return s;
}

}  // namespace

std::unique_ptr<RE2> compile_java_regex(std::string_view pattern, std::string* error,
                                        bool* unsupported) {
    std::string out;
    Failure f{error};
    if (!translate(pattern, out, f)) {
        if (unsupported) *unsupported = f.unsupported;
        return nullptr;
    }
    return build(out, error, unsupported);
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

void replace_all_literal(const RE2& re, std::string_view text, std::string_view rep,
                         std::string& out) {
    const re2::StringPiece whole(text.data(), text.size());
    re2::StringPiece m;
    std::size_t pos = 0, last = 0;
    while (pos <= text.size()) {
        if (!re.Match(whole, pos, text.size(), RE2::UNANCHORED, &m, 1)) break;
        std::size_t start = m.data() - text.data();
        std::size_t end = start + m.size();
        out.append(text.substr(last, start - last));
        out.append(rep);
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
}

}  // namespace cdcd::transform
