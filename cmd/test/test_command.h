#pragma once
// `cdcd test PIPELINE.yaml [--tests FILE]`: runs the pipeline's test cases (test_cases.h) through
// its real transform, router and schema operator, prints each case's result with a diff of the
// events on a mismatch, and exits 0 only when every case passes (for CI).
#include <cstdio>
#include <string>

#include "pipeline/runtime/pipeline_plan.h"

namespace cdcd::cmd_test {

/// Where the cases are: `tests_file` when given; else the pipeline file's own `tests:` list; else
/// `<name>.tests.yaml` beside it (pipeline.yaml → pipeline.tests.yaml).
std::string find_tests_file(const std::string& pipeline_file, const std::string& tests_file);

/// Runs every case of `tests_file`; prints to `out`. 0: all passed; 1: a case failed or the file
/// has errors (printed with their line and column).
int test_command(const PipelinePlan& plan, const std::string& tests_file, std::FILE* out);

}  // namespace cdcd::cmd_test
