// Registers the `values` source under the name Flink CDC uses.
#include <spdlog/spdlog.h>

#include "config/option_binding.h"
#include "pipeline/connector/registry.h"
#include "pipeline/schema/schema_change_apply.h"
#include "sources/values/event_sets.h"
#include "sources/values/generator.h"
#include "sources/values/values_source.h"

namespace cdcd {

namespace {

// failure.injection.index's default: no failure is injected.
constexpr std::int64_t kNoFailureInjection = 2147483647;

}  // namespace

void register_values_source(ConnectorRegistry& registry) {
    using config::OptionSpec;
    using Settings = values::ValuesSourceSettings;
    using values::GeneratorSpec;
    static const config::OptionBindings<Settings> bindings{{
        OptionSpec::enum_of("event-set.id", values::event_set_names())
            .default_("SINGLE_SPLIT_SINGLE_TABLE")
            .desc("Which events to emit.")
            .to(&Settings::event_set),
        OptionSpec::integer("failure.injection.index")
            .default_(std::to_string(kNoFailureInjection))
            .at_least(0)
            .desc("Fail the pipeline when the event with this index is reached.")
            .to(&Settings::failure_injection_index),
        OptionSpec::boolean("batch-mode.enabled")
            .default_("false")
            .desc("Flink CDC's batch mode flag; cdcd reads every set as a stream."),
        OptionSpec::long_("generator.rows")
            .default_("1000")
            .at_least(0)
            .desc("GENERATED: rows inserted, ids 1..N.")
            .to(&Settings::generator, &GeneratorSpec::rows),
        OptionSpec::long_("generator.updates-per-row")
            .default_("0")
            .at_least(0)
            .desc("GENERATED: update rounds; round r sets every row's version to r.")
            .to(&Settings::generator, &GeneratorSpec::updates_per_row),
        OptionSpec::long_("generator.delete-every")
            .default_("0")
            .at_least(0)
            .desc("GENERATED: after the updates, delete every id divisible by this (0 = none).")
            .to(&Settings::generator, &GeneratorSpec::delete_every),
        OptionSpec::integer("generator.payload-bytes")
            .default_("100")
            .range(0, 16 << 20)
            .desc("GENERATED: payload padded with 'x' to this many bytes.")
            .to(&Settings::generator, &GeneratorSpec::payload_bytes),
        OptionSpec::long_("generator.rate")
            .default_("0")
            .at_least(0)
            .desc("GENERATED: events per second, 0 = unlimited.")
            .to(&Settings::rate),
        OptionSpec::boolean("generator.bounded")
            .default_("true")
            .desc("GENERATED: end after the last event (true) or stay idle (false).")
            .to(&Settings::bounded),
    }};
    SourceFactory f;
    f.name = "values";
    f.description =
        "Flink CDC's test source: fixed event sets, and GENERATED, a deterministic stream of "
        "inserts, updates and deletes for demos, crash tests and benchmarks.";
    f.options = bindings.spec();
    // Flink's values source supports these metadata columns (op_ts, timestamp-type).
    f.metadata_columns = [](const config::ValidatedOptions&) {
        return std::vector<MetadataColumn>{{"op_ts", DataType::bigint()},
                                           {"timestamp-type", DataType::string()}};
    };
    // Every schema each table of the chosen set takes, in order.
    f.known_tables = [](const config::ValidatedOptions& o) {
        std::vector<KnownTable> known;
        const std::string set = bindings.read(o)->event_set;
        if (set == "GENERATED") {
            known.push_back({values::Generator::table(), values::Generator::schema()});
            return known;
        }
        auto events = values::fixed_event_set(set);
        if (!events) return known;
        std::map<TableId, Schema> current;
        for (const auto& e : *events) {
            auto change = as_schema_change(e);
            if (!change) continue;
            TableId table = table_of(*change);
            if (std::holds_alternative<DropTableEvent>(*change)) {
                current.erase(table);
                continue;
            }
            if (std::holds_alternative<TruncateTableEvent>(*change)) continue;
            if (const auto* create = std::get_if<CreateTableEvent>(&*change))
                current[table] = create->schema;
            else if (auto it = current.find(table); it != current.end())
                it->second = apply_schema_change(it->second, *change);
            else
                continue;
            known.push_back({table, current[table]});
        }
        return known;
    };
    f.validate = [](const config::ValidatedOptions& options, const config::ConnectorDef&,
                    const config::ValidatedOptions&, config::Diagnostics& d) {
        auto o = bindings.read(options);
        if (o->event_set == "GENERATED") return;
        const GeneratorSpec& g = o->generator;
        auto generated_only = [&](const auto& member) {
            if (o.is_set(member))
                d.error(o.where(member),
                        "`" + o.key(member) + "` applies only to event-set.id GENERATED");
        };
        generated_only(g.rows);
        generated_only(g.updates_per_row);
        generated_only(g.delete_every);
        generated_only(g.payload_bytes);
        generated_only(o->rate);
        generated_only(o->bounded);
    };
    // Every fixed event set ends; GENERATED ends unless generator.bounded is false.
    f.unbounded_by = [](const config::ValidatedOptions& options) -> std::optional<UnboundedBy> {
        auto o = bindings.read(options);
        if (o->event_set != "GENERATED" || o->bounded) return std::nullopt;
        return UnboundedBy{o.key(o->bounded), "false", "true"};
    };
    f.create = [](const ConnectorContext& ctx) -> std::unique_ptr<Source> {
        Settings s = bindings.read(ctx.options).take();
        if (s.failure_injection_index == kNoFailureInjection) s.failure_injection_index = -1;
        return std::make_unique<values::ValuesSource>(std::move(s), *ctx.metrics);
    };
    registry.add(std::move(f));
}

}  // namespace cdcd
