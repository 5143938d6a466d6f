// Registers the `values` sink under the name Flink CDC uses.
#include "config/option_binding.h"
#include "pipeline/connector/registry.h"
#include "sinks/values/values_sink.h"

namespace cdcd {

void register_values_sink(ConnectorRegistry& registry) {
    using config::OptionSpec;
    using Settings = values::ValuesSinkSettings;
    static const config::OptionBindings<Settings> bindings{{
        OptionSpec::boolean("print.enabled")
            .default_("true")
            .desc("Print every event to stdout.")
            .to(&Settings::print),
        OptionSpec::boolean("materialized.in.memory")
            .default_("false")
            .desc("Apply events to in-memory tables (row counts are logged at the end).")
            .to(&Settings::materialize),
        OptionSpec::enum_of("sink.api", {"SINK_FUNCTION", "SINK_V2"})
            .default_("SINK_V2")
            .desc("Flink's sink API; accepted for compatibility, no effect in cdcd."),
        OptionSpec::boolean("error.on.schema.change")
            .default_("false")
            .desc("Reject every schema change but table creation (exercises TRY_EVOLVE).")
            .to(&Settings::error_on_schema_change),
    }};
    SinkFactory f;
    f.name = "values";
    f.description = "Flink CDC's test sink: prints every event to stdout in Flink CDC's format.";
    f.options = bindings.spec();
    f.create = [](const ConnectorContext& ctx) -> std::unique_ptr<Sink> {
        return std::make_unique<values::ValuesSink>(bindings.read(ctx.options).values(),
                                                    ctx.io.get_executor(), *ctx.metrics);
    };
    registry.add(std::move(f));
}

}  // namespace cdcd
