#pragma once
// The Kafka source's options, declared as data; validation of the rules between them; settings.
#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/diagnostics.h"
#include "config/option_binding.h"
#include "config/option_spec.h"
#include "config/option_validator.h"
#include "sources/kafka/kafka_consumer.h"

namespace cdcd::kafka {

/// Subscribes as a member of the consumer group instead of assigning every partition itself.
inline constexpr const char* kConsumerGroupOption = "scan.consumer-group.enabled";

/// The options as written, one member per option; ConsumerSettings is derived from them
/// (kafka_source_settings).
struct KafkaSourceOptions {
    std::optional<std::string> topic;  // comma-separated
    std::optional<std::string> topic_pattern;
    std::string value_format;  // required; empty when missing
    std::optional<std::string> fixed_table;
    std::optional<bool> table_from_key;  // table-id.dynamic.from: key (true) or value
    std::optional<std::vector<std::string>> table_fields;
    StartupMode startup = StartupMode::GroupOffsets;
    std::optional<std::int64_t> startup_timestamp_ms;
    std::optional<std::string> specific_offsets;
    bool bounded = false;  // scan.bounded.mode latest-offset
    bool consumer_group = false;
    std::chrono::milliseconds discovery_interval{0};
    std::optional<std::chrono::milliseconds> flink_discovery_interval;
    std::optional<double> rate_limit;
    std::optional<std::vector<std::string>> metadata_list;
    bool ignore_parse_errors = false;
    std::optional<bool> json_ignore_parse_errors;
    std::optional<bool> debezium_json_ignore_parse_errors;
    std::optional<bool> canal_json_ignore_parse_errors;
    std::optional<std::string> canal_database_include;
    std::optional<std::string> canal_table_include;
    bool debezium_schema_include = false;
    int max_batch = 0;
    std::optional<std::size_t> max_message_bytes;  // unset: the consumer's fetch.max.bytes
    std::size_t max_json_depth = 0;
    std::size_t max_columns_per_table = 0;
    std::size_t max_tables = 0;
    std::size_t max_total_columns = 0;
    std::map<std::string, std::string> properties;  // properties.*, prefix stripped
};

/// Every option, declared and bound to its member of KafkaSourceOptions.
const config::OptionBindings<KafkaSourceOptions>& kafka_source_bindings();
config::ConnectorOptionsSpec kafka_source_options();
void validate_kafka_source(const config::ValidatedOptions& options,
                           config::Diagnostics& diagnostics);
/// Throws std::invalid_argument on what validate_kafka_source reports.
ConsumerSettings kafka_source_settings(const config::ValidatedOptions& options);

/// `partition:0,offset:42;partition:1,offset:300` → {0: 42, 1: 300}.
std::map<std::int32_t, std::int64_t> parse_specific_offsets(const std::string& text);

}  // namespace cdcd::kafka
