// Registers the `vikingdb` sink.
#include "pipeline/connector/registry.h"
#include "sinks/vikingdb/collection_naming.h"
#include "sinks/vikingdb/vikingdb_sink.h"

namespace cdcd {

void register_vikingdb_sink(ConnectorRegistry& registry) {
    SinkFactory f;
    f.name = "vikingdb";
    f.description =
        "Writes data changes to Volcengine VikingDB collections (2025 API): INSERT/UPDATE/REPLACE "
        "as upserts, "
        "DELETE by primary key, CREATE TABLE creates or validates the collection, DROP TABLE "
        "deletes it, TRUNCATE "
        "TABLE deletes all records; batched, at-least-once.";
    f.options = vikingdb::vikingdb_sink_options();
    f.validate = [](const config::ValidatedOptions& options, const config::ConnectorDef&,
                    const config::ValidatedOptions&, config::Diagnostics& d) {
        vikingdb::validate_vikingdb_sink(options, d);
        const auto o = vikingdb::vikingdb_sink_bindings().read(options);
        if (o->name_template) {
            std::string error = vikingdb::CollectionNaming::check_template(*o->name_template);
            if (!error.empty()) d.error(o.where(o->name_template), "sink `vikingdb`: " + error);
        }
    };
    f.create = [](const ConnectorContext& ctx) -> std::unique_ptr<Sink> {
        return std::make_unique<vikingdb::VikingdbSink>(
            vikingdb::vikingdb_settings(ctx.options), ctx.io, ctx.pipeline.local_time_zone,
            *ctx.metrics, *ctx.bad_records, ctx.stopping);
    };
    registry.add(std::move(f));
}

}  // namespace cdcd
