#include "cmd/test/test_command.h"

#include <filesystem>

#include "cmd/test/case_runner.h"
#include "cmd/test/line_diff.h"
#include "cmd/test/test_cases.h"
#include "config/yaml_loader.h"

namespace cdcd::cmd_test {

namespace {

bool has_tests_key(const std::string& file) {
    config::Diagnostics ignored;
    auto doc = config::load_yaml_file(file, ignored);
    return doc && doc->root.find("tests") != nullptr;
}

void print_outcome(std::FILE* out, const TestCase& tc, const CaseOutcome& outcome) {
    std::fprintf(out, "  %-5s %s (%s)\n", outcome.passed ? "ok" : "FAIL", tc.name.c_str(),
                 tc.where.to_string().c_str());
    for (const auto& note : outcome.notes) std::fprintf(out, "        note: %s\n", note.c_str());
    if (outcome.passed) return;
    if (tc.expect_error) {
        if (outcome.error.empty())
            std::fprintf(out, "        expected an error containing \"%s\"; the pipeline ran\n",
                         tc.expect_error->c_str());
        else
            std::fprintf(out,
                         "        expected an error containing \"%s\"; the error was:\n"
                         "        %s\n",
                         tc.expect_error->c_str(), outcome.error.c_str());
        return;
    }
    if (!outcome.error.empty()) std::fprintf(out, "        error: %s\n", outcome.error.c_str());
    if (outcome.error.find("the case is wrong") == 0) return;
    std::fprintf(out, "        expected (-) and actual (+) events:\n");
    for (const auto& line : diff_lines(outcome.expected, outcome.actual))
        std::fprintf(out, "        %c %s\n", line.mark, line.text.c_str());
}

}  // namespace

std::string find_tests_file(const std::string& pipeline_file, const std::string& tests_file) {
    if (!tests_file.empty()) return tests_file;
    if (has_tests_key(pipeline_file)) return pipeline_file;
    std::filesystem::path sibling(pipeline_file);
    sibling.replace_extension(".tests.yaml");
    if (std::filesystem::exists(sibling)) return sibling.string();
    throw std::invalid_argument("no test cases for " + pipeline_file +
                                ": add a `tests:` list to it, "
                                "write " +
                                sibling.string() + ", or name a file with --tests");
}

int test_command(const PipelinePlan& plan, const std::string& tests_file, std::FILE* out) {
    config::Diagnostics diags;
    auto doc = config::load_yaml_file(tests_file, diags);
    std::vector<TestCase> cases;
    if (doc) {
        const config::ConfigNode* list = doc->root.find("tests");
        if (!list)
            diags.error(config::SourceLocation{tests_file, 1, 1}, "no `tests:` list in the file");
        else
            cases = parse_test_cases(*list, diags);
    }
    if (!diags.ok()) {
        std::fprintf(out, "%s", diags.to_string().c_str());
        return 1;
    }
    std::fprintf(out, "cdcd test: %zu case%s of %s in %s\n", cases.size(),
                 cases.size() == 1 ? "" : "s", plan.definition.file.c_str(), tests_file.c_str());
    std::size_t failed = 0;
    for (const auto& tc : cases) {
        CaseOutcome outcome = run_case(plan, tc);
        if (!outcome.passed) ++failed;
        print_outcome(out, tc, outcome);
    }
    std::fprintf(out, "%zu passed, %zu failed\n", cases.size() - failed, failed);
    return failed == 0 ? 0 : 1;
}

}  // namespace cdcd::cmd_test
