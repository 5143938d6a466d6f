#include "regex/java_regex.h"

#include <algorithm>
#include <cctype>

namespace cdcd::regex {

namespace {

// RE2's own refusals of a translated pattern: its size limits (a repetition count above 1000,
// a program too large) are RE2's, not Java's; every other error is a syntax error in Java too.
bool re2_limit(RE2::ErrorCode code) {
    return code == RE2::ErrorRepeatSize || code == RE2::ErrorPatternTooLarge ||
           code == RE2::ErrorInternal;
}

bool is_hex(char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}
bool is_digit(char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
}
bool is_octal(char c) {
    return c >= '0' && c <= '7';
}
bool is_ascii_letter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Why a pattern cannot be translated, with Java's wording for what Java rejects and one wording
// for every construct RE2 cannot run.
struct Failure {
    Error* error;

    bool invalid(const std::string& msg, std::size_t index) {
        if (error) *error = {Error::Kind::Invalid, msg + " near index " + std::to_string(index)};
        return false;
    }
    bool unsupported(const std::string& construct, std::string_view text, std::size_t index) {
        if (error)
            *error = {Error::Kind::Unsupported,
                      construct + " '" + std::string(text) + "' at index " + std::to_string(index) +
                          " is not supported: RE2, which cdcd matches with, cannot run it"};
        return false;
    }
};

// Java reads every unescaped `{` outside a class as a counted repetition `{n}`, `{n,}` or
// `{n,m}` (n <= m) and rejects anything else; RE2 would take a malformed one literally.
// On success `end` is the index of the closing `}`.
bool check_repetition(std::string_view p, std::size_t i, std::size_t& end, Failure& f) {
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
    if (!number(lo)) return f.invalid("Illegal repetition", i);
    hi = lo;
    if (k < p.size() && p[k] == ',') {
        ++k;
        if (k < p.size() && is_digit(p[k]) && number(hi) && hi < lo)
            return f.invalid("Illegal repetition range", i);
    }
    if (k >= p.size() || p[k] != '}') return f.invalid("Unclosed counted closure", i);
    end = k;
    return true;
}

// `(?flags)` / `(?flags:` at `rest` (just after "(?" at index `at`), written to `out` with its
// `)` or `:`; `used` is how many characters of `rest` that took. Java's flags are i d m s u x U c
// and `-`. RE2 has i m s; `u` (Unicode case folding) is what RE2 always does, so it is dropped;
// RE2's U means something else (ungreedy), so d x U c are refused rather than misread.
bool translate_flags(std::string_view rest, std::size_t at, std::string& out, std::size_t& used,
                     Failure& f) {
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
            return f.unsupported("inline flag", std::string("(?") + c + ")", at);
        } else if (c != 'u') {
            return f.invalid(std::string("Unknown inline modifier '") + c + "'", at + 2 + k);
        }
    }
    if (k >= rest.size()) return f.invalid("Unclosed group", at + 2 + k);
    std::string flags = on + (off.empty() ? "" : "-" + off);
    if (rest[k] == ':')
        out += "(?" + flags + ":";
    else if (!flags.empty())
        out += "(?" + flags + ")";
    used = k + 1;
    return true;
}

// Java's POSIX classes (US-ASCII only, as Java's default) and RE2's names for the same sets.
const char* posix_name(std::string_view java) {
    static const std::pair<const char*, const char*> kPosix[] = {
        {"Lower", "lower"}, {"Upper", "upper"}, {"ASCII", "ascii"}, {"Alpha", "alpha"},
        {"Digit", "digit"}, {"Alnum", "alnum"}, {"Punct", "punct"}, {"Graph", "graph"},
        {"Print", "print"}, {"Blank", "blank"}, {"Cntrl", "cntrl"}, {"XDigit", "xdigit"},
        {"Space", "space"}};
    for (const auto& [j, r] : kPosix)
        if (java == j) return r;
    return nullptr;
}

