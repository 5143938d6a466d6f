// Registers the `kafka` sink.
#include "pipeline/connector/registry.h"
#include "sinks/kafka/kafka_sink.h"

namespace cdcd {

void register_kafka_sink(ConnectorRegistry& registry) {
    SinkFactory f;
    f.name = "kafka";
    f.description =
        "Writes data changes to Kafka as debezium-json or canal-json, byte for byte as Flink CDC's "
        "Kafka sink: key [TableId, primary key] as JSON or CSV, topic per table / fixed / mapped, "
        "partition 0 or murmur2(key); at-least-once by default, exactly-once with transactions.";
    f.options = kafka::kafka_sink_options();
    f.validate = [](const config::ValidatedOptions& o, const config::ConnectorDef&,
                    const config::ValidatedOptions& pipeline,
                    config::Diagnostics& d) { kafka::validate_kafka_sink(o, pipeline, d); };
    f.create = [](const ConnectorContext& ctx) -> std::unique_ptr<Sink> {
        return std::make_unique<kafka::KafkaSink>(
            kafka::kafka_sink_settings(ctx.options, ctx.pipeline.name), *ctx.metrics,
            *ctx.bad_records);
    };
    registry.add(std::move(f));
}

}  // namespace cdcd
