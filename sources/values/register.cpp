// Registers the `values` source under the name Flink CDC uses.
#include <spdlog/spdlog.h>

#include "pipeline/connector/registry.h"
#include "pipeline/schema/schema_change_apply.h"
#include "sources/values/event_sets.h"
#include "sources/values/generator.h"
#include "sources/values/values_source.h"

namespace cdcd {

void register_values_source(ConnectorRegistry& registry) {
    using config::OptionSpec;
    SourceFactory f;
    f.name = "values";
    f.description =
        "Flink CDC's test source: fixed event sets, and GENERATED, a deterministic stream of "
        "inserts, updates and deletes for demos, crash tests and benchmarks.";
    f.options.options = {
        OptionSpec::enum_of("event-set.id", values::event_set_names())
            .default_("SINGLE_SPLIT_SINGLE_TABLE")
            .desc("Which events to emit."),
        OptionSpec::integer("failure.injection.index")
            .default_("2147483647")
            .at_least(0)
            .desc("Fail the pipeline when the event with this index is reached."),
        OptionSpec::boolean("batch-mode.enabled")
            .default_("false")
            .desc("Flink CDC's batch mode flag; cdcd reads every set as a stream."),
        OptionSpec::long_("generator.rows")
            .default_("1000")
            .at_least(0)
            .desc("GENERATED: rows inserted, ids 1..N."),
        OptionSpec::long_("generator.updates-per-row")
            .default_("0")
            .at_least(0)
            .desc("GENERATED: update rounds; round r sets every row's version to r."),
        OptionSpec::long_("generator.delete-every")
            .default_("0")
            .at_least(0)
            .desc("GENERATED: after the updates, delete every id divisible by this (0 = none)."),
        OptionSpec::integer("generator.payload-bytes")
            .default_("100")
            .range(0, 16 << 20)
            .desc("GENERATED: payload padded with 'x' to this many bytes."),
        OptionSpec::long_("generator.rate")
            .default_("0")
            .at_least(0)
            .desc("GENERATED: events per second, 0 = unlimited."),
        OptionSpec::boolean("generator.bounded")
            .default_("true")
            .desc("GENERATED: end after the last event (true) or stay idle (false)."),
    };
    // Flink's values source supports these metadata columns (op_ts, timestamp-type).
    f.metadata_columns = [](const config::ValidatedOptions&) {
        return std::vector<MetadataColumn>{{"op_ts", DataType::bigint()},
                                           {"timestamp-type", DataType::string()}};
    };
    // Every schema each table of the chosen set takes, in order.
    f.known_tables = [](const config::ValidatedOptions& o) {
        std::vector<KnownTable> known;
        const std::string set = o.get_enum("event-set.id");
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
    f.validate = [](const config::ValidatedOptions& o, const config::ConnectorDef& def,
                    const config::ValidatedOptions&, config::Diagnostics& d) {
        if (o.get_enum("event-set.id") != "GENERATED") {
            for (const char* key :
                 {"generator.rows", "generator.updates-per-row", "generator.delete-every",
                  "generator.payload-bytes", "generator.rate", "generator.bounded"}) {
                if (o.is_set(key))
                    d.error(o.location(key),
                            std::string("`") + key + "` applies only to event-set.id GENERATED");
            }
        }
        (void)def;
    };
    // Every fixed event set ends; GENERATED ends unless generator.bounded is false.
    f.unbounded_by = [](const config::ValidatedOptions& o) -> std::optional<UnboundedBy> {
        if (o.get_enum("event-set.id") != "GENERATED" || o.get_bool("generator.bounded"))
            return std::nullopt;
        return UnboundedBy{"generator.bounded", "false", "true"};
    };
    f.create = [](const ConnectorContext& ctx) -> std::unique_ptr<Source> {
        const auto& o = ctx.options;
        values::ValuesSourceSettings s;
        s.event_set = o.get_enum("event-set.id");
        int injection = o.get_int("failure.injection.index");
        s.failure_injection_index = injection == 2147483647 ? -1 : injection;
        s.generator.rows = o.get_long("generator.rows");
        s.generator.updates_per_row = o.get_long("generator.updates-per-row");
        s.generator.delete_every = o.get_long("generator.delete-every");
        s.generator.payload_bytes = o.get_int("generator.payload-bytes");
        s.rate = o.get_long("generator.rate");
        s.bounded = o.get_bool("generator.bounded");
        return std::make_unique<values::ValuesSource>(std::move(s), *ctx.metrics);
    };
    registry.add(std::move(f));
}

}  // namespace cdcd
