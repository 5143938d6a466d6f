#include "pipeline/transform/syntax/parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "text/ascii.h"

namespace cdcd::transform {

namespace {

std::string upper(std::string_view s) {
    std::string r(s);
    for (char& c : r) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return r;
}

// Words that cannot be column names or aliases without backticks.
bool reserved(const std::string& u) {
    static const char* const kWords[] = {
        "AND",  "OR",       "NOT",     "IS",        "NULL",       "TRUE",   "FALSE",
        "CASE", "WHEN",     "THEN",    "ELSE",      "END",        "AS",     "IN",
        "LIKE", "ESCAPE",   "BETWEEN", "SIMILAR",   "DISTINCT",   "FROM",   "FOR",
        "CAST", "INTERVAL", "UNKNOWN", "SYMMETRIC", "ASYMMETRIC", "PLACING"};
    return std::any_of(std::begin(kWords), std::end(kWords), [&](const char* w) { return u == w; });
}

const char* const kTimeUnits[] = {"YEAR",
                                  "QUARTER",
                                  "MONTH",
                                  "WEEK",
                                  "DAY",
                                  "HOUR",
                                  "MINUTE",
                                  "SECOND",
                                  "MILLISECOND",
                                  "MICROSECOND",
                                  "NANOSECOND",
                                  "DOY",
                                  "DOW",
                                  "EPOCH",
                                  "DECADE",
                                  "CENTURY",
                                  "MILLENNIUM",
                                  "ISODOW",
                                  "ISOYEAR",
                                  "SQL_TSI_YEAR",
                                  "SQL_TSI_QUARTER",
                                  "SQL_TSI_MONTH",
                                  "SQL_TSI_WEEK",
                                  "SQL_TSI_DAY",
                                  "SQL_TSI_HOUR",
                                  "SQL_TSI_MINUTE",
                                  "SQL_TSI_SECOND",
                                  "FRAC_SECOND",
                                  "SQL_TSI_FRAC_SECOND",
                                  "DAYOFWEEK",
                                  "DAYOFYEAR"};

bool is_time_unit(const std::string& u) {
    return std::any_of(std::begin(kTimeUnits), std::end(kTimeUnits),
                       [&](const char* w) { return u == w; });
}

class Parser {
  public:
    explicit Parser(std::string_view text) : text_(text), toks_(tokenize(text)) {}

    ExprPtr expression_only() {
        auto e = expr();
        if (cur().kind != TokenKind::End) fail("unexpected '" + cur().text + "'");
        return e;
    }

    std::vector<ProjectionItem> projection() {
        std::vector<ProjectionItem> items;
        while (true) {
            ProjectionItem item;
            item.pos = cur().pos;
            if (is_sym("*")) {
                next();
                item.star = true;
                item.name = "*";
                item.text = "*";
            } else {
                item.expr = expr();
                int end = item.expr->end;
                if (is_kw("AS")) {
                    next();
                    item.name = alias();
                    end = prev_end_;
                } else if (cur().kind == TokenKind::QuotedIdentifier ||
                           (cur().kind == TokenKind::Identifier && !reserved(upper(cur().text)))) {
                    item.name = alias();
                    end = prev_end_;
                } else if (item.expr->kind == ExprKind::Column) {
                    item.name = item.expr->name;
                } else {
                    item.name = "EXPR$" + std::to_string(items.size());
                }
                item.text = std::string(text_.substr(item.pos, end - item.pos));
            }
            items.push_back(std::move(item));
            if (is_sym(",")) {
                next();
                continue;
            }
            if (cur().kind != TokenKind::End) fail("unexpected '" + cur().text + "' in projection");
            break;
        }
        return items;
    }

  private:
    // One level of the parser's recursion (see kMaxExpressionDepth), held while it is parsed.
    class Nesting {
      public:
        Nesting(Parser& p, int pos) : p_(p) {
            if (p_.depth_ >= kMaxExpressionDepth) p_.too_deep(pos);
            ++p_.depth_;
        }
        ~Nesting() { --p_.depth_; }
        Nesting(const Nesting&) = delete;
        Nesting& operator=(const Nesting&) = delete;

