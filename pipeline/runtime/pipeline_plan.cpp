#include "pipeline/runtime/pipeline_plan.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>

#include "config/pipeline_options.h"
#include "pipeline/data/system_time_zone.h"
#include "pipeline/data/time_zone.h"
#include "pipeline/runtime/available_cpus.h"
#include "pipeline/transform/transform_operator.h"

namespace cdcd {

PipelinePlan::PipelinePlan() = default;
PipelinePlan::~PipelinePlan() = default;
PipelinePlan::PipelinePlan(PipelinePlan&&) noexcept = default;
PipelinePlan& PipelinePlan::operator=(PipelinePlan&&) noexcept = default;

Router PipelinePlan::make_router() const {
    config::Diagnostics ignored;  // already validated by plan_pipeline
    return Router::create(definition.routes, route_mode, ignored);
}

std::unique_ptr<transform::TransformOperator> PipelinePlan::make_transform(Source* source) const {
    if (definition.transforms.empty()) return nullptr;
    config::Diagnostics diags;
    auto op = transform::TransformOperator::create(definition.transforms, settings.local_time_zone,
                                                   diags, source_metadata(), decimal_precision_mode,
                                                   source_functions(source));
    if (!diags.ok()) throw config::ConfigError(diags);
    return op;
}

std::size_t PipelinePlan::transform_lanes(std::string* why) const {
    auto say = [why](std::string reason) {
        if (why) *why = std::move(reason);
    };
    if (definition.transforms.empty()) return 0;
    if (source_factory && source_factory->transform_functions) {
        say("source " + definition.source.type + " adds functions to expressions");
        return 1;
    }
    if (transform_lanes_option > 0) {
        say("pipeline.transform.lanes");
        return static_cast<std::size_t>(transform_lanes_option);
    }
    auto wanted = static_cast<std::size_t>(std::max(1, settings.parallelism));
    const std::size_t cpus = available_cpus();
    const std::size_t lanes = std::min(wanted, cpus > 1 ? cpus - 1 : 1);
    if (lanes == wanted)
        say("pipeline.parallelism");
    else if (cpus <= 1)
        say("1 CPU; pipeline.transform.lanes sets more");
    else
        say(std::to_string(cpus) +
            " CPUs, one left to the event loop; pipeline.transform.lanes sets more");
    return lanes;
}

TransformFunctions PipelinePlan::source_functions(Source* source) const {
    if (source_factory && source_factory->transform_functions)
        return source_factory->transform_functions(source);
    return {};
}

std::vector<transform::SourceMetadataColumn> PipelinePlan::source_metadata() const {
    std::vector<transform::SourceMetadataColumn> columns;
    if (source_factory && source_factory->metadata_columns) {
        for (auto& c : source_factory->metadata_columns(source_options))
            columns.push_back({c.name, c.type});
    }
    return columns;
}

std::map<std::string, std::string> PipelinePlan::fingerprint() const {
    return {{"source.type", definition.source.type},
            {"sink.type", definition.sink.type},
            {"pipeline.parallelism", std::to_string(settings.parallelism)}};
}

std::string resolve_time_zone(const std::string& id) {
    if (id != "systemDefault") return id;
    SystemTimeZone zone = system_time_zone();
    if (!zone.warning.empty()) spdlog::warn("{}", zone.warning);
    return zone.id;
}

namespace {

SchemaChangeBehavior behavior_of(const std::string& s) {
    if (s == "IGNORE") return SchemaChangeBehavior::Ignore;
    if (s == "TRY_EVOLVE") return SchemaChangeBehavior::TryEvolve;
    if (s == "EVOLVE") return SchemaChangeBehavior::Evolve;
    if (s == "EXCEPTION") return SchemaChangeBehavior::Exception;
    return SchemaChangeBehavior::Lenient;
}

// Where a connector's `type` is written; its block for definitions not read from a file.
const config::SourceLocation& type_location(const config::ConnectorDef& def) {
    return def.type_where.line > 0 ? def.type_where : def.where;
}

// execution.runtime-mode BATCH runs a pipeline to the end of its input, so, as in Flink CDC
// (whose sources allow BATCH only with the `snapshot` startup mode), its source must end.
void check_batch_source(const PipelinePlan& plan, const config::PipelineDef& definition,
                        config::Diagnostics& diags) {
    const auto options = config::pipeline_option_bindings().read(plan.pipeline_options);
    const auto where = options.where(options->batch);
    const std::string prefix =
        "execution.runtime-mode BATCH runs the pipeline until its source has read everything, "
        "but source `" +
        definition.source.type + "`";
    if (!plan.source_factory->unbounded_by) {
        diags.error(where, prefix +
                               " never ends (it has no snapshot-only startup mode); set "
                               "execution.runtime-mode: STREAMING");
        return;
    }
    if (auto by = plan.source_factory->unbounded_by(plan.source_options))
        diags.error(where, prefix + " with " + by->option + " `" + by->value +
                               "` follows changes for ever; set " + by->option + ": " +
                               by->bounded_value + ", or execution.runtime-mode: STREAMING");
}

// Whether `message` names the option `key` (not a longer key that begins with it).
bool names_option(std::string_view message, std::string_view key) {
    auto part_of_key = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
    };
    for (auto at = message.find(key); at != std::string_view::npos;
         at = message.find(key, at + 1)) {
        const std::size_t end = at + key.size();
        if ((at == 0 || !part_of_key(message[at - 1])) &&
            (end == message.size() || !part_of_key(message[end])))
            return true;
    }
    return false;
}

// A connector's rules across its options, run as validate(diagnostics). An option whose value
// was refused reads as its default there, so an error that names it is about a value the user
// did not write (`scan.startup.mode: bogus` also gave "scan.startup.mode group-offsets needs
// `properties.group.id`"): those are left out; the refusal says what is wrong.
template <typename Validate>
void validate_across(const config::ValidatedOptions& options, config::Diagnostics& diags,
                     Validate&& validate) {
    if (options.rejected().empty()) {
        validate(diags);
        return;
    }
    config::Diagnostics found;
    validate(found);
    for (const auto& d : found.items()) {
        const bool about_refused =
            std::any_of(options.rejected().begin(), options.rejected().end(),
                        [&d](const std::string& key) { return names_option(d.message, key); });
        if (!about_refused) diags.error(d.where, d.message);
    }
}

}  // namespace

