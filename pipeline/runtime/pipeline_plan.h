#pragma once
// Everything `cdcd validate` checks and `cdcd run` needs, resolved once from a PipelineDef:
// validated options of every block, the connector factories, route, schema-change settings and
// the transform rules. Building a plan reports every error of the file together.
#include <memory>
#include <string>

#include "config/option_validator.h"
#include "config/pipeline_def.h"
#include "pipeline/connector/bad_records.h"
#include "pipeline/connector/registry.h"
#include "pipeline/route/router.h"
#include "pipeline/runtime/partitioner.h"
#include "pipeline/runtime/sensitive_columns.h"
#include "pipeline/schema/schema_change_filter.h"

namespace cdcd {

namespace transform {
class TransformOperator;
struct SourceMetadataColumn;
enum class DecimalPrecisionMode;
}  // namespace transform

struct PipelinePlan {
    config::PipelineDef definition;
    config::ValidatedOptions pipeline_options;
    config::ValidatedOptions source_options;
    config::ValidatedOptions sink_options;
    const SourceFactory* source_factory = nullptr;
    const SinkFactory* sink_factory = nullptr;
    PipelineSettings settings;
    RouteMode route_mode = RouteMode::AllMatch;
    SchemaChangeBehavior behavior = SchemaChangeBehavior::Lenient;
    SchemaChangeFilter schema_change_filter;
    int checkpoints_retained = 3;
    int tolerable_failed_checkpoints = 0;  // consecutive ones, as Flink's option of that name
    std::string state_dir;
    std::int64_t shutdown_timeout_ms = 30'000;
    /// schema-operator.rpc-timeout: how long one schema change may take to flush and apply.
    std::int64_t schema_change_timeout_ms = 180'000;
    /// execution.checkpointing.timeout: how long a checkpoint may take to be acknowledged.
    std::int64_t checkpoint_timeout_ms = 600'000;
    BadRecordPolicy bad_record_policy = BadRecordPolicy::Fail;
    std::string dead_letter_path;  // empty: <state dir>/dead-letter/<pipeline name>.jsonl
    /// sink.partitioning.strategy: how data changes are spread over the sink writers.
    PartitioningStrategy partitioning = PartitioningStrategy::SinkDefined;
    /// execution.runtime-mode BATCH: the source ends (checked here), and so does the pipeline.
    bool batch = false;
    /// transform.decimal.precision.mode ({} is UP_TO_19, the default).
    transform::DecimalPrecisionMode decimal_precision_mode{};
    /// pipeline.tap.enabled and pipeline.tap.sensitive-columns (`cdcd tap`).
    bool tap_enabled = true;
    /// pipeline.transform.lanes (0: chosen by transform_lanes()).
    int transform_lanes_option = 0;
    SensitiveColumns tap_sensitive_columns;

    /// A fresh router (routers cache per table, so each run gets its own).
    Router make_router() const;
    /// A fresh transform operator, or nullptr when the pipeline has no transform. `source`: the
    /// pipeline's source, which the functions it adds to expressions work with (FETCH_CONTENT).
    std::unique_ptr<transform::TransformOperator> make_transform(Source* source = nullptr) const;
    /// The lanes of the transform stage (transform_stage.h): none without a transform; one when
    /// the source adds functions to expressions (they work with the source's one client); else
    /// pipeline.transform.lanes, or when that is 0 pipeline.parallelism, at most one fewer than
    /// the CPUs the process may use (the event loop keeps one busy: on 2 CPUs a second lane
    /// made GENERATED -> 5 computed columns -> values at parallelism 2 6-28 % slower). `why`
    /// (optional) gets the reason, for the log.
    std::size_t transform_lanes(std::string* why = nullptr) const;
    /// The source's metadata columns, for transform expressions.
    std::vector<transform::SourceMetadataColumn> source_metadata() const;
    /// The functions the source adds to transform expressions (SourceFactory::transform_functions).
    TransformFunctions source_functions(Source* source) const;
    /// What a checkpoint must match to be restored into this pipeline.
    std::map<std::string, std::string> fingerprint() const;

    PipelinePlan();
    ~PipelinePlan();
    PipelinePlan(PipelinePlan&&) noexcept;
    PipelinePlan& operator=(PipelinePlan&&) noexcept;
};

/// Validates the definition against the registry; throws config::ConfigError with every problem.
PipelinePlan plan_pipeline(config::PipelineDef definition, const ConnectorRegistry& registry);

/// `systemDefault` → the machine's zone (TZ, /etc/timezone, /etc/localtime), else the id as given.
std::string resolve_time_zone(const std::string& id);

}  // namespace cdcd