      private:
        Parser& p_;
    };

    [[noreturn]] void too_deep(int pos) const {
        fail_at(pos, "expression nesting exceeds the limit of " +
                         std::to_string(kMaxExpressionDepth) +
                         " levels (each parenthesis, function call, CASE, NOT, sign and chained "
                         "operator adds one; a long OR chain is better written as IN (...))");
    }
    // Sets e's height from its arguments. Chains of operators are parsed by loops, not by
    // recursion, so their height is bounded here: the compiler and evaluation recurse over it.
    void set_height(Expr& e) const {
        int h = 0;
        for (const auto& a : e.args) h = std::max(h, a->height);
        e.height = h + 1;
        if (e.height > kMaxExpressionDepth) too_deep(e.args.back()->pos);
    }

    const Token& cur() const { return toks_[i_]; }
    const Token& peek(int k = 1) const { return toks_[std::min(i_ + k, toks_.size() - 1)]; }
    void next() {
        prev_end_ = toks_[i_].end;
        if (i_ + 1 < toks_.size()) ++i_;
    }
    [[noreturn]] void fail(const std::string& msg) const { throw SyntaxError(cur().pos, msg); }
    [[noreturn]] void fail_at(int pos, const std::string& msg) const {
        throw SyntaxError(pos, msg);
    }
    bool is_sym(const char* s) const { return cur().kind == TokenKind::Symbol && cur().text == s; }
    bool is_kw(const char* k) const {
        return cur().kind == TokenKind::Identifier && ascii::iequals(cur().text, k);
    }
    bool peek_kw(int k, const char* w) const {
        return peek(k).kind == TokenKind::Identifier && ascii::iequals(peek(k).text, w);
    }
    [[gnu::noinline]] void expect_sym(const char* s) {
        if (!is_sym(s)) fail(std::string("expected '") + s + "'" + found());
        next();
    }
    [[gnu::noinline]] void expect_kw(const char* k) {
        if (!is_kw(k)) fail(std::string("expected ") + k + found());
        next();
    }
    // The optional `FROM x` / `FOR x` parts of SUBSTRING, POSITION and OVERLAY: false when the
    // keyword is not next.
    bool optional_keyword_arg(const char* kw, std::vector<ExprPtr>& args) {
        if (!is_kw(kw)) return false;
        next();
        args.push_back(expr());
        return true;
    }
    // The `, x` arguments up to the closing parenthesis.
    void comma_args(std::vector<ExprPtr>& args) {
        while (is_sym(",")) {
            next();
            args.push_back(expr());
        }
    }
    std::string found() const {
        return cur().kind == TokenKind::End ? " but the expression ended"
                                            : " but found '" + cur().text + "'";
    }
    std::string alias() {
        if (cur().kind == TokenKind::QuotedIdentifier ||
            (cur().kind == TokenKind::Identifier && !reserved(upper(cur().text)))) {
            std::string n = cur().text;
            next();
            return n;
        }
        fail("expected an alias" + found());
    }

    ExprPtr make(ExprKind kind, int pos) {
        auto e = std::make_unique<Expr>();
        e->kind = kind;
        e->pos = pos;
        e->end = prev_end_;
        return e;
    }
    [[gnu::noinline]] ExprPtr call(std::string name, int pos, std::vector<ExprPtr> args) {
        auto e = std::make_unique<Expr>();
        e->kind = ExprKind::Call;
        e->name = std::move(name);
        e->pos = pos;
        e->args = std::move(args);
        e->end = prev_end_;
        set_height(*e);
        return e;
    }
    ExprPtr unary(std::string name, ExprPtr a) {
        int pos = a->pos;
        std::vector<ExprPtr> v;
        v.push_back(std::move(a));
        return call(std::move(name), pos, std::move(v));
    }
    [[gnu::noinline]] ExprPtr binary(std::string name, int pos, ExprPtr a, ExprPtr b) {
        std::vector<ExprPtr> v;
        v.push_back(std::move(a));
        v.push_back(std::move(b));
        return call(std::move(name), pos, std::move(v));
    }
    [[gnu::noinline]] ExprPtr negate(ExprPtr e, int pos) {
        std::vector<ExprPtr> v;
        v.push_back(std::move(e));
        return call("NOT", pos, std::move(v));
    }

