// Registers the `postgres` source.
#include "pipeline/connector/registry.h"
#include "sources/postgres/options.h"
#include "sources/postgres/postgres_source.h"

namespace cdcd {

void register_postgres_source(ConnectorRegistry& registry) {
    SourceFactory f;
    f.name = "postgres";
    f.description =
        "PostgreSQL tables through logical replication (pgoutput): a snapshot consistent with the "
        "replication slot, then every insert, update, delete and truncate; the slot advances "
        "only past durable checkpoints.";
    f.options = postgres::option_bindings().spec();
    f.validate = [](const config::ValidatedOptions& o, const config::ConnectorDef&,
                    const config::ValidatedOptions&,
                    config::Diagnostics& d) { postgres::validate_options(o, d); };
    // Only scan.startup.mode snapshot ends by itself.
    f.unbounded_by = [](const config::ValidatedOptions& options) -> std::optional<UnboundedBy> {
        const auto o = postgres::option_bindings().read(options);
        if (o->startup == postgres::StartupMode::Snapshot) return std::nullopt;
        return UnboundedBy{o.key(o->startup), o.text(o->startup), "snapshot"};
    };
    f.create = [](const ConnectorContext& ctx) -> std::unique_ptr<Source> {
        return std::make_unique<postgres::PostgresSource>(
            postgres::settings_from(ctx.options), ctx.io, *ctx.metrics, ctx.bad_records->source());
    };
    registry.add(std::move(f));
}

}  // namespace cdcd
