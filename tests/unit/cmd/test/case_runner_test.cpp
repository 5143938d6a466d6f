// `cdcd test` cases run through a pipeline's real transform, router and schema operator: what
// passes, what a mismatch shows, expected errors, and cases that are themselves wrong.
#include "cmd/test/case_runner.h"

#include <catch2/catch.hpp>

#include "config/pipeline_def.h"
#include "config/secrets.h"
#include "pipeline/connector/registry.h"

using namespace cdcd;
using namespace cdcd::cmd_test;
using Catch::Matchers::Contains;

namespace {

const char* const kPipeline = R"(source:
  type: values
  event-set.id: SINGLE_SPLIT_SINGLE_TABLE
transform:
  - source-table: app.orders
    projection: id, amount * 100 AS cents, UPPER(status) AS status
    filter: id > 0
  - source-table: app.ratios
    projection: id, 10 / d AS ratio
  - source-table: app.stamps
    projection: id, LOCALTIMESTAMP AS at
route:
  - source-table: app.orders
    sink-table: dw.orders
sink:
  type: values
pipeline:
  schema.change.behavior: evolve
{extra}
)";

PipelinePlan plan(const std::string& extra = "") {
    std::string text = kPipeline;
    text.replace(text.find("{extra}"), 7, extra);
    config::Secrets secrets;
    return plan_pipeline(config::load_pipeline_string(text, "p.yaml", secrets),
                         ConnectorRegistry::builtin());
}

TestCase case_of(const std::string& yaml) {
    config::Diagnostics diags;
    auto doc = config::load_yaml_string("tests:\n" + yaml, "t.yaml", diags);
    REQUIRE(doc);
    auto cases = parse_test_cases(*doc->root.find("tests"), diags);
    INFO(diags.to_string());
    REQUIRE(diags.ok());
    REQUIRE(cases.size() == 1);
    return cases[0];
}

const char* const kCreate = R"(      - create: app.orders
        columns: [id INT NOT NULL, 'amount DECIMAL(10, 2)', status STRING]
        primary-keys: [id]
)";

/// app.ratios created, and a row with divisor `d` inserted.
std::string ratio_row(const std::string& d) {
    return R"(      - create: app.ratios
        columns: [id INT NOT NULL, d INT]
        primary-keys: [id]
      - insert: app.ratios
        after: {id: 1, d: )" +
           d + "}\n";
}

}  // namespace