    ExprPtr expr() {
        Nesting level(*this, cur().pos);
        return or_expr();
    }

    ExprPtr or_expr() {
        auto l = and_expr();
        while (is_kw("OR")) {
            next();
            auto r = and_expr();
            int pos = l->pos;
            l = binary("OR", pos, std::move(l), std::move(r));
        }
        return l;
    }

    ExprPtr and_expr() {
        auto l = not_expr();
        while (is_kw("AND")) {
            next();
            auto r = not_expr();
            int pos = l->pos;
            l = binary("AND", pos, std::move(l), std::move(r));
        }
        return l;
    }

    ExprPtr not_expr() {
        if (is_kw("NOT")) {
            int pos = cur().pos;
            Nesting level(*this, pos);
            next();
            auto e = not_expr();
            return negate(std::move(e), pos);
        }
        return comparison();
    }

    ExprPtr comparison() {
        auto l = additive();
        while (true) {
            int pos = l->pos;
            if (cur().kind == TokenKind::Symbol &&
                (cur().text == "=" || cur().text == "<>" || cur().text == "!=" ||
                 cur().text == "<" || cur().text == "<=" || cur().text == ">" ||
                 cur().text == ">=")) {
                std::string op = cur().text == "!=" ? "<>" : cur().text;
                next();
                auto r = additive();
                l = binary(std::move(op), pos, std::move(l), std::move(r));
                continue;
            }
            if (!predicate(l, pos)) break;
        }
        return l;
    }

    // IS ..., [NOT] BETWEEN, LIKE, SIMILAR TO or IN applied to `l`: false when none follows.
    // Out of line, so that its locals do not weigh on each level of nesting.
    [[gnu::noinline]] bool predicate(ExprPtr& l, int pos) {
        if (is_kw("IS")) {
            next();
            bool neg = false;
            if (is_kw("NOT")) {
                neg = true;
                next();
            }
            std::string what;
            if (is_kw("NULL") || is_kw("TRUE") || is_kw("FALSE") || is_kw("UNKNOWN")) {
                what = upper(cur().text);
                next();
                l = call(std::string(neg ? "IS NOT " : "IS ") + what, pos, one(std::move(l)));
            } else if (is_kw("DISTINCT")) {
                next();
                expect_kw("FROM");
                auto r = additive();
                l = binary(neg ? "IS NOT DISTINCT FROM" : "IS DISTINCT FROM", pos, std::move(l),
                           std::move(r));
            } else {
                fail("expected NULL, TRUE, FALSE, UNKNOWN or DISTINCT FROM after IS" + found());
            }
            return true;
        }
        bool neg = false;
        if (is_kw("NOT") && (peek_kw(1, "BETWEEN") || peek_kw(1, "LIKE") || peek_kw(1, "IN") ||
                             peek_kw(1, "SIMILAR"))) {
            neg = true;
            next();
        }
        if (is_kw("BETWEEN")) {
            next();
            bool symmetric = false;
            if (is_kw("SYMMETRIC")) {
                symmetric = true;
                next();
            } else if (is_kw("ASYMMETRIC")) {
                next();
            }
            auto lo = additive();
            expect_kw("AND");
            auto hi = additive();
            std::vector<ExprPtr> v;
            v.push_back(std::move(l));
            v.push_back(std::move(lo));
            v.push_back(std::move(hi));
            l = call(symmetric ? "BETWEEN SYMMETRIC" : "BETWEEN", pos, std::move(v));
        } else if (is_kw("LIKE") || is_kw("SIMILAR")) {
            bool similar = is_kw("SIMILAR");
            next();
            if (similar) expect_kw("TO");
            std::vector<ExprPtr> v;
            v.push_back(std::move(l));
            v.push_back(additive());
            if (is_kw("ESCAPE")) {
                next();
                v.push_back(additive());
            }
            l = call(similar ? "SIMILAR TO" : "LIKE", pos, std::move(v));
        } else if (is_kw("IN")) {
            next();
            expect_sym("(");
            std::vector<ExprPtr> v;
            v.push_back(std::move(l));
            if (is_sym(")")) fail("IN needs at least one value");
            while (true) {
                v.push_back(expr());
                if (is_sym(",")) {
                    next();
                    continue;
                }
                break;
            }
            expect_sym(")");
            l = call("IN", pos, std::move(v));
        } else {
            if (neg) fail("expected BETWEEN, LIKE, IN or SIMILAR after NOT");
            return false;
        }
        if (neg) l = negate(std::move(l), pos);
        return true;
    }

