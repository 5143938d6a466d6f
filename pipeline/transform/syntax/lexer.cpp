#include "pipeline/transform/syntax/lexer.h"

#include <cctype>

namespace cdcd::transform {

namespace {

bool ident_start(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || (c & 0x80);
}
bool ident_part(char c) {
    return ident_start(c) || std::isdigit(static_cast<unsigned char>(c));
}

}  // namespace

std::vector<Token> tokenize(std::string_view s) {
    std::vector<Token> out;
    std::size_t i = 0;
    const std::size_t n = s.size();
    while (i < n) {
        char c = s[i];
        if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
            continue;
        }
        if (c == '-' && i + 1 < n && s[i + 1] == '-') {  // line comment
            while (i < n && s[i] != '\n') ++i;
            continue;
        }
        Token t;
        t.pos = static_cast<int>(i);
        if (ident_start(c)) {
            std::size_t j = i;
            while (j < n && ident_part(s[j])) ++j;
            t.kind = TokenKind::Identifier;
            t.text = std::string(s.substr(i, j - i));
            i = j;
        } else if (c == '`') {
            std::size_t j = i + 1;
            std::string text;
            while (true) {
                if (j >= n) throw SyntaxError(t.pos, "unterminated quoted identifier");
                if (s[j] == '`') {
                    if (j + 1 < n && s[j + 1] == '`') {
                        text.push_back('`');
                        j += 2;
                        continue;
                    }
                    break;
                }
                text.push_back(s[j++]);
            }
            if (text.empty()) throw SyntaxError(t.pos, "empty quoted identifier");
            t.kind = TokenKind::QuotedIdentifier;
            t.text = std::move(text);
            i = j + 1;
        } else if (c == '\'') {
            std::size_t j = i + 1;
            std::string text;
            while (true) {
                if (j >= n) throw SyntaxError(t.pos, "unterminated string literal");
                if (s[j] == '\'') {
                    if (j + 1 < n && s[j + 1] == '\'') {
                        text.push_back('\'');
                        j += 2;
                        continue;
                    }
                    break;
                }
                text.push_back(s[j++]);
            }
            t.kind = TokenKind::String;
            t.text = std::move(text);
            i = j + 1;
        } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                   (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
            std::size_t j = i;
            bool dot = false, exp = false;
            while (j < n && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
            if (j < n && s[j] == '.') {
                dot = true;
                ++j;
                while (j < n && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
            }
            if (j < n && (s[j] == 'e' || s[j] == 'E')) {
                std::size_t k = j + 1;
                if (k < n && (s[k] == '+' || s[k] == '-')) ++k;
                if (k < n && std::isdigit(static_cast<unsigned char>(s[k]))) {
                    exp = true;
                    j = k;
                    while (j < n && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
                }
            }
            if (j < n && ident_start(s[j]))
                throw SyntaxError(static_cast<int>(j), "malformed number");
            t.kind = exp ? TokenKind::Double : dot ? TokenKind::Decimal : TokenKind::Integer;
            t.text = std::string(s.substr(i, j - i));
            i = j;
        } else {
            static const char* const kTwo[] = {"<>", "<=", ">=", "!=", "||"};
            t.kind = TokenKind::Symbol;
            bool matched = false;
            for (const char* op : kTwo) {
                if (s.substr(i, 2) == op) {
                    t.text = op;
                    i += 2;
                    matched = true;
                    break;
                }
            }
            if (!matched) {
                if (std::string_view("+-*/%=<>(),.[]").find(c) == std::string_view::npos)
                    throw SyntaxError(t.pos, std::string("unexpected character '") + c + "'");
                t.text = std::string(1, c);
                ++i;
            }
        }
        t.end = static_cast<int>(i);
        out.push_back(std::move(t));
    }
    Token end;
    end.kind = TokenKind::End;
    end.pos = end.end = static_cast<int>(n);
    out.push_back(end);
    return out;
}

}  // namespace cdcd::transform
