// The expectations of Flink CDC's runtime function unit tests (flink-cdc-runtime/src/test/java/
// org/apache/flink/cdc/runtime/functions/impl/*FunctionsTest.java), each Java assertion written
// as the transform expression that reaches the asserted Java method, with the value Flink's
// values sink would print. Data and translation rules: flink_functions/README.md.
//
// known_differences.txt lists the rows cdcd does not yet match. The list is strict: a listed row
// that passes fails the test (remove it from the list), as does an unlisted row that fails.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "pipeline/data/field_format.h"
#include "pipeline/transform/compile/compiler.h"
#include "pipeline/transform/compile/types.h"
#include "pipeline/transform/syntax/parser.h"
#include "tests/unit/pipeline/transform/one_row_eval.h"

using namespace cdcd;
using namespace cdcd::transform;
namespace fs = std::filesystem;

namespace {

fs::path data_dir() {
    // ctest sets CDCD_SOURCE_DIR; __FILE__ may be relative to the build folder (ccache base_dir).
    if (const char* src = std::getenv("CDCD_SOURCE_DIR"))
        return fs::path(src) / "tests/unit/pipeline/transform/functions/flink_functions";
    return fs::path(__FILE__).parent_path() / "flink_functions";
}

// The columns an expression may name: the typed NULLs, empty collections and values that Java
// arguments need but no literal gives (README.md, "The row").
Schema row_schema() {
    return SchemaBuilder()
        .column("int_null", DataType::int_())
        .column("int_zero", DataType::int_())
        .column("str_null", DataType::string())
        .column("bin_null", DataType::bytes())
        .column("bool_true", DataType::boolean())
        .column("bool_false", DataType::boolean())
        .column("bool_null", DataType::boolean())
        .column("date_null", DataType::date())
        .column("ltz_null", DataType::timestamp_ltz(3))
        .column("arr_null", DataType::array(DataType::int_()))
        .column("arr_empty", DataType::array(DataType::string()))
        .column("map_null", DataType::map(DataType::string(), DataType::int_()))
        .column("map_empty", DataType::map(DataType::string(), DataType::int_()))
        .column("tz_shanghai", DataType::timestamp_tz(0))
        .build();
}

Row row_values() {
    RowBuilder b(14);  // fields not set are NULL
    b.set_long(1, 0);
    b.set_bool(4, true);
    b.set_bool(5, false);
    const Row empty = RowBuilder(0).build();
    b.set_row(10, empty.view());
    b.set_map(12, empty.view(), empty.view());
    // 2024-01-01T00:00:00Z at +08:00 (Asia/Shanghai).
    b.set_zoned_timestamp(13, ZonedTimestamp{Timestamp{1704067200000, 0}, 8 * 3600});
    return std::move(b).build();
}

struct Outcome {
    std::string printed;  // as the values sink prints it, or the error
    bool failed = false;  // a syntax, compile or evaluation error
};

Outcome evaluate(const std::string& text, const std::string& zone_id) {
    static const Schema schema = row_schema();
    static const Row row = row_values();
    if (!Zone::find(zone_id)) return {"unknown zone " + zone_id, false};
    try {
        return {testing::eval_on_row(text, schema, row, zone_id).value, false};
    } catch (const SyntaxError& e) {
        return {"ERROR (syntax, column " + std::to_string(e.pos + 1) + "): " + e.what(), true};
    } catch (const CompileError& e) {
        return {"ERROR (compile, column " + std::to_string(e.pos + 1) + "): " + e.what(), true};
    } catch (const EvalError& e) {
        return {std::string("ERROR (eval): ") + e.what(), true};
    }
}

struct Case {
    std::string source, expression, expected, zone;
};

std::vector<std::string> split_tabs(const std::string& line) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        auto tab = line.find('\t', start);
        out.push_back(line.substr(start, tab - start));
        if (tab == std::string::npos) return out;
        start = tab + 1;
    }
}