    std::vector<ExprPtr> one(ExprPtr a) {
        std::vector<ExprPtr> v;
        v.push_back(std::move(a));
        return v;
    }

    ExprPtr additive() {
        auto l = multiplicative();
        while (is_sym("+") || is_sym("-")) {
            std::string op = cur().text;
            next();
            auto r = multiplicative();
            int pos = l->pos;
            l = binary(std::move(op), pos, std::move(l), std::move(r));
        }
        return l;
    }

    ExprPtr multiplicative() {
        auto l = unary_expr();
        while (is_sym("*") || is_sym("/") || is_sym("%") || is_sym("||")) {
            std::string op = cur().text;
            next();
            auto r = unary_expr();
            int pos = l->pos;
            l = binary(std::move(op), pos, std::move(l), std::move(r));
        }
        return l;
    }

    ExprPtr unary_expr() {
        if (is_sym("-") || is_sym("+")) {
            bool minus = is_sym("-");
            int pos = cur().pos;
            Nesting level(*this, pos);
            next();
            // Fold the sign into numeric literals so that -2147483648 stays an INT.
            if (minus && (cur().kind == TokenKind::Integer || cur().kind == TokenKind::Decimal ||
                          cur().kind == TokenKind::Double)) {
                auto e = primary_postfix();
                if (e->kind == ExprKind::Literal && e->name.front() != '-') {
                    e->name = "-" + e->name;
                    e->pos = pos;
                    return e;
                }
                return call("NEGATE", pos, one(std::move(e)));
            }
            auto e = unary_expr();
            if (!minus) return e;
            if (e->kind == ExprKind::Interval) {
                e->interval_value = -e->interval_value;
                e->pos = pos;
                return e;
            }
            auto c = call("NEGATE", pos, one(std::move(e)));
            return c;
        }
        return primary_postfix();
    }

    ExprPtr primary_postfix() {
        auto e = primary();
        while (is_sym("[")) {
            next();
            auto idx = expr();
            expect_sym("]");
            int pos = e->pos;
            e = binary("ITEM", pos, std::move(e), std::move(idx));
        }
        return e;
    }

    ExprPtr literal(LiteralKind k, std::string text, int pos) {
        auto e = std::make_unique<Expr>();
        e->kind = ExprKind::Literal;
        e->literal = k;
        e->name = std::move(text);
        e->pos = pos;
        e->end = prev_end_;
        return e;
    }

