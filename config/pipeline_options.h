// The options of the `pipeline` block (Flink CDC's PipelineOptions plus cdcd's runtime options).
#pragma once

#include "config/option_spec.h"
#include "config/option_validator.h"
#include "config/pipeline_def.h"

namespace cdcd::config {

/// pipeline.name when the YAML leaves it out (Flink CDC's default).
inline constexpr const char* kDefaultPipelineName = "Flink CDC Pipeline Job";

// name, parallelism, schema.change.behavior, route-mode, local-time-zone, execution.runtime-mode,
// schema-operator.rpc-timeout, execution.checkpointing.interval, state.checkpoints.num-retained,
// state.dir, operator.uid.prefix, shutdown.timeout, admin.address, sink.partitioning.strategy,
// transform.decimal.precision.mode.
const ConnectorOptionsSpec& pipeline_options_spec();

// validate_options(pipeline_options_spec(), def.pipeline, ...) with the right block name.
ValidatedOptions validate_pipeline_options(const PipelineDef& def, Diagnostics& diags);

}  // namespace cdcd::config
