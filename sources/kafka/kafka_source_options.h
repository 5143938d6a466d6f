#pragma once
// The Kafka source's options, declared as data; validation of the rules between them; settings.
#include <map>

#include "config/diagnostics.h"
#include "config/option_spec.h"
#include "config/option_validator.h"
#include "sources/kafka/kafka_consumer.h"

namespace cdcd::kafka {

/// Subscribes as a member of the consumer group instead of assigning every partition itself.
inline constexpr const char* kConsumerGroupOption = "scan.consumer-group.enabled";

config::ConnectorOptionsSpec kafka_source_options();
void validate_kafka_source(const config::ValidatedOptions& options,
                           config::Diagnostics& diagnostics);
/// Throws std::invalid_argument on what validate_kafka_source reports.
ConsumerSettings kafka_source_settings(const config::ValidatedOptions& options);

/// `partition:0,offset:42;partition:1,offset:300` → {0: 42, 1: 300}.
std::map<std::int32_t, std::int64_t> parse_specific_offsets(const std::string& text);

}  // namespace cdcd::kafka