    ExprPtr primary() {
        const Token& t = cur();
        int pos = t.pos;
        switch (t.kind) {
            case TokenKind::Integer: {
                std::string s = t.text;
                next();
                return literal(LiteralKind::Integer, s, pos);
            }
            case TokenKind::Decimal: {
                std::string s = t.text;
                next();
                return literal(LiteralKind::Decimal, s, pos);
            }
            case TokenKind::Double: {
                std::string s = t.text;
                next();
                return literal(LiteralKind::Double, s, pos);
            }
            case TokenKind::String: {
                std::string s = t.text;
                next();
                // Adjacent string literals concatenate (SQL standard).
                while (cur().kind == TokenKind::String) {
                    s += cur().text;
                    next();
                }
                return literal(LiteralKind::String, s, pos);
            }
            case TokenKind::QuotedIdentifier: {
                auto e = std::make_unique<Expr>();
                e->kind = ExprKind::Column;
                e->name = t.text;
                e->pos = pos;
                next();
                e->end = prev_end_;
                return e;
            }
            case TokenKind::Symbol:
                if (t.text == "(") {
                    Nesting level(*this, pos);  // counted here, to report the parenthesis
                    next();
                    auto e = or_expr();
                    expect_sym(")");
                    e->pos = pos;
                    e->end = prev_end_;
                    return e;
                }
                fail("unexpected '" + t.text + "'");
            case TokenKind::End:
                fail("unexpected end of expression");
            case TokenKind::Identifier:
                break;
        }
        std::string u = upper(t.text);
        if (u == "NULL") {
            next();
            return literal(LiteralKind::Null, "NULL", pos);
        }
        if (u == "TRUE" || u == "FALSE") {
            next();
            return literal(LiteralKind::Boolean, u, pos);
        }
        if ((u == "DATE" || u == "TIME" || u == "TIMESTAMP") && peek().kind == TokenKind::String) {
            next();
            std::string s = cur().text;
            next();
            return literal(u == "DATE"   ? LiteralKind::Date
                           : u == "TIME" ? LiteralKind::Time
                                         : LiteralKind::Timestamp,
                           s, pos);
        }
        if (u == "INTERVAL") return interval();
        if (u == "CASE") return case_expr();
        if ((u == "CAST" || u == "TRY_CAST") && peek().kind == TokenKind::Symbol &&
            peek().text == "(")
            return cast(u);
        if ((u == "ARRAY" || u == "MAP") && peek().kind == TokenKind::Symbol &&
            peek().text == "[") {
            next();
            next();
            auto args = list_until("]");
            return call(u, pos, std::move(args));
        }
        bool is_call = peek().kind == TokenKind::Symbol && peek().text == "(";
        if (!is_call) {
            static const char* const kNiladic[] = {"LOCALTIME", "LOCALTIMESTAMP", "CURRENT_TIME",
                                                   "CURRENT_DATE", "CURRENT_TIMESTAMP"};
            for (const char* w : kNiladic) {
                if (u == w) {
                    next();
                    return call(u, pos, {});
                }
            }
            if (reserved(u)) fail("unexpected keyword " + u);
            auto e = std::make_unique<Expr>();
            e->kind = ExprKind::Column;
            e->name = t.text;
            e->pos = pos;
            next();
            e->end = prev_end_;
            return e;
        }
        next();  // name
        next();  // (
        if (auto special = keyword_call(u, pos)) return special;
        auto args = list_until(")");
        return call(u, pos, std::move(args));
    }

    // The calls whose arguments are not a plain list (EXTRACT(unit FROM x), SUBSTRING(s FROM i
    // FOR n), TRIM, ...), or null. Out of line, as the other rare forms, so that their locals do
    // not weigh on the stack frame of each level of nesting (see kMaxExpressionDepth).
    [[gnu::noinline]] ExprPtr keyword_call(const std::string& u, int pos) {
        if (u == "EXTRACT") {
            auto unit = symbol();
            expect_kw("FROM");
            auto v = expr();
            expect_sym(")");
            std::vector<ExprPtr> args;
            args.push_back(std::move(unit));
            args.push_back(std::move(v));
            return call(u, pos, std::move(args));
        }
        // TIMESTAMP_DIFF is an ordinary function: its unit is a string ('SECOND').
        if (u == "TIMESTAMPADD" || u == "TIMESTAMPDIFF") {
            std::vector<ExprPtr> args;
            args.push_back(symbol());
            comma_args(args);
            expect_sym(")");
            return call(u, pos, std::move(args));
        }
        if (u == "SUBSTRING" || u == "SUBSTR") {
            std::vector<ExprPtr> args;
            args.push_back(expr());
            if (optional_keyword_arg("FROM", args)) {
                optional_keyword_arg("FOR", args);
            } else {
                comma_args(args);
            }
            expect_sym(")");
            return call(u, pos, std::move(args));
        }
        if (u == "POSITION") {
            std::vector<ExprPtr> args;
            args.push_back(additive());
            expect_kw("IN");
            args.push_back(expr());
            optional_keyword_arg("FROM", args);
            expect_sym(")");
            return call(u, pos, std::move(args));
        }
        if (u == "OVERLAY") {
            std::vector<ExprPtr> args;
            args.push_back(expr());
            expect_kw("PLACING");
            args.push_back(expr());
            expect_kw("FROM");
            args.push_back(expr());
            optional_keyword_arg("FOR", args);
            expect_sym(")");
            return call(u, pos, std::move(args));
        }
        if (u == "TRIM") return trim(pos);
        return nullptr;
    }

