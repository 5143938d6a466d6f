#pragma once
// Runs one `cdcd test` case through the pipeline's real transform, router and schema operator,
// in process: the input events go in as the source would emit them, and what would reach the
// sink writers comes out, printed as Flink CDC's values sink prints events. No source or sink is
// connected: every schema change is taken as applied, as by a sink that accepts them all.
#include <string>
#include <vector>

#include "cmd/test/test_cases.h"
#include "pipeline/runtime/pipeline_plan.h"

namespace cdcd::cmd_test {

struct CaseOutcome {
    std::vector<std::string> expected;  // the expected events, printed
    std::vector<std::string> actual;    // the events out, printed
    std::string error;                  // the pipeline's error (or the case's), if it failed
    std::vector<std::string> notes;     // bad records skipped under the skip/dead-letter policy
    bool passed = false;
};

CaseOutcome run_case(const PipelinePlan& plan, const TestCase& tc);

}  // namespace cdcd::cmd_test