std::vector<Case> read_cases(const std::string& name) {
    const auto path = data_dir() / name;
    std::ifstream f(path);
    INFO("reading " << path.string() << " (set CDCD_SOURCE_DIR to the checkout)");
    REQUIRE(f);
    std::vector<Case> cases;
    std::string line;
    REQUIRE(std::getline(f, line));
    REQUIRE(line == "source\texpression\texpected\tzone");
    int line_no = 1;
    while (std::getline(f, line)) {
        ++line_no;
        if (line.empty()) continue;
        auto fields = split_tabs(line);
        INFO(name << ":" << line_no << ": " << line);
        REQUIRE((fields.size() == 3 || fields.size() == 4));
        Case c{fields[0], fields[1], fields[2], fields.size() == 4 ? fields[3] : ""};
        if (c.zone.empty()) c.zone = "UTC";
        cases.push_back(std::move(c));
    }
    REQUIRE(!cases.empty());
    return cases;
}

std::string key_of(const std::string& source, const std::string& expression) {
    return source + " " + expression;
}

// "<source> <expression> -- <class> <reason>" per line, keyed by "<source> <expression>".
std::map<std::string, std::string> read_known_differences() {
    const auto path = data_dir() / "known_differences.txt";
    std::ifstream f(path);
    INFO("reading " << path.string() << " (set CDCD_SOURCE_DIR to the checkout)");
    REQUIRE(f);
    std::map<std::string, std::string> known;
    std::string line;
    while (std::getline(f, line)) {
        if (line.empty() || line[0] == '#') continue;
        auto sep = line.rfind(" -- ");
        INFO("known_differences.txt: " << line);
        REQUIRE(sep != std::string::npos);
        REQUIRE(known.emplace(line.substr(0, sep), line.substr(sep + 4)).second);
    }
    return known;
}

bool matches(const Case& c, const Outcome& o) {
    // An expected ERROR (the text after it is Flink's message, for the reader) asks only that
    // cdcd refuses the expression or fails the row; messages are cdcd's own.
    if (c.expected.rfind("ERROR", 0) == 0) return o.failed;
    return !o.failed && o.printed == c.expected;
}

const std::vector<std::string>& test_files() {
    static const std::vector<std::string> files = {
        "CastingFunctionsTest.tsv", "ComparisonFunctionsTest.tsv", "LogicalFunctionsTest.tsv",
        "StringFunctionsTest.tsv",  "StructFunctionsTest.tsv",     "TemporalFunctionsTest.tsv",
    };
    return files;
}

void check_file(const std::string& name) {
    const auto known = read_known_differences();
    for (const auto& c : read_cases(name)) {
        Outcome o = evaluate(c.expression, c.zone);
        bool ok = matches(c, o);
        auto it = known.find(key_of(c.source, c.expression));
        std::string where = c.source + (c.zone == "UTC" ? "" : " (zone " + c.zone + ")") +
                            "\n  expression: " + c.expression + "\n  expected:   " + c.expected +
                            "\n  actual:     " + o.printed;
        if (it == known.end()) {
            if (!ok) FAIL_CHECK(where);
        } else if (ok) {
            // Unwrapped, one line: the key to delete from known_differences.txt.
            std::cerr << "known difference now passes: " << it->first << "\n";
            FAIL_CHECK(where + "\n  now passes: remove it from known_differences.txt (" +
                       it->second + ")");
        }
    }
}

}  // namespace

TEST_CASE("Flink CDC CastingFunctionsTest", "[flink-functions]") {
    check_file("CastingFunctionsTest.tsv");
}
TEST_CASE("Flink CDC ComparisonFunctionsTest", "[flink-functions]") {
    check_file("ComparisonFunctionsTest.tsv");
}
TEST_CASE("Flink CDC LogicalFunctionsTest", "[flink-functions]") {
    check_file("LogicalFunctionsTest.tsv");
}
TEST_CASE("Flink CDC StringFunctionsTest", "[flink-functions]") {
    check_file("StringFunctionsTest.tsv");
}
TEST_CASE("Flink CDC StructFunctionsTest", "[flink-functions]") {
    check_file("StructFunctionsTest.tsv");
}
TEST_CASE("Flink CDC TemporalFunctionsTest", "[flink-functions]") {
    check_file("TemporalFunctionsTest.tsv");
}

TEST_CASE("known differences name rows of the Flink function tests, once", "[flink-functions]") {
    std::set<std::string> rows;
    for (const auto& name : test_files())
        for (const auto& c : read_cases(name)) {
            INFO(name << ": " << c.source << " " << c.expression);
            CHECK(rows.insert(key_of(c.source, c.expression)).second);  // keys are unique
        }
    for (const auto& [key, why] : read_known_differences()) {
        INFO("known_differences.txt: " << key << " -- " << why);
        CHECK(rows.count(key) == 1);
    }
}