    [[gnu::noinline]] ExprPtr trim(int pos) {
        // TRIM([[BOTH|LEADING|TRAILING] [chars] FROM] s)
        std::string spec = "BOTH";
        bool has_spec = false;
        if (is_kw("BOTH") || is_kw("LEADING") || is_kw("TRAILING")) {
            spec = upper(cur().text);
            has_spec = true;
            next();
        }
        ExprPtr chars, source;
        if (is_kw("FROM")) {
            next();
            source = expr();
        } else {
            auto first = expr();
            if (is_kw("FROM")) {
                next();
                chars = std::move(first);
                source = expr();
            } else {
                if (has_spec) fail("expected FROM in TRIM" + found());
                source = std::move(first);
            }
        }
        expect_sym(")");
        auto sym = std::make_unique<Expr>();
        sym->kind = ExprKind::Symbol;
        sym->name = spec;
        sym->pos = pos;
        std::vector<ExprPtr> args;
        args.push_back(std::move(sym));
        if (!chars) chars = literal(LiteralKind::String, " ", pos);
        args.push_back(std::move(chars));
        args.push_back(std::move(source));
        return call("TRIM", pos, std::move(args));
    }

    [[gnu::noinline]] ExprPtr symbol() {
        if (cur().kind != TokenKind::Identifier) fail("expected a time unit" + found());
        std::string u = upper(cur().text);
        if (!is_time_unit(u)) fail("unknown time unit '" + cur().text + "'");
        auto e = std::make_unique<Expr>();
        e->kind = ExprKind::Symbol;
        e->name = u;
        e->pos = cur().pos;
        next();
        e->end = prev_end_;
        return e;
    }

    std::vector<ExprPtr> list_until(const char* close) {
        std::vector<ExprPtr> args;
        if (is_sym(close)) {
            next();
            return args;
        }
        while (true) {
            args.push_back(expr());
            if (is_sym(",")) {
                next();
                continue;
            }
            expect_sym(close);
            return args;
        }
    }

    [[gnu::noinline]] ExprPtr case_expr() {
        int pos = cur().pos;
        next();
        auto e = std::make_unique<Expr>();
        e->kind = ExprKind::Case;
        e->pos = pos;
        if (!is_kw("WHEN")) {
            e->case_has_operand = true;
            e->args.push_back(expr());
        }
        if (!is_kw("WHEN")) fail("expected WHEN" + found());
        while (is_kw("WHEN")) {
            next();
            e->args.push_back(expr());
            expect_kw("THEN");
            e->args.push_back(expr());
        }
        if (is_kw("ELSE")) {
            next();
            e->case_has_else = true;
            e->args.push_back(expr());
        }
        expect_kw("END");
        e->end = prev_end_;
        set_height(*e);
        return e;
    }

    [[gnu::noinline]] ExprPtr cast(const std::string& u) {
        int pos = cur().pos;
        next();
        next();
        auto e = std::make_unique<Expr>();
        e->kind = ExprKind::Cast;
        e->pos = pos;
        e->try_cast = u == "TRY_CAST";
        e->args.push_back(expr());
        set_height(*e);
        expect_kw("AS");
        int type_start = cur().pos;
        int depth = 0;
        while (true) {
            if (cur().kind == TokenKind::End) fail("unterminated CAST");
            if (is_sym("(") || is_sym("<")) ++depth;
            if (is_sym(">")) --depth;
            if (is_sym(")")) {
                if (depth == 0) break;
                --depth;
            }
            next();
        }
        std::string type_text(text_.substr(type_start, cur().pos - type_start));
        while (!type_text.empty() && std::isspace(static_cast<unsigned char>(type_text.back())))
            type_text.pop_back();
        std::string err;
        auto type = parse_type(type_text, &err);
        if (!type)
            fail_at(type_start,
                    "unknown type '" + type_text + "'" + (err.empty() ? "" : ": " + err));
        e->cast_type = *type;
        next();
        e->end = prev_end_;
        return e;
    }

