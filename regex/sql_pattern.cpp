#include "regex/sql_pattern.h"

#include <cctype>

namespace cdcd::regex {

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

std::string quote(char c) {
    std::string s;
    if (!std::isalnum(static_cast<unsigned char>(c)) && !(c & 0x80)) s.push_back('\\');
    s.push_back(c);
    return s;
}

}  // namespace

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

}  // namespace cdcd::regex
