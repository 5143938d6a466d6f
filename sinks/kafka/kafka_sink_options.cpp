#include "sinks/kafka/kafka_sink_options.h"

#include <cstring>
#include <stdexcept>

#include "config/pipeline_options.h"
#include "sinks/kafka/producer_config.h"
#include "sinks/kafka/topic_selector.h"

namespace cdcd::kafka {

namespace {

using config::OptionSpec;

const char* const kFormatPrefixes[] = {"debezium-json.", "canal-json.", "json."};

void add_json_format_options(std::vector<OptionSpec>& out, const std::string& prefix,
                             const std::string& what) {
    out.push_back(
        OptionSpec::enum_of(prefix + "timestamp-format.standard", {"SQL", "ISO-8601"})
            .default_("SQL")
            .desc(what +
                  ": timestamp text, 'yyyy-MM-dd HH:mm:ss' (SQL) or 'yyyy-MM-ddTHH:mm:ss'."));
    out.push_back(OptionSpec::enum_of(prefix + "map-null-key.mode", {"FAIL", "DROP", "LITERAL"})
                      .default_("FAIL")
                      .desc(what + ": what to do with a NULL map key."));
    out.push_back(OptionSpec::string(prefix + "map-null-key.literal")
                      .default_("null")
                      .desc(what + ": the key written for a NULL map key in LITERAL mode."));
    out.push_back(OptionSpec::boolean(prefix + "encode.decimal-as-plain-number")
                      .default_("false")
                      .desc(what + ": write decimals without scientific notation."));
    out.push_back(OptionSpec::boolean(prefix + "encode.ignore-null-fields")
                      .default_("false")
                      .desc(what + ": omit NULL fields."));
}

json::JsonFormatOptions json_format(const config::ValidatedOptions& o, const std::string& prefix) {
    json::JsonFormatOptions f;
    f.iso8601_timestamps = o.get_enum(prefix + "timestamp-format.standard") == "ISO-8601";
    std::string mode = o.get_enum(prefix + "map-null-key.mode");
    f.map_null_key = mode == "DROP"      ? json::JsonFormatOptions::MapNullKey::Drop
                     : mode == "LITERAL" ? json::JsonFormatOptions::MapNullKey::Literal
                                         : json::JsonFormatOptions::MapNullKey::Fail;
    f.map_null_key_literal = o.get_string(prefix + "map-null-key.literal");
    f.decimal_as_plain_number = o.get_bool(prefix + "encode.decimal-as-plain-number");
    f.ignore_null_fields = o.get_bool(prefix + "encode.ignore-null-fields");
    return f;
}

// Flink accepts the format options of the formats in use only (FactoryHelper skips the prefixes
// of key.format and value.format): options of another format would be ignored, so they are
// refused, naming the option that picks the format.
void refuse_unused_format_options(const config::ValidatedOptions& o, config::Diagnostics& d) {
    const std::string value_format = o.get_enum("value.format");
    const std::string key_format = o.get_enum("key.format");
    for (const auto& spec : kafka_sink_options().options) {
        const std::string& key = spec.key;
        if (!o.is_set(key)) continue;
        for (const char* prefix : kFormatPrefixes) {
            if (key.rfind(prefix, 0) != 0) continue;
            const std::string format(prefix, std::strlen(prefix) - 1);
            const bool is_key_format = format == "json";
            const std::string& in_use = is_key_format ? key_format : value_format;
            if (format == in_use) continue;
            // Leaving the Debezium schema off is what any other format does anyway.
            if (key == "debezium-json.include-schema.enabled" && !o.get_bool(key)) continue;
            d.error(o.location(key),
                    "`" + key + "` applies only to " +
                        (is_key_format ? "key.format " : "value.format ") + format + ", and " +
                        (is_key_format ? "key.format" : "value.format") + " is " + in_use +
                        "; remove it or set " + (is_key_format ? "key.format" : "value.format") +
                        ": " + format);
        }
    }
}

}  // namespace

config::ConnectorOptionsSpec kafka_sink_options() {
    config::ConnectorOptionsSpec spec;
    auto& o = spec.options;
    o.push_back(
        OptionSpec::string("topic").desc("Write every record to this topic (highest precedence)."));
    o.push_back(
        OptionSpec::string("sink.tableId-to-topic.mapping")
            .desc("`selector:topic;selector:topic`: first matching table selector picks the topic; "
                  "unmatched tables go to the topic named like the table id."));
    o.push_back(
        OptionSpec::enum_of("partition.strategy", {"all-to-zero", "hash-by-key"})
            .default_("all-to-zero")
            .desc(
                "all-to-zero: partition 0; hash-by-key: murmur2(key) % partitions, as Kafka's Java "
                "client places keyed records."));
    o.push_back(OptionSpec::enum_of("key.format", {"json", "csv"})
                    .default_("json")
                    .desc("Message key: the table id and primary-key values as JSON or CSV."));
    o.push_back(OptionSpec::enum_of("value.format", {"debezium-json", "canal-json"})
                    .default_("debezium-json")
                    .desc("Message value format."));
    o.push_back(OptionSpec::boolean("sink.add-tableId-to-header-enabled")
                    .default_("false")
                    .desc("Add headers namespace, schemaName, tableName."));
    o.push_back(OptionSpec::string("sink.custom-header")
                    .default_("")
                    .desc("Static headers `k1:v1;k2:v2` (';' between pairs, ':' within)."));
    o.push_back(
        OptionSpec::enum_of("sink.delivery-guarantee", {"none", "at-least-once", "exactly-once"})
            .default_("at-least-once")
            .desc("none: fire and forget; at-least-once: every record acknowledged at each "
                  "checkpoint; exactly-once: one Kafka transaction per checkpoint for the whole "
                  "sink, committed when the checkpoint is durable; a commit a crash prevented is "
                  "detected at the next start (commit marker: group <prefix>-eos, or "
                  "cdcd-eos-<pipeline.name>) and the records are written again (read with "
                  "isolation.level=read_committed). Producers are idempotent unless "
                  "properties.enable.idempotence is false, so a key's records keep their order "
                  "across retries."));
    o.push_back(
        OptionSpec::string("sink.transactional-id-prefix")
            .desc("exactly-once: the prefix of the Kafka transactional ids (<prefix>-0-<n>) and "
                  "of the commit-marker group (<prefix>-eos); unique per pipeline, as two "
                  "pipelines with one prefix fence each other. Without it they derive from "
                  "pipeline.name (cdcd-<pipeline.name>-0-<n>), which must then not be the "
                  "default."));
    o.push_back(OptionSpec::boolean("debezium-json.include-schema.enabled")
                    .default_("false")
                    .desc("Wrap debezium-json in {\"schema\":…,\"payload\":…}."));
    add_json_format_options(o, "debezium-json.", "debezium-json value");
    add_json_format_options(o, "canal-json.", "canal-json value");
    add_json_format_options(o, "json.", "json key");
    spec.prefixes.push_back(
        {"properties.", "Kafka producer settings, passed to librdkafka (Java names translated)."});
    return spec;
}

Headers parse_custom_headers(const std::string& text) {
    Headers out;
    if (text.empty()) return out;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find(';', start);
        std::string pair =
            text.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (!(pair.empty() && end == std::string::npos)) {
            auto colon = pair.find(':');
            if (colon == std::string::npos || pair.find(':', colon + 1) != std::string::npos ||
                colon == 0 || colon + 1 == pair.size())
                throw std::invalid_argument("sink.custom-header: '" + text +
                                            "' is malformed; expected key1:value1;key2:value2");
            out.emplace_back(pair.substr(0, colon), pair.substr(colon + 1));
        }
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return out;
}

void validate_kafka_sink(const config::ValidatedOptions& o,
                         const config::ValidatedOptions& pipeline, config::Diagnostics& d) {
    if (o.get_enum("sink.delivery-guarantee") == "exactly-once") {
        // The same rule as at start (transactional_names()), so `cdcd validate` reports it.
        KafkaSinkSettings names;
        names.delivery = DeliveryGuarantee::ExactlyOnce;
        if (o.has("sink.transactional-id-prefix"))
            names.transactional_id_prefix = o.get_string("sink.transactional-id-prefix");
        names.pipeline_name = pipeline.has("name") ? pipeline.get_string("name")
                                                   : std::string(config::kDefaultPipelineName);
        try {
            transactional_names(names);
        } catch (const std::exception& e) {
            d.error(o.location("sink.delivery-guarantee"), e.what());
        }
    } else if (o.is_set("sink.transactional-id-prefix")) {
        d.error(o.location("sink.transactional-id-prefix"),
                "`sink.transactional-id-prefix` applies only to sink.delivery-guarantee "
                "exactly-once (sink.delivery-guarantee is " +
                    o.get_enum("sink.delivery-guarantee") + ")");
    }
    refuse_unused_format_options(o, d);
    try {
        parse_custom_headers(o.get_string("sink.custom-header"));
    } catch (const std::exception& e) {
        d.error(o.location("sink.custom-header"), e.what());
    }
    if (o.has("sink.tableId-to-topic.mapping")) {
        try {
            TopicSelector(std::nullopt, o.get_string("sink.tableId-to-topic.mapping"));
        } catch (const std::exception& e) {
            d.error(o.location("sink.tableId-to-topic.mapping"), e.what());
        }
    }
    auto props = o.with_prefix("properties.");
    if (!props.count("bootstrap.servers"))
        d.error(o.location("properties.bootstrap.servers"),
                "`properties.bootstrap.servers` is required");
    try {
        translate_properties(props, ClientRole::Producer);
    } catch (const std::exception& e) {
        std::string key = std::string(e.what()).substr(0, std::string(e.what()).find(':'));
        d.error(o.location(key), e.what());
    }
}

KafkaSinkSettings kafka_sink_settings(const config::ValidatedOptions& o,
                                      const std::string& pipeline_name) {
    KafkaSinkSettings s;
    s.client = translate_properties(o.with_prefix("properties."), ClientRole::Producer);
    if (o.has("topic")) s.topic = o.get_string("topic");
    if (o.has("sink.tableId-to-topic.mapping"))
        s.topic_mapping = o.get_string("sink.tableId-to-topic.mapping");
    s.hash_by_key = o.get_enum("partition.strategy") == "hash-by-key";
    s.key_format = o.get_enum("key.format") == "csv" ? KeyFormat::Csv : KeyFormat::Json;
    s.value_format = o.get_enum("value.format") == "canal-json" ? ValueFormat::CanalJson
                                                                : ValueFormat::DebeziumJson;
    s.table_id_headers = o.get_bool("sink.add-tableId-to-header-enabled");
    s.custom_headers = parse_custom_headers(o.get_string("sink.custom-header"));
    std::string dg = o.get_enum("sink.delivery-guarantee");
    s.delivery = dg == "none"           ? DeliveryGuarantee::None
                 : dg == "exactly-once" ? DeliveryGuarantee::ExactlyOnce
                                        : DeliveryGuarantee::AtLeastOnce;
    s.debezium.include_schema = o.get_bool("debezium-json.include-schema.enabled");
    s.debezium.json = json_format(o, kFormatPrefixes[0]);
    s.canal = json_format(o, kFormatPrefixes[1]);
    s.key_json = json_format(o, kFormatPrefixes[2]);
    s.pipeline_name = pipeline_name;
    if (o.has("sink.transactional-id-prefix"))
        s.transactional_id_prefix = o.get_string("sink.transactional-id-prefix");
    if (s.delivery == DeliveryGuarantee::ExactlyOnce) transactional_names(s);  // throws if unset
    return s;
}

}  // namespace cdcd::kafka