// The escape at p[i] == '\\' (p[i + 1] exists), written to `out`; `i` ends on its last character.
bool translate_escape(std::string_view p, std::size_t& i, bool in_class, std::string& out,
                      Failure& f) {
    const std::size_t at = i;
    const char n = p[i + 1];
    if (n == 'Q') {  // quoted section up to \E (or the end)
        auto e = p.find("\\E", i + 2);
        std::string_view lit =
            p.substr(i + 2, e == std::string_view::npos ? std::string_view::npos : e - i - 2);
        for (char ch : lit) {
            if (!std::isalnum(static_cast<unsigned char>(ch)) && !(ch & 0x80)) out.push_back('\\');
            out.push_back(ch);
        }
        i = e == std::string_view::npos ? p.size() - 1 : e + 1;
        return true;
    }
    if (n >= '1' && n <= '9') {
        if (in_class) return f.invalid("Illegal/unsupported escape sequence", at + 1);
        return f.unsupported("backreference", p.substr(at, 2), at);
    }
    if (n == 'k') return f.unsupported("named backreference", "\\k", at);
    if (n == 'G' || n == 'Z' || n == 'R' || n == 'X' || n == 'h' || n == 'H' || n == 'V' ||
        n == 'v' || n == 'e' || n == 'c' || n == 'N')
        return f.unsupported("escape", p.substr(at, 2), at);
    if (n == 'u') {  // \uXXXX: exactly four hex digits in Java
        std::string_view hex = p.substr(i + 2, 4);
        if (hex.size() != 4 || !std::all_of(hex.begin(), hex.end(), is_hex))
            return f.invalid("Illegal Unicode escape sequence", at + 2);
        out += "\\x{" + std::string(hex) + "}";
        i += 5;
        return true;
    }
    if (n == 'x') {  // \xhh or \x{h...h}
        if (i + 2 < p.size() && p[i + 2] == '{') {
            auto close = p.find('}', i + 3);
            std::string_view hex = p.substr(
                i + 3, close == std::string_view::npos ? std::string_view::npos : close - i - 3);
            if (close == std::string_view::npos || hex.empty() || hex.size() > 6 ||
                !std::all_of(hex.begin(), hex.end(), is_hex) ||
                std::stoul(std::string(hex), nullptr, 16) > 0x10FFFF)
                return f.invalid("Illegal hexadecimal escape sequence", at + 2);
            out += "\\x{" + std::string(hex) + "}";
            i = close;
            return true;
        }
        std::string_view hex = p.substr(i + 2, 2);
        if (hex.size() != 2 || !std::all_of(hex.begin(), hex.end(), is_hex))
            return f.invalid("Illegal hexadecimal escape sequence", at + 2);
        out += "\\x" + std::string(hex);
        i += 3;
        return true;
    }
    if (n == '0') {  // \0n, \0nn, \0mnn (m <= 3): octal, which RE2 reads differently
        std::size_t k = i + 2;
        unsigned value = 0;
        int digits = 0;
        while (k < p.size() && is_octal(p[k]) && digits < 3) {
            unsigned next = value * 8 + static_cast<unsigned>(p[k] - '0');
            if (next > 0377) break;
            value = next;
            ++digits;
            ++k;
        }
        if (digits == 0) return f.invalid("Illegal octal escape sequence", at + 2);
        static const char kHex[] = "0123456789abcdef";
        out += "\\x{";
        out.push_back(kHex[value >> 4]);
        out.push_back(kHex[value & 15]);
        out += "}";
        i = k - 1;
        return true;
    }
    if ((n == 'p' || n == 'P') && i + 2 < p.size() && p[i + 2] == '{') {
        auto close = p.find('}', i + 3);
        if (close == std::string_view::npos) return f.invalid("Unclosed character family", at + 2);
        std::string name(p.substr(i + 3, close - i - 3));
        if (name.rfind("java", 0) == 0)
            return f.unsupported("character class", p.substr(at, close - at + 1), at);
        if (const char* posix = posix_name(name)) {
            std::string cls = std::string("[:") + (n == 'P' ? "^" : "") + posix + ":]";
            out += in_class ? cls : "[" + cls + "]";
        } else {
            if (name.rfind("Is", 0) == 0 || name.rfind("In", 0) == 0) name = name.substr(2);
            out += std::string("\\") + n + "{" + name + "}";
        }
        i = close;
        return true;
    }
    out.push_back('\\');
    out.push_back(n);
    ++i;
    return true;
}

