#pragma once
// The Kafka sink's option errors for a block of options (bootstrap servers added), as
// `cdcd validate` reports them: the generic checks, then validate_kafka_sink's.
#include <map>
#include <string>

#include "sinks/kafka/kafka_sink_options.h"
#include "tests/unit/config/options_block.h"

namespace cdcd::kafka::testing {

inline std::string sink_option_errors(std::map<std::string, std::string> kv) {
    kv.emplace("properties.bootstrap.servers", "127.0.0.1:9");
    config::Diagnostics d;
    auto o = config::test::validate_block(kafka_sink_options(), kv, "sink `kafka`", d);
    config::ValidatedOptions pipeline;
    validate_kafka_sink(o, pipeline, d);
    return d.ok() ? std::string() : d.to_string();
}

}  // namespace cdcd::kafka::testing