PipelinePlan plan_pipeline(config::PipelineDef definition, const ConnectorRegistry& registry) {
    config::Diagnostics diags;
    PipelinePlan plan;
    plan.pipeline_options = config::validate_pipeline_options(definition, diags);

    plan.source_factory = registry.source(definition.source.type);
    const std::size_t errors_before_source = diags.size();
    if (!plan.source_factory) {
        std::string known;
        for (const auto& n : registry.source_names()) known += (known.empty() ? "" : ", ") + n;
        diags.error(type_location(definition.source),
                    "unknown source type `" + definition.source.type + "` (known: " + known + ")");
    } else {
        plan.source_options = config::validate_options(
            plan.source_factory->options, definition.source.options, definition.source.where,
            "source `" + definition.source.type + "`", diags);
        if (plan.source_factory->validate)
            validate_across(plan.source_options, diags, [&](config::Diagnostics& found) {
                plan.source_factory->validate(plan.source_options, definition.source,
                                              plan.pipeline_options, found);
            });
    }
    // A source's metadata columns are read from its options, which must all be valid first.
    const bool source_valid = diags.size() == errors_before_source;
    plan.sink_factory = registry.sink(definition.sink.type);
    if (!plan.sink_factory) {
        std::string known;
        for (const auto& n : registry.sink_names()) known += (known.empty() ? "" : ", ") + n;
        diags.error(type_location(definition.sink),
                    "unknown sink type `" + definition.sink.type + "` (known: " + known + ")");
    } else {
        plan.sink_options = config::validate_options(plan.sink_factory->options,
                                                     definition.sink.options, definition.sink.where,
                                                     "sink `" + definition.sink.type + "`", diags);
        if (plan.sink_factory->validate)
            validate_across(plan.sink_options, diags, [&](config::Diagnostics& found) {
                plan.sink_factory->validate(plan.sink_options, definition.sink,
                                            plan.pipeline_options, found);
            });
    }

    const auto p = config::pipeline_option_bindings().read(plan.pipeline_options);
    plan.settings.name = p->name;
    plan.settings.parallelism = p->parallelism;
    plan.settings.local_time_zone = resolve_time_zone(p->local_time_zone);
    std::string zone_error;
    if (!TimeZone::of(plan.settings.local_time_zone, &zone_error)) {
        diags.error(p.where(p->local_time_zone), "invalid pipeline.local-time-zone: " + zone_error);
        plan.settings.local_time_zone = "UTC";  // reported once: the transform would repeat it
    }
    plan.settings.checkpoint_interval_ms = p->checkpoint_interval.count();
    plan.tolerable_failed_checkpoints = p->tolerable_failed_checkpoints;
    plan.checkpoints_retained = p->checkpoints_retained;
    plan.state_dir = p->state_dir;
    plan.shutdown_timeout_ms = p->shutdown_timeout.count();
    plan.schema_change_timeout_ms = p->schema_change_timeout.count();
    plan.checkpoint_timeout_ms = p->checkpoint_timeout.count();
    plan.bad_record_policy = parse_bad_record_policy(p->bad_record_policy);
    if (p->dead_letter_path) plan.dead_letter_path = *p->dead_letter_path;
    plan.route_mode = p->route_mode == "FIRST_MATCH" ? RouteMode::FirstMatch : RouteMode::AllMatch;
    plan.decimal_precision_mode = transform::parse_decimal_precision_mode(p->decimal_precision_mode)
                                      .value_or(transform::DecimalPrecisionMode::UpTo19);
    plan.behavior = behavior_of(p->schema_change_behavior);
    plan.partitioning = parse_partitioning_strategy(p->partitioning_strategy)
                            .value_or(PartitioningStrategy::SinkDefined);
    plan.batch = p->batch;
    plan.tap_enabled = p->tap_enabled;
    plan.transform_lanes_option = p->transform_lanes;
    std::string sensitive_error;
    if (auto sensitive = SensitiveColumns::parse(p->tap_sensitive_columns, &sensitive_error))
        plan.tap_sensitive_columns = std::move(*sensitive);
    else
        diags.error(p.where(p->tap_sensitive_columns),
                    "invalid pipeline.tap.sensitive-columns: " + sensitive_error);
    if (plan.batch && source_valid && plan.source_factory)
        check_batch_source(plan, definition, diags);

    // Route regexes and schema-change tags are checked now, so `cdcd validate` reports them.
    Router::create(definition.routes, plan.route_mode, diags);
    plan.schema_change_filter = SchemaChangeFilter::create(
        definition.sink.include_schema_changes, definition.sink.exclude_schema_changes,
        definition.sink.has_exclude_schema_changes, plan.behavior, diags, definition.sink.where);
    if (!definition.transforms.empty()) {
        auto transform = transform::TransformOperator::create(
            definition.transforms, plan.settings.local_time_zone, diags,
            source_valid ? plan.source_metadata() : std::vector<transform::SourceMetadataColumn>{},
            plan.decimal_precision_mode,
            source_valid ? plan.source_functions(nullptr) : TransformFunctions{});
        // Column names and argument types are checked now for the tables whose schema the
        // source's options already tell (parse errors above would only repeat here).
        // A table is reported once, at the first of its schemas that fails.
        if (source_valid && diags.ok() && plan.source_factory->known_tables) {
            std::set<TableId> failed;
            for (const auto& known : plan.source_factory->known_tables(plan.source_options))
                if (!failed.count(known.table) &&
                    !transform->check_schema(known.table, known.schema, diags))
                    failed.insert(known.table);
        }
    }

    if (!diags.ok()) throw config::ConfigError(diags);
    plan.definition = std::move(definition);
    return plan;
}

}  // namespace cdcd
