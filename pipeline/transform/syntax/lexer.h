#pragma once
// Tokens of Flink CDC's transform SQL (Calcite with Lex.JAVA: backtick-quoted identifiers, case
// kept, '' escapes a quote inside a string literal).
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cdcd::transform {

enum class TokenKind {
    Identifier,
    QuotedIdentifier,
    Integer,
    Decimal,
    Double,
    String,
    Symbol,
    End
};

struct Token {
    TokenKind kind = TokenKind::End;
    std::string text;  // identifier/string content (unescaped), number text, or the symbol
    int pos = 0;       // 0-based offset in the source
    int end = 0;
};

/// A syntax error at a 0-based offset of the expression text.
struct SyntaxError : std::runtime_error {
    SyntaxError(int pos, const std::string& message) : std::runtime_error(message), pos(pos) {}
    int pos;
};

std::vector<Token> tokenize(std::string_view text);

}  // namespace cdcd::transform
