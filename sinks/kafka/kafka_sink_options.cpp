#include "sinks/kafka/kafka_sink_options.h"

#include <cstring>
#include <stdexcept>

#include "config/pipeline_options.h"
#include "kafka_client/topic_name.h"
#include "sinks/kafka/producer_config.h"
#include "sinks/kafka/topic_selector.h"

namespace cdcd::kafka {

namespace {

using config::OptionSpec;

using Options = config::BoundOptions<KafkaSinkOptions>;
using Binding = config::OptionBinding<KafkaSinkOptions>;

const char* const kFormatPrefixes[] = {"debezium-json.", "canal-json.", "json."};

// The options of one JSON format (prefix "debezium-json.", ...), bound to the JsonFormatOptions
// member reached by path.
template <typename... Path>
void add_json_format_options(std::vector<Binding>& out, const std::string& prefix,
                             const std::string& what, Path... path) {
    using F = json::JsonFormatOptions;
    using MapNullKey = F::MapNullKey;
    out.push_back(
        OptionSpec::enum_of<bool>(prefix + "timestamp-format.standard",
                                  {{"SQL", false}, {"ISO-8601", true}})
            .default_("SQL")
            .desc(what + ": timestamp text, 'yyyy-MM-dd HH:mm:ss' (SQL) or 'yyyy-MM-ddTHH:mm:ss'.")
            .to(path..., &F::iso8601_timestamps));
    out.push_back(OptionSpec::enum_of<MapNullKey>(prefix + "map-null-key.mode",
                                                  {{"FAIL", MapNullKey::Fail},
                                                   {"DROP", MapNullKey::Drop},
                                                   {"LITERAL", MapNullKey::Literal}})
                      .default_("FAIL")
                      .desc(what + ": what to do with a NULL map key.")
                      .to(path..., &F::map_null_key));
    out.push_back(OptionSpec::string(prefix + "map-null-key.literal")
                      .default_("null")
                      .desc(what + ": the key written for a NULL map key in LITERAL mode.")
                      .to(path..., &F::map_null_key_literal));
    out.push_back(OptionSpec::boolean(prefix + "encode.decimal-as-plain-number")
                      .default_("false")
                      .desc(what + ": write decimals without scientific notation.")
                      .to(path..., &F::decimal_as_plain_number));
    out.push_back(OptionSpec::boolean(prefix + "encode.ignore-null-fields")
                      .default_("false")
                      .desc(what + ": omit NULL fields.")
                      .to(path..., &F::ignore_null_fields));
}

std::vector<Binding> option_list() {
    using O = KafkaSinkOptions;
    std::vector<Binding> o;
    o.push_back(OptionSpec::string("topic")
                    .desc("Write every record to this topic (highest precedence).")
                    .to(&O::topic));
    o.push_back(
        OptionSpec::string("sink.tableId-to-topic.mapping")
            .desc("`selector:topic;selector:topic`: first matching table selector picks the topic; "
                  "unmatched tables go to the topic named like the table id.")
            .to(&O::topic_mapping));
    o.push_back(
        OptionSpec::enum_of<bool>("partition.strategy",
                                  {{"all-to-zero", false}, {"hash-by-key", true}})
            .default_("all-to-zero")
            .desc(
                "all-to-zero: partition 0; hash-by-key: murmur2(key) % partitions, as Kafka's Java "
                "client places keyed records.")
            .to(&O::hash_by_key));
    o.push_back(OptionSpec::enum_of<KeyFormat>("key.format",
                                               {{"json", KeyFormat::Json}, {"csv", KeyFormat::Csv}})
                    .default_("json")
                    .desc("Message key: the table id and primary-key values as JSON or CSV.")
                    .to(&O::key_format));
    o.push_back(OptionSpec::enum_of<SinkValueFormat>(
                    "value.format", {{"debezium-json", SinkValueFormat::DebeziumJson},
                                     {"canal-json", SinkValueFormat::CanalJson}})
                    .default_("debezium-json")
                    .desc("Message value format.")
                    .to(&O::value_format));
    o.push_back(OptionSpec::boolean("sink.add-tableId-to-header-enabled")
                    .default_("false")
                    .desc("Add headers namespace, schemaName, tableName.")
                    .to(&O::table_id_headers));
    o.push_back(OptionSpec::string("sink.custom-header")
                    .default_("")
                    .desc("Static headers `k1:v1;k2:v2` (';' between pairs, ':' within).")
                    .to(&O::custom_headers));
    o.push_back(
        OptionSpec::enum_of<DeliveryGuarantee>("sink.delivery-guarantee",
                                               {{"none", DeliveryGuarantee::None},
                                                {"at-least-once", DeliveryGuarantee::AtLeastOnce},
                                                {"exactly-once", DeliveryGuarantee::ExactlyOnce}})
            .default_("at-least-once")
            .desc("none: fire and forget; at-least-once: every record acknowledged at each "
                  "checkpoint; exactly-once: one Kafka transaction per checkpoint for the whole "
                  "sink, committed when the checkpoint is durable; a commit a crash prevented is "
                  "detected at the next start (commit marker: group <prefix>-eos, or "
                  "cdcd-eos-<pipeline.name>) and the records are written again (read with "
                  "isolation.level=read_committed). Producers are idempotent unless "
                  "properties.enable.idempotence is false, so a key's records keep their order "
                  "across retries.")
            .to(&O::delivery));
    o.push_back(
        OptionSpec::string("sink.transactional-id-prefix")
            .desc("exactly-once: the prefix of the Kafka transactional ids (<prefix>-0-<n>) and "
                  "of the commit-marker group (<prefix>-eos); unique per pipeline, as two "
                  "pipelines with one prefix fence each other. Without it they derive from "
                  "pipeline.name (cdcd-<pipeline.name>-0-<n>), which must then not be the "
                  "default.")
            .to(&O::transactional_id_prefix));
    o.push_back(OptionSpec::boolean("debezium-json.include-schema.enabled")
                    .default_("false")
                    .desc("Wrap debezium-json in {\"schema\":…,\"payload\":…}.")
                    .to(&O::debezium, &json::DebeziumJsonOptions::include_schema));
    add_json_format_options(o, "debezium-json.", "debezium-json value", &O::debezium,
                            &json::DebeziumJsonOptions::json);
    add_json_format_options(o, "canal-json.", "canal-json value", &O::canal);
    add_json_format_options(o, "json.", "json key", &O::key_json);
    return o;
}

// Flink accepts the format options of the formats in use only (FactoryHelper skips the prefixes
// of key.format and value.format): options of another format would be ignored, so they are
// refused, naming the option that picks the format.
void refuse_unused_format_options(const Options& o, config::Diagnostics& d) {
    const std::string value_format = o.text(o->value_format);
    const std::string key_format = o.text(o->key_format);
    for (const auto& spec : kafka_sink_options().options) {
        const std::string& key = spec.key;
        if (!o.options().is_set(key)) continue;
        for (const char* prefix : kFormatPrefixes) {
            if (key.rfind(prefix, 0) != 0) continue;
            const std::string format(prefix, std::strlen(prefix) - 1);
            const bool is_key_format = format == "json";
            const std::string& in_use = is_key_format ? key_format : value_format;
            if (format == in_use) continue;
            // Leaving the Debezium schema off is what any other format does anyway.
            if (key == o.key(o->debezium.include_schema) && !o->debezium.include_schema) continue;
            const std::string& chooser =
                is_key_format ? o.key(o->key_format) : o.key(o->value_format);
            d.error(o.options().location(key), "`" + key + "` applies only to " + chooser + " " +
                                                   format + ", and " + chooser + " is " + in_use +
                                                   "; remove it or set " + chooser + ": " + format);
        }
    }
}

}  // namespace

const config::OptionBindings<KafkaSinkOptions>& kafka_sink_bindings() {
    static const config::OptionBindings<KafkaSinkOptions> bindings{
        option_list(),
        {config::PrefixSpec{"properties.",
                            "Kafka producer settings, passed to librdkafka (Java "
                            "names translated)."}
             .to(&KafkaSinkOptions::properties)},
    };
    return bindings;
}

config::ConnectorOptionsSpec kafka_sink_options() {
    return kafka_sink_bindings().spec();
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

void validate_kafka_sink(const config::ValidatedOptions& options,
                         const config::ValidatedOptions& pipeline, config::Diagnostics& d) {
    const Options o = kafka_sink_bindings().read(options);
    config::PipelineOptions unset;
    unset.name = config::kDefaultPipelineName;
    const auto pipeline_options = config::pipeline_option_bindings().read(pipeline, unset);
    if (o->delivery == DeliveryGuarantee::ExactlyOnce) {
        // The same rule as at start (transactional_names()), so `cdcd validate` reports it.
        KafkaSinkSettings names;
        names.delivery = DeliveryGuarantee::ExactlyOnce;
        names.transactional_id_prefix = o->transactional_id_prefix;
        names.pipeline_name = pipeline_options->name;
        try {
            transactional_names(names);
        } catch (const std::exception& e) {
            d.error(o.where(o->delivery), e.what());
        }
    } else if (o.is_set(o->transactional_id_prefix)) {
        d.error(o.where(o->transactional_id_prefix), "`" + o.key(o->transactional_id_prefix) +
                                                         "` applies only to " + o.key(o->delivery) +
                                                         " exactly-once (" + o.key(o->delivery) +
                                                         " is " + o.text(o->delivery) + ")");
    }
    refuse_unused_format_options(o, d);
    try {
        parse_custom_headers(o->custom_headers);
    } catch (const std::exception& e) {
        d.error(o.where(o->custom_headers), e.what());
    }
    if (o->topic)
        if (auto problem = topic_name_problem(*o->topic))
            d.error(o.where(o->topic), "`" + o.key(o->topic) + "`: " + *problem);
    if (o->topic_mapping) {
        try {
            TopicSelector(std::nullopt, *o->topic_mapping);
        } catch (const std::exception& e) {
            d.error(o.where(o->topic_mapping), e.what());
        }
    }
    const auto& props = o->properties;
    if (auto problem = bootstrap_servers_problem(props))
        d.error(o.where(props, "bootstrap.servers"), *problem);
    try {
        const ClientConfig client = translate_properties(props, ClientRole::Producer);
        if (o->delivery == DeliveryGuarantee::ExactlyOnce)
            if (auto why = transactions_outlived(client, pipeline_options->checkpoint_interval))
                d.error(o.where(o->delivery), *why);
    } catch (const std::exception& e) {
        std::string key = std::string(e.what()).substr(0, std::string(e.what()).find(':'));
        d.error(o.options().location(key), e.what());
    }
}

KafkaSinkSettings kafka_sink_settings(const config::ValidatedOptions& options,
                                      const std::string& pipeline_name) {
    const KafkaSinkOptions o = kafka_sink_bindings().read(options).take();
    KafkaSinkSettings s;
    s.client = translate_properties(o.properties, ClientRole::Producer);
    s.topic = o.topic;
    if (o.topic_mapping) s.topic_mapping = *o.topic_mapping;
    s.hash_by_key = o.hash_by_key;
    s.key_format = o.key_format;
    s.value_format = o.value_format;
    s.table_id_headers = o.table_id_headers;
    s.custom_headers = parse_custom_headers(o.custom_headers);
    s.delivery = o.delivery;
    s.debezium = o.debezium;
    s.canal = o.canal;
    s.key_json = o.key_json;
    s.pipeline_name = pipeline_name;
    s.transactional_id_prefix = o.transactional_id_prefix;
    if (s.delivery == DeliveryGuarantee::ExactlyOnce) transactional_names(s);  // throws if unset
    return s;
}

}  // namespace cdcd::kafka