    static std::optional<DataType> parse_type(const std::string& text, std::string* err) {
        std::string u = upper(text);
        if (u == "INTEGER") return DataType::int_();
        if (u == "TEXT") return DataType::string();
        if (u == "REAL") return DataType::float_();
        if (u == "NUMERIC" || u == "DEC") return DataType::decimal(10, 0);
        if (u == "BINARY") return DataType::binary(1);
        if (u == "VARBINARY") return DataType::bytes();
        if (u == "VARCHAR") return DataType::string();
        if (u == "CHAR") return DataType::char_(1);
        // Calcite's default TIMESTAMP precision (RelDataTypeSystemImpl): CAST(x AS TIMESTAMP) is
        // TIMESTAMP(0) in Flink CDC, not the TIMESTAMP(6) of a schema's bare TIMESTAMP.
        if (u == "TIMESTAMP") return DataType::timestamp(0);
        const std::string ltz = " WITH LOCAL TIME ZONE";
        if (u.size() > ltz.size() && u.compare(u.size() - ltz.size(), ltz.size(), ltz) == 0 &&
            u.rfind("TIMESTAMP", 0) == 0) {
            std::string head = u.substr(0, u.size() - ltz.size());
            int p = 6;
            if (head != "TIMESTAMP") {
                auto open = head.find('(');
                if (open == std::string::npos) return std::nullopt;
                p = std::atoi(head.c_str() + open + 1);
            }
            return DataType::timestamp_ltz(p);
        }
        if (u.rfind("NUMERIC(", 0) == 0) u = "DECIMAL" + u.substr(7);
        if (u.rfind("INTEGER", 0) == 0) u = "INT" + u.substr(7);
        return DataType::parse(u, err);
    }

