#pragma once
// A whole pipeline around one harness's connector (a `values` counterpart on the other side), with
// optionally one option line set to a given value, and the plan `cdcd validate` makes of it.
#include <string>

#include "pipeline/runtime/pipeline_plan.h"
#include "tests/unit/conformance/connector_harness.h"

namespace cdcd::conformance {

struct HarnessPipeline {
    std::string yaml;
    /// The 1-based line of the option set by with_option (0 when none).
    int option_line = 0;
};

/// The harness's minimal pipeline.
HarnessPipeline minimal_pipeline(const ConnectorHarness& harness);
/// The minimal pipeline with `key: value` as the connector block's last line (replacing the
/// minimal options' line of that key, if any).
HarnessPipeline with_option(const ConnectorHarness& harness, const std::string& key,
                            const std::string& value);

/// Validates the pipeline as `cdcd validate` does; throws config::ConfigError.
PipelinePlan plan(const HarnessPipeline& pipeline);

}  // namespace cdcd::conformance
