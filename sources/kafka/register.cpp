// Registers the `kafka` source.
#include "pipeline/connector/registry.h"
#include "sources/kafka/kafka_source.h"
#include "sources/kafka/kafka_source_options.h"

namespace cdcd {

void register_kafka_source(ConnectorRegistry& registry) {
    SourceFactory f;
    f.name = "kafka";
    f.description =
        "Consumes json, debezium-json or canal-json messages from Kafka topics (list or pattern), "
        "infers and evolves each table's schema, checkpoints offsets and commits them to the "
        "consumer group when checkpoints complete.";
    f.options = kafka::kafka_source_options();
    // metadata.list's names, usable in transform projections and filters (`*, topic, offset`).
    f.metadata_columns = [](const config::ValidatedOptions& options) {
        std::vector<MetadataColumn> cols;
        const auto o = kafka::kafka_source_bindings().read(options);
        if (!o->metadata_list) return cols;
        for (const auto& name : *o->metadata_list)
            if (auto field = kafka::metadata_field(name))
                cols.push_back({name, kafka::metadata_type(*field)});
        return cols;
    };
    f.validate = [](const config::ValidatedOptions& o, const config::ConnectorDef&,
                    const config::ValidatedOptions&,
                    config::Diagnostics& d) { kafka::validate_kafka_source(o, d); };
    // Kafka ends only at the end offsets found at start (scan.bounded.mode latest-offset).
    f.unbounded_by = [](const config::ValidatedOptions& options) -> std::optional<UnboundedBy> {
        const auto o = kafka::kafka_source_bindings().read(options);
        if (o->bounded) return std::nullopt;
        return UnboundedBy{o.key(o->bounded), o.text(o->bounded), "latest-offset"};
    };
    f.create = [](const ConnectorContext& ctx) -> std::unique_ptr<Source> {
        return std::make_unique<kafka::KafkaSource>(kafka::kafka_source_settings(ctx.options),
                                                    ctx.io, *ctx.metrics,
                                                    ctx.bad_records->source());
    };
    registry.add(std::move(f));
}

}  // namespace cdcd
