// Limits that keep hostile expressions from exhausting the stack or memory: nesting deeper than
// kMaxExpressionDepth and text longer than kMaxExpressionLength are syntax errors that name the
// limit and the offset where it was passed; wide expressions stay flat; a filter cannot expand
// computed columns into more than kMaxCompiledNodes nodes.
#include <pthread.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <functional>

#include "pipeline/data/field_format.h"
#include "pipeline/transform/compile/compiler.h"
#include "pipeline/transform/compile/types.h"
#include "pipeline/transform/syntax/parser.h"

using namespace cdcd;
using namespace cdcd::transform;

namespace {

std::string repeat(std::string_view s, std::size_t n) {
    std::string r;
    r.reserve(s.size() * n);
    for (std::size_t i = 0; i < n; ++i) r += s;
    return r;
}

// `levels` times `open`, then `inner`, then `levels` times `close`.
std::string nested(std::string_view open, std::string_view inner, std::string_view close,
                   std::size_t levels) {
    return repeat(open, levels) + std::string(inner) + repeat(close, levels);
}

// `term` `n` times, joined by `op`.
std::string chain(std::string_view term, std::string_view op, std::size_t n) {
    std::string r(term);
    for (std::size_t i = 1; i < n; ++i) r += std::string(op) + std::string(term);
    return r;
}

SyntaxError syntax_error(const std::string& text) {
    try {
        parse_expression(text);
    } catch (const SyntaxError& e) {
        return e;
    }
    FAIL("no syntax error");
    throw;
}

const Schema& schema() {
    static const Schema s = SchemaBuilder()
                                .column("a", DataType::int_().not_null())
                                .column("s", DataType::string())
                                .primary_key({"a"})
                                .build();
    return s;
}

// Parses, compiles and evaluates against the row (a=1, s='x'), printed as the values sink does;
// "COMPILE: ..." when the expression does not type-check.
std::string evaluate(const std::string& text, const Scope* scope = nullptr) {
    auto expr = parse_expression(text);
    Scope plain{&schema(), nullptr, nullptr, Zone::utc().get()};
    NodePtr node;
    try {
        node = compile(*expr, scope ? *scope : plain);
    } catch (const CompileError& e) {
        return std::string("COMPILE: ") + e.what();
    }
    RowBuilder rb(2);
    rb.set_long(0, 1);
    rb.set_string(1, "x");
    Row row = std::move(rb).build();
    EvalContext ctx;
    ctx.row = row.view();
    ctx.zone = Zone::utc().get();
    Datum d = node->eval(ctx);
    RowBuilder out(1);
    write_field(out, 0, d, node->type);
    Row r = std::move(out).build();
    return format_field(r.view(), 0, node->type);
}

// Runs `f` on a thread with a stack of `bytes`.
void on_small_stack(std::size_t bytes, std::function<void()> f) {
    pthread_attr_t attr;
    REQUIRE(pthread_attr_init(&attr) == 0);
    REQUIRE(pthread_attr_setstacksize(&attr, bytes) == 0);
    pthread_t t;
    auto run = [](void* p) -> void* {
        (*static_cast<std::function<void()>*>(p))();
        return nullptr;
    };
    REQUIRE(pthread_create(&t, &attr, run, &f) == 0);
    pthread_join(t, nullptr);
    pthread_attr_destroy(&attr);
}

// Every construct that nests: each level of it adds one to the depth.
struct Construct {
    const char* open;
    const char* inner;
    const char* close;
    const char* value_at_limit;  // what the deepest accepted nesting evaluates to
};

const std::vector<Construct>& constructs() {
    static const std::vector<Construct> all = {
        {"(", "1", ")", "1"},
        {"NOT ", "TRUE", "", "true"},  // an even number of NOTs
        {"- ", "a", "", "1"},          // and of signs
        {"ABS(", "a", ")", "1"},
        {"COALESCE(s, ", "a", ")", "COMPILE: *"},
        {"CASE WHEN a = 1 THEN ", "a", " END", "1"},
        {"CASE a WHEN 1 THEN 2 ELSE ", "a", " END", "2"},
        {"CAST(", "a", " AS BIGINT)", "1"},
        {"ARRAY[", "a", "]", ""},
        {"MAP[1, ", "a", "]", ""},
        {"ROW(", "a", ")", ""},
        {"ARRAY[1, 2][", "1", "]", "1"},
        {"a IN (", "1", ")", "false"},  // 1 is not TRUE: Java equality across types
        {"(a BETWEEN 0 AND ", "2", ")", "COMPILE: *"},
        {"SUBSTRING(s FROM ", "1", ")", "COMPILE: *"},
        {"TRIM(BOTH ' ' FROM ", "s", ")", "x"},
        {"UPPER(", "s", ")", "X"},
    };
    return all;
}

}  // namespace