    [[gnu::noinline]] ExprPtr interval() {
        int pos = cur().pos;
        next();
        bool negative = false;
        if (is_sym("-")) {
            negative = true;
            next();
        }
        if (cur().kind != TokenKind::String && cur().kind != TokenKind::Integer)
            fail("expected an interval string" + found());
        std::string v = cur().text;
        int vpos = cur().pos;
        next();
        if (cur().kind != TokenKind::Identifier) fail("expected an interval unit" + found());
        std::string unit = upper(cur().text);
        next();
        std::string to_unit;
        if (is_kw("TO")) {
            next();
            if (cur().kind != TokenKind::Identifier) fail("expected an interval unit" + found());
            to_unit = upper(cur().text);
            next();
        }
        auto e = std::make_unique<Expr>();
        e->kind = ExprKind::Interval;
        e->pos = pos;
        std::string_view s = v;
        while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
        while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
        if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
            if (s.front() == '-') negative = !negative;
            s.remove_prefix(1);
        }
        auto num = [&](std::string_view t) -> std::int64_t {
            std::int64_t x = 0;
            auto r = std::from_chars(t.data(), t.data() + t.size(), x);
            if (r.ec != std::errc() || r.ptr != t.data() + t.size())
                fail_at(vpos, "illegal interval literal '" + v + "' for " + unit +
                                  (to_unit.empty() ? "" : " TO " + to_unit));
            return x;
        };
        auto fraction_nanos = [&](std::string_view f) -> std::int64_t {
            std::string digits(f.substr(0, 9));
            while (digits.size() < 9) digits.push_back('0');
            return num(digits);
        };
        std::int64_t value = 0;
        bool months = false;
        if (to_unit.empty()) {
            if (unit == "YEAR") {
                months = true;
                value = num(s) * 12;
            } else if (unit == "MONTH") {
                months = true;
                value = num(s);
            } else if (unit == "DAY" || unit == "HOUR" || unit == "MINUTE") {
                std::int64_t m = unit == "DAY" ? 86400000 : unit == "HOUR" ? 3600000 : 60000;
                value = num(s) * m;
            } else if (unit == "SECOND") {
                auto dot = s.find('.');
                value = num(s.substr(0, dot)) * 1000;
                if (dot != std::string_view::npos)
                    value += fraction_nanos(s.substr(dot + 1)) / 1000000;
            } else {
                fail_at(pos, "unsupported interval unit " + unit);
            }
        } else if (unit == "YEAR" && to_unit == "MONTH") {
            months = true;
            auto dash = s.find('-');
            if (dash == std::string_view::npos)
                fail_at(vpos, "illegal interval literal '" + v + "' for YEAR TO MONTH");
            value = num(s.substr(0, dash)) * 12 + num(s.substr(dash + 1));
        } else if (unit == "DAY" || unit == "HOUR" || unit == "MINUTE") {
            // DAY TO SECOND: 'd hh:mm:ss.fff'; HOUR TO SECOND: 'hh:mm:ss'; ...
            std::int64_t days = 0;
            std::string_view rest = s;
            if (unit == "DAY") {
                auto sp = rest.find(' ');
                if (to_unit == "HOUR" || to_unit == "MINUTE" || to_unit == "SECOND") {
                    if (sp == std::string_view::npos)
                        fail_at(vpos, "illegal interval literal '" + v + "'");
                    days = num(rest.substr(0, sp));
                    rest = rest.substr(sp + 1);
                } else {
                    fail_at(pos, "unsupported interval " + unit + " TO " + to_unit);
                }
            }
            std::vector<std::string_view> parts;
            std::string_view frac;
            auto dot = rest.find('.');
            if (dot != std::string_view::npos) {
                frac = rest.substr(dot + 1);
                rest = rest.substr(0, dot);
            }
            while (true) {
                auto c = rest.find(':');
                parts.push_back(rest.substr(0, c));
                if (c == std::string_view::npos) break;
                rest = rest.substr(c + 1);
            }
            // Units from the leading one down to to_unit.
            static const char* const kOrder[] = {"HOUR", "MINUTE", "SECOND"};
            static const std::int64_t kMs[] = {3600000, 60000, 1000};
            int start = unit == "DAY" ? 0 : unit == "HOUR" ? 0 : 1;
            int stop = to_unit == "HOUR" ? 0 : to_unit == "MINUTE" ? 1 : 2;
            if (static_cast<int>(parts.size()) != stop - start + 1)
                fail_at(vpos, "illegal interval literal '" + v + "'");
            value = days * 86400000;
            for (int k = start; k <= stop; ++k) value += num(parts[k - start]) * kMs[k];
            (void)kOrder;
            if (!frac.empty()) value += fraction_nanos(frac) / 1000000;
        } else {
            fail_at(pos, "unsupported interval " + unit + " TO " + to_unit);
        }
        e->interval_months = months;
        e->interval_value = negative ? -value : value;
        e->name = unit + (to_unit.empty() ? "" : " TO " + to_unit);
        e->end = prev_end_;
        return e;
    }

    std::string_view text_;
    std::vector<Token> toks_;
    std::size_t i_ = 0;
    int prev_end_ = 0;
    int depth_ = 0;  // levels of recursion entered (Nesting)
};

// Checked before the text is tokenized, so that a huge text costs nothing more than its read.
void check_length(std::string_view text) {
    if (text.size() > kMaxExpressionLength)
        throw SyntaxError(static_cast<int>(kMaxExpressionLength),
                          "expression is " + std::to_string(text.size()) +
                              " bytes long, more than the limit of " +
                              std::to_string(kMaxExpressionLength) + " bytes");
}

}  // namespace

ExprPtr parse_expression(std::string_view text) {
    check_length(text);
    Parser p(text);
    return p.expression_only();
}

std::vector<ProjectionItem> parse_projection(std::string_view text) {
    check_length(text);
    Parser p(text);
    return p.projection();
}

}  // namespace cdcd::transform