bool translate(std::string_view p, std::string& out, Failure& f) {
    bool in_class = false;
    bool after_quantifier = false;  // the previous token was `*`, `+`, `?` or `{n,m}`
    for (std::size_t i = 0; i < p.size(); ++i) {
        const char c = p[i];
        const bool quantified = after_quantifier;
        after_quantifier = false;
        if (c == '\\') {
            if (i + 1 >= p.size()) return f.invalid("Unexpected internal error", i + 1);
            if (!translate_escape(p, i, in_class, out, f)) return false;
            continue;
        }
        if (in_class) {
            if (c == '[') return f.unsupported("nested character class", "[", i);
            if (c == '&' && i + 1 < p.size() && p[i + 1] == '&')
                return f.unsupported("character class intersection", "&&", i);
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
            if (rest.starts_with("=") || rest.starts_with("!"))
                return f.unsupported("lookahead/lookbehind", p.substr(i, 3), i);
            if (rest.starts_with("<=") || rest.starts_with("<!"))
                return f.unsupported("lookahead/lookbehind", p.substr(i, 4), i);
            if (rest.starts_with(">")) return f.unsupported("atomic group", "(?>", i);
            if (rest.starts_with("<")) {  // named group (?<name>...): a Latin letter, then alnum
                std::size_t k = 1;
                while (k < rest.size() && std::isalnum(static_cast<unsigned char>(rest[k]))) ++k;
                if (k == 1 || !is_ascii_letter(rest[1]))
                    return f.invalid("capturing group name does not start with a Latin letter",
                                     i + 3);
                if (k >= rest.size() || rest[k] != '>')
                    return f.invalid("named capturing group is missing trailing '>'", i + 2 + k);
                out += "(?P<";
                i += 2;
                continue;
            }
            if (rest.starts_with(":")) {
                out += "(?:";
                i += 2;
                continue;
            }
            std::size_t used = 0;
            if (!translate_flags(rest, i, out, used, f)) return false;
            i += 1 + used;  // the loop's ++i steps past the ':' or ')'
            continue;
        }
        if (c == '*' || c == '+' || c == '?') {
            if (c == '+' && quantified)
                return f.unsupported("possessive quantifier", p.substr(i - 1, 2), i - 1);
            // `?` after a quantifier makes it lazy; anything else is a new quantifier.
            after_quantifier = !(c == '?' && quantified);
            out.push_back(c);
            continue;
        }
        if (c == '{') {
            std::size_t end = 0;
            if (!check_repetition(p, i, end, f)) return false;
            out.append(p.substr(i, end - i + 1));
            i = end;
            after_quantifier = true;
            continue;
        }
        out.push_back(c);
    }
    if (in_class) return f.invalid("Unclosed character class", p.size() - 1);
    return true;
}

}  // namespace

std::string refusal(std::string_view pattern, const Error& error) {
    return std::string(error.unsupported() ? "unsupported" : "invalid") + " regular expression '" +
           std::string(pattern) + "': " + error.detail;
}

std::optional<std::string> translate_java(std::string_view pattern, Error* error) {
    std::string out;
    Failure f{error};
    if (!translate(pattern, out, f)) return std::nullopt;
    return out;
}

std::unique_ptr<RE2> compile_java(std::string_view pattern, Error* error, JavaOptions options) {
    auto translated = translate_java(pattern, error);
    if (!translated) return nullptr;
    RE2::Options opts;
    opts.set_log_errors(false);
    opts.set_encoding(RE2::Options::EncodingUTF8);
    opts.set_case_sensitive(!options.case_insensitive);
    auto re = std::make_unique<RE2>(*translated, opts);
    if (!re->ok()) {
        if (error) {
            if (re2_limit(re->error_code()))
                *error = {Error::Kind::Unsupported,
                          re->error() +
                              ": beyond RE2's limits (a repetition count is at most 1000), "
                              "which cdcd matches with"};
            else
                *error = {Error::Kind::Invalid, re->error()};
        }
        return nullptr;
    }
    return re;
}

}  // namespace cdcd::regex
