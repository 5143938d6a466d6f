// The options of the `pipeline` block (Flink CDC's PipelineOptions plus cdcd's runtime options).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "config/option_binding.h"
#include "config/option_spec.h"
#include "config/option_validator.h"
#include "config/pipeline_def.h"

namespace cdcd::config {

/// pipeline.name when the YAML leaves it out (Flink CDC's default).
inline constexpr const char* kDefaultPipelineName = "Flink CDC Pipeline Job";

// The `pipeline` block, one member per option. Enums the config layer has no type for stay in
// their declared (canonical) spelling; the runtime maps them (pipeline/runtime/pipeline_plan.cpp).
struct PipelineOptions {
    std::string name;
    int parallelism = 1;
    std::string schema_change_behavior;
    std::string route_mode;
    std::string local_time_zone;
    bool batch = false;  // execution.runtime-mode BATCH
    std::chrono::milliseconds schema_change_timeout{0};
    std::chrono::milliseconds checkpoint_interval{0};
    std::chrono::milliseconds checkpoint_timeout{0};
    int tolerable_failed_checkpoints = 0;
    int checkpoints_retained = 0;
    std::string state_dir;
    std::chrono::milliseconds shutdown_timeout{0};
    std::optional<std::string> admin_address;
    std::string partitioning_strategy;
    std::string bad_record_policy;
    std::optional<std::string> dead_letter_path;
    std::string decimal_precision_mode;
    int transform_lanes = 0;  // 0: as many as pay (PipelinePlan::transform_lanes)
    bool tap_enabled = true;
    std::vector<std::string> tap_sensitive_columns;
};

// Every option of the `pipeline` block, declared and bound to PipelineOptions.
const OptionBindings<PipelineOptions>& pipeline_option_bindings();

// The declarations of pipeline_option_bindings().
const ConnectorOptionsSpec& pipeline_options_spec();

// validate_options(pipeline_options_spec(), def.pipeline, ...) with the right block name.
ValidatedOptions validate_pipeline_options(const PipelineDef& def, Diagnostics& diags);

}  // namespace cdcd::config