TEST_CASE("a case passes when the events out are those expected", "[cmd][test]") {
    auto tc = case_of(std::string(R"(  - name: orders in cents
    input:
)") + kCreate + R"(      - insert: app.orders
        after: {id: 1, amount: 10.5, status: paid}
      - insert: app.orders
        after: {id: -1, amount: 1, status: paid}
      - delete: app.orders
        before: {id: 1, amount: 10.5, status: paid}
    expect:
      - create: dw.orders
        columns: [id INT NOT NULL, 'cents DECIMAL(19, 2)', status STRING]
        primary-keys: [id]
      - insert: dw.orders
        after: {id: 1, cents: 1050, status: PAID}
      - delete: dw.orders
        before: {id: 1, cents: 1050, status: PAID}
)");
    auto outcome = run_case(plan(), tc);
    INFO(outcome.error);
    CHECK(outcome.passed);
    REQUIRE(outcome.actual.size() == 3);
    CHECK(outcome.actual[1] ==
          "DataChangeEvent{tableId=dw.orders, before=[], after=[1, 1050.00, PAID], op=INSERT, "
          "meta=()}");
    CHECK(outcome.expected == outcome.actual);
}

TEST_CASE("a mismatch keeps both lists for the diff", "[cmd][test]") {
    auto tc = case_of(std::string(R"(  - name: wrong cents
    input:
)") + kCreate + R"(      - insert: app.orders
        after: {id: 1, amount: 10.5, status: paid}
    expect:
      - insert: dw.orders
        after: {id: 1, cents: 1051, status: PAID}
)");
    auto outcome = run_case(plan(), tc);
    CHECK_FALSE(outcome.passed);
    CHECK(outcome.error.empty());
    CHECK(outcome.expected ==
          std::vector<std::string>{"DataChangeEvent{tableId=dw.orders, before=[], after=[1, "
                                   "1051.00, PAID], op=INSERT, meta=()}"});
    CHECK(outcome.actual.size() == 2);  // the create event, then the insert
}

TEST_CASE("schema changes mid-case evolve the sink table, and rows follow them", "[cmd][test]") {
    auto tc = case_of(R"(  - name: a column added upstream
    input:
      - create: app.items
        columns: [id INT NOT NULL]
        primary-keys: [id]
      - insert: app.items
        after: {id: 1}
      - add-column: app.items
        columns: [note STRING]
      - insert: app.items
        after: {id: 2, note: hi}
    expect:
      - create: app.items
        columns: [id INT NOT NULL]
        primary-keys: [id]
      - insert: app.items
        after: {id: 1}
      - add-column: app.items
        columns: [note STRING]
      - insert: app.items
        after: {id: 2, note: hi}
)");
    auto outcome = run_case(plan(), tc);
    INFO(outcome.error);
    for (const auto& line : outcome.actual) INFO(line);
    CHECK(outcome.passed);
}

TEST_CASE("expect-error passes when the pipeline fails with that error", "[cmd][test]") {
    auto tc = case_of("  - name: a zero divisor\n    input:\n" + ratio_row("0") +
                      "    expect-error: app.ratios\n");
    auto outcome = run_case(plan(), tc);
    INFO(outcome.error);
    CHECK(outcome.passed);
    CHECK_THAT(outcome.error, Contains("10 / d"));

    auto not_failing = case_of("  - name: a non-zero divisor\n    input:\n" + ratio_row("2") +
                               "    expect-error: division\n");
    CHECK_FALSE(run_case(plan(), not_failing).passed);
}

TEST_CASE("under the skip policy a bad row is dropped and noted", "[cmd][test]") {
    auto tc = case_of("  - name: a zero divisor skipped\n    input:\n" + ratio_row("0") +
                      R"(      - insert: app.ratios
        after: {id: 2, d: 5}
    expect:
      - create: app.ratios
        columns: [id INT NOT NULL, ratio INT]
        primary-keys: [id]
      - insert: app.ratios
        after: {id: 2, ratio: 2}
)");
    auto outcome = run_case(plan("  bad-record.policy: skip"), tc);
    INFO(outcome.error);
    for (const auto& line : outcome.actual) INFO(line);
    CHECK(outcome.passed);
    REQUIRE(outcome.notes.size() == 1);
    CHECK_THAT(outcome.notes[0], Contains("bad record skipped (eval-error"));
}

TEST_CASE("a wrong case fails whatever it expects, saying where", "[cmd][test][errors]") {
    auto before_create = case_of(R"(  - name: no create
    input:
      - insert: app.orders
        after: {id: 1}
    expect-error: anything
)");
    auto outcome = run_case(plan(), before_create);
    CHECK_FALSE(outcome.passed);
    CHECK_THAT(outcome.error, Contains("the case is wrong: t.yaml:4:9: insert app.orders: the "
                                       "table's schema is unknown"));

    auto bad_value = case_of(std::string(R"(  - name: bad value
    input:
)") + kCreate + R"(      - insert: app.orders
        after: {id: x, amount: 1, status: a}
    expect: []
)");
    outcome = run_case(plan(), bad_value);
    CHECK_FALSE(outcome.passed);
    CHECK_THAT(outcome.error, Contains("'x' is not a value of column 'id' of app.orders"));
}

TEST_CASE("a case's `now` fixes what the clock functions read", "[cmd][test]") {
    auto tc = case_of(R"(  - name: stamped
    now: 2024-01-31 10:05:00
    input:
      - create: app.stamps
        columns: [id INT NOT NULL]
        primary-keys: [id]
      - insert: app.stamps
        after: {id: 1}
    expect:
      - create: app.stamps
        columns: [id INT NOT NULL, 'at TIMESTAMP(3)']
        primary-keys: [id]
      - insert: app.stamps
        after: {id: 1, at: 2024-01-31 10:05:00}
)");
    REQUIRE(tc.now_millis == 1'706'695'500'000);
    auto outcome = run_case(plan(), tc);
    INFO(outcome.error);
    for (const auto& line : outcome.actual) INFO(line);
    CHECK(outcome.passed);
}