TEST_CASE("nesting one level past the limit is a syntax error at the level that passed it") {
    // A parenthesis adds one level to the expression around it: 255 fit, the 256th does not.
    const int fit = kMaxExpressionDepth - 1;
    CHECK(evaluate(nested("(", "a", ")", fit)) == "1");
    auto e = syntax_error(nested("(", "a", ")", fit + 1));
    CHECK(e.pos == fit);  // the parenthesis that opens level 257
    CHECK_THAT(e.what(), Catch::Contains("expression nesting exceeds the limit of 256 levels"));
}

TEST_CASE("every nesting construct is bounded and its deepest accepted form runs on half a stack") {
    const auto started = std::chrono::steady_clock::now();
    for (const auto& c : constructs()) {
        INFO(c.open << c.inner << c.close);
        auto e = syntax_error(nested(c.open, c.inner, c.close, 2000));
        CHECK_THAT(e.what(), Catch::Contains("limit of 256 levels"));
        CHECK(e.pos < static_cast<int>(kMaxExpressionDepth * std::string_view(c.open).size() + 32));

        // 254 levels: the innermost CASE or index adds a level of its own.
        std::string deepest = nested(c.open, c.inner, c.close, kMaxExpressionDepth - 2);
        std::string value;
        // Half the stack a thread gets by default. Measured: parsing, compiling and evaluating
        // the deepest of these take 512 KiB at most, 2.2 MiB under ASan.
        on_small_stack(4 << 20, [&] { value = evaluate(deepest); });
        std::string expected = c.value_at_limit;
        if (expected.empty()) {
            CHECK(!value.empty());
        } else if (expected.back() == '*') {
            CHECK_THAT(value, Catch::StartsWith(expected.substr(0, expected.size() - 1)));
        } else {
            CHECK(value == expected);
        }
    }
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(30));
}

TEST_CASE("each operator of a chain is a level: long chains fail at the operand past the limit") {
    // `a + a + ... + a` is a left-deep tree: 256 operands are 256 levels.
    CHECK(evaluate(chain("a", " + ", kMaxExpressionDepth)) == "256");
    auto e = syntax_error(chain("a", " + ", kMaxExpressionDepth + 1));
    CHECK(e.pos == 4 * kMaxExpressionDepth);  // the 257th `a`
    CHECK_THAT(e.what(), Catch::Contains("limit of 256 levels"));

    for (const char* op : {" OR ", " AND ", " = ", " || ", " * ", " - ", " IS DISTINCT FROM "}) {
        INFO(op);
        auto text = chain("a", op, 3000);
        REQUIRE(text.size() <= kMaxExpressionLength);
        CHECK_THAT(syntax_error(text).what(), Catch::Contains("limit of 256 levels"));
    }
    CHECK(evaluate(chain("a = 2", " OR ", 200) + " OR a = 1") == "true");
}

TEST_CASE("text longer than 64 KiB is a syntax error at the offset of the limit") {
    std::string fits = "'" + std::string(kMaxExpressionLength - 2, 'x') + "'";
    REQUIRE(fits.size() == kMaxExpressionLength);
    CHECK(parse_expression(fits)->name.size() == kMaxExpressionLength - 2);
    CHECK(parse_projection(fits).size() == 1);

    auto e = syntax_error(fits + " ");
    CHECK(e.pos == static_cast<int>(kMaxExpressionLength));
    CHECK(std::string(e.what()) ==
          "expression is 65537 bytes long, more than the limit of 65536 bytes");
    CHECK_THROWS_AS(parse_projection(chain("a", "+", 100000)), SyntaxError);
}

TEST_CASE("wide expressions are flat: long IN lists and argument lists and CASE and projections") {
    CHECK(evaluate("a IN (" + chain("2", ", ", 20000) + ", 1)") == "true");
    CHECK(evaluate("CHAR_LENGTH(CONCAT(" + chain("s", ", ", 20000) + "))") == "20000");
    CHECK(evaluate("CASE " + repeat("WHEN a = 2 THEN 0 ", 3000) + "ELSE 7 END") == "7");
    CHECK(parse_projection(chain("a", ", ", 20000)).size() == 20000);
}

TEST_CASE("a filter cannot expand computed columns past the compiled node limit") {
    // x is 1,001 nodes: a filter that refers to it 100 times compiles about 100,000 nodes; 200
    // times would be about 200,000, past the limit, and is refused before it is built.
    ProjectionItem x;
    x.name = "x";
    x.expr = parse_expression("CONCAT(" + chain("s", ", ", 1000) + ")");
    std::vector<std::pair<std::string, const Expr*>> computed{{"x", x.expr.get()}};
    Scope scope{&schema(), nullptr, &computed, Zone::utc().get()};
    CHECK(evaluate("CHAR_LENGTH(CONCAT(" + chain("x", ", ", 100) + "))", &scope) == "100000");
    CHECK_THAT(evaluate("CHAR_LENGTH(CONCAT(" + chain("x", ", ", 200) + "))", &scope),
               Catch::StartsWith("COMPILE: expression expands to more than 131072 nodes"));
}
