#pragma once
// The Kafka sink's options (reference §6.2), declared as data, and the settings parsed from them.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/diagnostics.h"
#include "config/option_binding.h"
#include "config/option_spec.h"
#include "config/option_validator.h"
#include "formats/json/change_serializers.h"
#include "kafka_client/kafka_properties.h"
#include "sinks/kafka/producer.h"

namespace cdcd::kafka {

enum class KeyFormat { Json, Csv };
enum class SinkValueFormat { DebeziumJson, CanalJson };
enum class DeliveryGuarantee { None, AtLeastOnce, ExactlyOnce };

struct KafkaSinkSettings {
    ClientConfig client;
    std::optional<std::string> topic;
    std::string topic_mapping;  // sink.tableId-to-topic.mapping
    bool hash_by_key = false;   // partition.strategy
    KeyFormat key_format = KeyFormat::Json;
    SinkValueFormat value_format = SinkValueFormat::DebeziumJson;
    bool table_id_headers = false;  // sink.add-tableId-to-header-enabled
    Headers custom_headers;         // sink.custom-header
    DeliveryGuarantee delivery = DeliveryGuarantee::AtLeastOnce;
    json::DebeziumJsonOptions debezium;                  // debezium-json.*
    json::JsonFormatOptions canal;                       // canal-json.*
    json::JsonFormatOptions key_json;                    // json.*
    std::string pipeline_name;                           // for transactional ids
    std::optional<std::string> transactional_id_prefix;  // sink.transactional-id-prefix
};

/// The options as written, one member per option; KafkaSinkSettings is derived from them.
struct KafkaSinkOptions {
    std::optional<std::string> topic;
    std::optional<std::string> topic_mapping;
    bool hash_by_key = false;  // partition.strategy hash-by-key
    KeyFormat key_format = KeyFormat::Json;
    SinkValueFormat value_format = SinkValueFormat::DebeziumJson;
    bool table_id_headers = false;
    std::string custom_headers;  // unparsed
    DeliveryGuarantee delivery = DeliveryGuarantee::AtLeastOnce;
    std::optional<std::string> transactional_id_prefix;
    json::DebeziumJsonOptions debezium;
    json::JsonFormatOptions canal;
    json::JsonFormatOptions key_json;
    std::map<std::string, std::string> properties;  // properties.*, prefix stripped
};

/// Every option, declared and bound to its member of KafkaSinkOptions.
const config::OptionBindings<KafkaSinkOptions>& kafka_sink_bindings();
config::ConnectorOptionsSpec kafka_sink_options();
/// Cross-option checks (malformed headers / mapping, properties librdkafka rejects, exactly-once
/// without transactional ids of the pipeline's own); `pipeline`: the pipeline block's options.
void validate_kafka_sink(const config::ValidatedOptions& options,
                         const config::ValidatedOptions& pipeline,
                         config::Diagnostics& diagnostics);
/// Throws std::invalid_argument on what validate_kafka_sink reports, and for exactly-once
/// without sink.transactional-id-prefix while pipeline.name is the default (see
/// transactional_names in producer_config.h).
KafkaSinkSettings kafka_sink_settings(const config::ValidatedOptions& options,
                                      const std::string& pipeline_name);

/// sink.custom-header: pairs split on ';', key and value on ':' (Flink's code; its docs say ',').
Headers parse_custom_headers(const std::string& text);

}  // namespace cdcd::kafka
