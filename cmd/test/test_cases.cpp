#include "cmd/test/test_cases.h"

#include "pipeline/data/temporal.h"

namespace cdcd::cmd_test {

using config::ConfigNode;
using config::Diagnostics;

namespace {

void parse_events(const ConfigNode& node, const std::string& what, std::vector<EventSpec>& out,
                  Diagnostics& diags) {
    if (node.is_null()) return;  // `expect:` with nothing: the case expects no event
    if (!node.is_list()) {
        diags.error(node.where, what + " must be a list of events");
        return;
    }
    for (const auto& item : node.items)
        if (auto spec = parse_event_spec(item, diags)) out.push_back(std::move(*spec));
}

}  // namespace

std::vector<TestCase> parse_test_cases(const ConfigNode& list, Diagnostics& diags) {
    std::vector<TestCase> cases;
    if (!list.is_list()) {
        diags.error(list.where,
                    "tests must be a list of test cases (- name: ..., input: ..., "
                    "expect: ...)");
        return cases;
    }
    for (const auto& node : list.items) {
        if (!node.is_map()) {
            diags.error(node.where, "a test case must be a map with name, input and expect");
            continue;
        }
        TestCase tc;
        tc.where = node.where;
        for (const auto& entry : node.entries) {
            if (entry.key == "name") {
                if (entry.value.is_scalar())
                    tc.name = entry.value.scalar;
                else
                    diags.error(entry.value.where, "a test case's name must be a text");
            } else if (entry.key == "input") {
                parse_events(entry.value, "input", tc.input, diags);
            } else if (entry.key == "expect") {
                parse_events(entry.value, "expect", tc.expect, diags);
            } else if (entry.key == "expect-error") {
                if (entry.value.is_scalar() && !entry.value.scalar.empty())
                    tc.expect_error = entry.value.scalar;
                else
                    diags.error(entry.value.where,
                                "expect-error must be a text the pipeline's error contains");
            } else if (entry.key == "now") {
                auto at = entry.value.is_scalar() ? temporal::parse_timestamp(entry.value.scalar)
                                                  : std::nullopt;
                if (at)
                    tc.now_millis = at->millis;
                else
                    diags.error(entry.value.where,
                                "now must be a timestamp (2024-01-31 10:15:00, UTC unless it "
                                "ends with Z or an offset such as +08:00)");
            } else {
                diags.error(entry.key_where, "unexpected key '" + entry.key +
                                                 "' in a test case (allowed: name, now, input, "
                                                 "expect, expect-error)");
            }
        }
        const std::string label = tc.name.empty() ? "the test case" : "test case '" + tc.name + "'";
        if (tc.name.empty()) diags.error(node.where, "a test case needs a name");
        if (!node.find("input")) diags.error(node.where, label + " needs input");
        if (node.find("expect") && tc.expect_error)
            diags.error(node.where, label +
                                        " has both expect and expect-error: it expects events "
                                        "or an error, not both");
        if (!node.find("expect") && !tc.expect_error)
            diags.error(node.where, label +
                                        " needs expect (the events out; empty for none) or "
                                        "expect-error");
        cases.push_back(std::move(tc));
    }
    return cases;
}

}  // namespace cdcd::cmd_test
