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
    // metadata.list's names, usable in transform projections and filters.
    f.metadata_columns = [](const config::ValidatedOptions& options) {
        std::vector<MetadataColumn> columns;
        const auto o = postgres::option_bindings().read(options);
        if (!o->metadata_list) return columns;
        try {
            for (auto field : postgres::parse_metadata_list(*o->metadata_list))
                columns.push_back({postgres::metadata_name(field), postgres::metadata_type(field)});
        } catch (const std::invalid_argument&) {
            // validate reports it at the option's line.
        }
        return columns;
    };
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
