#include "sources/kafka/kafka_source_options.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "kafka_client/kafka_properties.h"
#include "kafka_client/topic_name.h"
#include "regex/java_regex.h"
#include "text/ascii.h"

namespace cdcd::kafka {

namespace {

using config::OptionSpec;

// scan.topic-partition-discovery.interval 0: never look again (about a century).
constexpr std::int64_t kNoDiscoveryMs = 100LL * 365 * 24 * 3600 * 1000;

// What the entries of scan.startup.specific-offsets are trimmed of.
constexpr std::string_view kBlank = " \t";

template <typename T>
T parse_number(std::string_view s, const std::string& what) {
    T v{};
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || s.empty())
        throw std::invalid_argument("scan.startup.specific-offsets: " + what + " '" +
                                    std::string(s) + "' is not a number");
    return v;
}

// properties.max.poll.records: as scan.max-batch-size (the consumer allocates that many slots).
constexpr long long kMaxBatch = 1 << 20;

// A Java consumer property cdcd reads itself (ClientConfig::handled), as a whole number.
std::optional<long long> handled_number(const ClientConfig& client, const std::string& key) {
    auto it = client.handled.find(key);
    if (it == client.handled.end()) return std::nullopt;
    auto n = config::parse_long(it->second);
    if (!n)
        throw std::invalid_argument("properties." + key + ": '" + it->second +
                                    "' is not a whole number");
    return n;
}

using Options = config::BoundOptions<KafkaSourceOptions>;

std::string first_key(const std::string& message) {
    return message.substr(0, message.find(':'));
}

}  // namespace

std::map<std::int32_t, std::int64_t> parse_specific_offsets(const std::string& text) {
    std::map<std::int32_t, std::int64_t> out;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find(';', start);
        const std::string_view item = std::string_view(text).substr(
            start, end == std::string::npos ? std::string::npos : end - start);
        std::string entry(ascii::trim(item, kBlank));
        start = end == std::string::npos ? text.size() : end + 1;
        if (entry.empty()) continue;
        auto comma = entry.find(',');
        if (comma == std::string::npos)
            throw std::invalid_argument("scan.startup.specific-offsets: '" + entry +
                                        "' is not of the form partition:<n>,offset:<n>");
        std::string p(ascii::trim(std::string_view(entry).substr(0, comma), kBlank)),
            o(ascii::trim(std::string_view(entry).substr(comma + 1), kBlank));
        if (p.rfind("partition:", 0) != 0 || o.rfind("offset:", 0) != 0)
            throw std::invalid_argument("scan.startup.specific-offsets: '" + entry +
                                        "' is not of the form partition:<n>,offset:<n>");
        auto partition = parse_number<std::int32_t>(ascii::trim(p.substr(10), kBlank), "partition");
        auto offset = parse_number<std::int64_t>(ascii::trim(o.substr(7), kBlank), "offset");
        if (partition < 0 || offset < 0)
            throw std::invalid_argument("scan.startup.specific-offsets: negative value");
        out[partition] = offset;
    }
    if (out.empty())
        throw std::invalid_argument("scan.startup.specific-offsets: no partition offsets given");
    return out;
}

const config::OptionBindings<KafkaSourceOptions>& kafka_source_bindings() {
    static const config::OptionBindings<KafkaSourceOptions> bindings{
        {
            OptionSpec::string("topic")
                .desc("Topics to read, comma-separated (exclusive with topic-pattern).")
                .to(&KafkaSourceOptions::topic),
            OptionSpec::string("topic-pattern")
                .desc("Java regex of the topics to read; topics created later are picked up at "
                      "partition "
                      "discovery (exclusive with topic).")
                .to(&KafkaSourceOptions::topic_pattern),
            OptionSpec::enum_of("value.format", {"json", "debezium-json", "canal-json"})
                .required()
                .desc("Message value format.")
                .to(&KafkaSourceOptions::value_format),
            OptionSpec::string("table-id.fixed.name")
                .desc("Every message belongs to this table (`table`, `schema.table` or "
                      "`ns.schema.table`).")
                .to(&KafkaSourceOptions::fixed_table),
            OptionSpec::enum_of<bool>("table-id.dynamic.from", {{"key", true}, {"value", false}})
                .desc("Read the table id from the message key or value (with "
                      "table-id.dynamic.fields).")
                .to(&KafkaSourceOptions::table_from_key),
            OptionSpec::list("table-id.dynamic.fields")
                .desc("1–3 comma-separated JSON paths of string fields: table | schema,table | "
                      "namespace,schema,table, e.g. source.db,source.table.")
                .to(&KafkaSourceOptions::table_fields),
            OptionSpec::enum_of<StartupMode>("scan.startup.mode",
                                             {{"earliest-offset", StartupMode::EarliestOffset},
                                              {"latest-offset", StartupMode::LatestOffset},
                                              {"group-offsets", StartupMode::GroupOffsets},
                                              {"timestamp", StartupMode::Timestamp},
                                              {"specific-offsets", StartupMode::SpecificOffsets}})
                .default_("group-offsets")
                .desc("Where a pipeline without a checkpoint starts. group-offsets falls back to "
                      "properties.auto.offset.reset (default latest) for partitions without a "
                      "committed offset.")
                .to(&KafkaSourceOptions::startup),
            OptionSpec::long_("scan.startup.timestamp-millis")
                .at_least(0)
                .desc("scan.startup.mode timestamp: first offset whose timestamp is at or after "
                      "this.")
                .to(&KafkaSourceOptions::startup_timestamp_ms),
            OptionSpec::string("scan.startup.specific-offsets")
                .desc("scan.startup.mode specific-offsets: "
                      "`partition:0,offset:42;partition:1,offset:300`; "
                      "other partitions start from the committed group offset.")
                .to(&KafkaSourceOptions::specific_offsets),
            OptionSpec::enum_of<bool>("scan.bounded.mode",
                                      {{"unbounded", false}, {"latest-offset", true}})
                .default_("unbounded")
                .desc("latest-offset: stop at the end offsets found at start (the pipeline "
                      "then finishes).")
                .to(&KafkaSourceOptions::bounded),
            OptionSpec::boolean(kConsumerGroupOption)
                .default_("false")
                .desc(
                    "cdcd extension: join the consumer group properties.group.id "
                    "(cooperative-sticky "
                    "assignment), so that several cdcd replicas share the topics' partitions; each "
                    "checkpoints the partitions it owns and hands a revoked partition over through "
                    "the group's committed offset (docs/scaling.md).")
                .to(&KafkaSourceOptions::consumer_group),
            OptionSpec::duration("scan.partition-discovery.interval")
                .default_("5 min")
                .at_least(100)
                .desc(
                    "How often new partitions and (with topic-pattern) new topics are looked for.")
                .to(&KafkaSourceOptions::discovery_interval),
            OptionSpec::duration("scan.topic-partition-discovery.interval")
                .at_least(0)
                .desc("Flink's spelling of scan.partition-discovery.interval (set one of "
                      "them); 0 turns discovery off, as in Flink.")
                .to(&KafkaSourceOptions::flink_discovery_interval),
            OptionSpec::double_("scan.rate-limit.records-per-second")
                .desc("The most change records the source emits per second (a token bucket holding "
                      "one "
                      "second's worth); unset: no limit.")
                .to(&KafkaSourceOptions::rate_limit),
            OptionSpec::list("metadata.list")
                .desc("Kafka metadata put into each event's meta: topic, partition, offset, "
                      "timestamp, "
                      "timestamp-type, key, headers.")
                .to(&KafkaSourceOptions::metadata_list),
            OptionSpec::boolean("ignore-parse-errors")
                .default_("false")
                .desc("Skip (count and log) messages that cannot be parsed instead of failing.")
                .to(&KafkaSourceOptions::ignore_parse_errors),
            OptionSpec::boolean("json.ignore-parse-errors")
                .desc("Flink's format option: ignore-parse-errors for value.format json only.")
                .to(&KafkaSourceOptions::json_ignore_parse_errors),
            OptionSpec::boolean("debezium-json.ignore-parse-errors")
                .desc("Flink's format option: ignore-parse-errors for value.format debezium-json "
                      "only.")
                .to(&KafkaSourceOptions::debezium_json_ignore_parse_errors),
            OptionSpec::boolean("canal-json.ignore-parse-errors")
                .desc(
                    "Flink's format option: ignore-parse-errors for value.format canal-json only.")
                .to(&KafkaSourceOptions::canal_json_ignore_parse_errors),
            OptionSpec::string("canal-json.database.include")
                .desc("canal-json: only messages whose `database` field matches this Java "
                      "regex (whole value) are read; others are skipped.")
                .to(&KafkaSourceOptions::canal_database_include),
            OptionSpec::string("canal-json.table.include")
                .desc("canal-json: only messages whose `table` field matches this Java "
                      "regex (whole value) are read; others are skipped.")
                .to(&KafkaSourceOptions::canal_table_include),
            OptionSpec::boolean("debezium-json.schema-include")
                .default_("false")
                .desc("debezium-json: messages carry the {\"schema\",\"payload\"} envelope "
                      "(required when true; detected either way); when true, column types "
                      "come from its Kafka Connect schema (docs/kafka.md).")
                .to(&KafkaSourceOptions::debezium_schema_include),
            OptionSpec::integer("scan.max-batch-size")
                .default_("2048")
                .range(1, kMaxBatch)
                .desc("Messages taken from librdkafka at once (properties.max.poll.records "
                      "sets it too).")
                .to(&KafkaSourceOptions::max_batch),
            // Limits (MessageLimits): a message over one is a bad record (bad-record.policy).
            OptionSpec::memory_size(MessageLimits::kMessageBytesOption)
                .range(1, 1LL << 31)
                .desc(
                    "cdcd extension: the largest message (key and value) decoded; larger ones are "
                    "bad records. Default: the consumer's fetch.max.bytes (librdkafka's 50 MB).")
                .to(&KafkaSourceOptions::max_message_bytes),
            OptionSpec::integer(MessageLimits::kJsonDepthOption)
                .default_(std::to_string(MessageLimits::kDefaultJsonDepth))
                .range(4, 100'000)
                .desc("cdcd extension: how deep the objects and arrays of a row image's "
                      "values may nest, counted from the message's top level.")
                .to(&KafkaSourceOptions::max_json_depth),
            OptionSpec::integer(MessageLimits::kColumnsOption)
                .default_(std::to_string(MessageLimits::kDefaultColumns))
                .range(1, 1'000'000)
                .desc("cdcd extension: the most columns schema inference gives one table.")
                .to(&KafkaSourceOptions::max_columns_per_table),
            OptionSpec::integer(MessageLimits::kTablesOption)
                .default_(std::to_string(MessageLimits::kDefaultTables))
                .range(1, 10'000'000)
                .desc("cdcd extension: the most distinct table ids the source tracks (each "
                      "keeps an inferred schema in every checkpoint).")
                .to(&KafkaSourceOptions::max_tables),
            OptionSpec::integer(MessageLimits::kTotalColumnsOption)
                .default_(std::to_string(MessageLimits::kDefaultTotalColumns))
                .range(1, 100'000'000)
                .desc("cdcd extension: the most columns of all inferred tables together.")
                .to(&KafkaSourceOptions::max_total_columns),
        },
        {config::PrefixSpec{"properties.",
                            "Kafka consumer settings, passed to librdkafka (Java "
                            "names translated)."}
             .to(&KafkaSourceOptions::properties)},
    };
    return bindings;
}

config::ConnectorOptionsSpec kafka_source_options() {
    return kafka_source_bindings().spec();
}

void validate_kafka_source(const config::ValidatedOptions& options, config::Diagnostics& d) {
    const Options o = kafka_source_bindings().read(options);
    auto quoted = [&](const auto& member) { return "`" + o.key(member) + "`"; };
    const bool topic = o->topic.has_value(), pattern = o->topic_pattern.has_value();
    if (topic == pattern)
        d.error(topic ? o.where(o->topic_pattern) : o.where(o->topic),
                "exactly one of " + quoted(o->topic) + " and " + quoted(o->topic_pattern) +
                    " must be set");
    if (topic) {
        const std::vector<std::string> topics = config::parse_list(*o->topic);
        if (topics.empty()) d.error(o.where(o->topic), quoted(o->topic) + " names no topic");
        for (const auto& t : topics)
            if (auto problem = topic_name_problem(t))
                d.error(o.where(o->topic), quoted(o->topic) + ": " + *problem);
    }
    if (pattern) {
        const std::string& value = *o->topic_pattern;
        regex::Error error;
        if (!regex::compile_java(value, &error))
            d.error(o.where(o->topic_pattern),
                    quoted(o->topic_pattern) + ": " + regex::refusal(value, error));
    }
    const bool fixed = o->fixed_table.has_value();
    const bool from = o->table_from_key.has_value(), fields = o->table_fields.has_value();
    if (fixed && (from || fields))
        d.error(o.where(o->fixed_table), quoted(o->fixed_table) + " cannot be combined with " +
                                             quoted(o->table_from_key) + " / " +
                                             quoted(o->table_fields));
    if (!fixed && !(from && fields))
        d.error(from ? o.where(o->table_fields) : o.where(o->table_from_key),
                "set " + quoted(o->fixed_table) + ", or both " + quoted(o->table_from_key) +
                    " and " + quoted(o->table_fields));
    if (fixed && !TableId::parse(*o->fixed_table))
        d.error(o.where(o->fixed_table),
                quoted(o->fixed_table) + " must have 1 to 3 non-empty parts");
    if (fields) {
        const auto& list = *o->table_fields;
        if (list.empty() || list.size() > 3)
            d.error(o.where(o->table_fields), quoted(o->table_fields) +
                                                  " takes 1 to 3 JSON paths, got " +
                                                  std::to_string(list.size()));
    }
    const StartupMode startup = o->startup;
    const std::string mode = o.text(o->startup);
    if (startup == StartupMode::Timestamp && !o->startup_timestamp_ms)
        d.error(o.where(o->startup),
                "scan.startup.mode timestamp needs " + quoted(o->startup_timestamp_ms));
    if (startup != StartupMode::Timestamp && o.is_set(o->startup_timestamp_ms))
        d.error(o.where(o->startup_timestamp_ms), "applies only to scan.startup.mode timestamp");
    if (startup == StartupMode::SpecificOffsets) {
        if (!o->specific_offsets) {
            d.error(o.where(o->startup),
                    "scan.startup.mode specific-offsets needs " + quoted(o->specific_offsets));
        } else {
            try {
                parse_specific_offsets(*o->specific_offsets);
            } catch (const std::exception& e) {
                d.error(o.where(o->specific_offsets), e.what());
            }
        }
    } else if (o.is_set(o->specific_offsets)) {
        d.error(o.where(o->specific_offsets), "applies only to scan.startup.mode specific-offsets");
    }
    const auto& props = o->properties;
    if (auto problem = bootstrap_servers_problem(props))
        d.error(o.where(props, "bootstrap.servers"), *problem);
    // An empty group.id is no group: the consumer would use cdcd's own, uncommitted one.
    const auto group_id = props.find("group.id");
    const bool has_group = group_id != props.end() && !ascii::trim(group_id->second, " \t").empty();
    if (group_id != props.end() && !has_group)
        d.error(o.where(props, "group.id"), "`properties.group.id` is empty");
    if ((startup == StartupMode::GroupOffsets || startup == StartupMode::SpecificOffsets) &&
        !has_group)
        d.error(o.where(o->startup), "scan.startup.mode " + mode + " needs `properties.group.id`");
    if (o->consumer_group) {
        const std::string& group = o.key(o->consumer_group);
        if (!has_group)
            d.error(
                o.where(o->consumer_group),
                group +
                    " needs `properties.group.id`: the group whose members share the partitions");
        if (o->bounded)
            d.error(o.where(o->bounded),
                    "scan.bounded.mode latest-offset cannot be combined with " + group +
                        ": a group member's partitions change at every rebalance, so it has no end "
                        "offsets of its own to stop at");
        if (auto it = props.find("partition.assignment.strategy");
            it != props.end() && it->second != "cooperative-sticky" &&
            it->second != "org.apache.kafka.clients.consumer.CooperativeStickyAssignor")
            d.error(o.where(props, "partition.assignment.strategy"),
                    "with " + group +
                        " the assignment strategy is cooperative-sticky (a replica keeps reading "
                        "its partitions while others are moved); remove "
                        "`properties.partition.assignment.strategy` or set it to "
                        "cooperative-sticky");
    }
    if (o->metadata_list) {
        for (const auto& name : *o->metadata_list)
            if (!metadata_field(name))
                d.error(o.where(o->metadata_list),
                        "unknown metadata '" + name +
                            "'; known: topic, partition, offset, timestamp, "
                            "timestamp-type, key, headers");
    }
    if (o.is_set(o->flink_discovery_interval) && o.is_set(o->discovery_interval))
        d.error(o.where(o->flink_discovery_interval),
                "set one of " + quoted(o->flink_discovery_interval) + " (Flink's spelling) and " +
                    quoted(o->discovery_interval) + ", not both");
    if (o->rate_limit) {
        const double rate = *o->rate_limit;
        if (!(rate > 0) || !std::isfinite(rate))
            d.error(o.where(o->rate_limit),
                    quoted(o->rate_limit) +
                        " must be a positive number of records per second, got " +
                        o.text(o->rate_limit) + "; leave it unset for no limit");
    }
    // value.format is required: when it is missing that error is already reported, and the
    // checks against the format are left out.
    const std::string& format = o->value_format;
    for (const auto* own : {&o->json_ignore_parse_errors, &o->debezium_json_ignore_parse_errors,
                            &o->canal_json_ignore_parse_errors}) {
        const std::string& key = o.key(*own);
        const std::string other = key.substr(0, key.find(".ignore-parse-errors"));
        if (o.is_set(*own) && !format.empty() && format != other)
            d.error(o.where(*own), "`" + key + "` applies only to value.format " + other +
                                       " (value.format is " + format + "); use " +
                                       quoted(o->ignore_parse_errors));
    }
    for (const auto* include : {&o->canal_database_include, &o->canal_table_include}) {
        if (!o.is_set(*include)) continue;
        if (!format.empty() && format != "canal-json") {
            d.error(o.where(*include), quoted(*include) +
                                           " applies only to value.format canal-json (value.format "
                                           "is " +
                                           format + ")");
            continue;
        }
        const std::string value = include->value_or("");
        regex::Error error;
        if (!regex::compile_java(value, &error))
            d.error(o.where(*include), quoted(*include) + ": " + regex::refusal(value, error));
    }
    if (o->debezium_schema_include && !format.empty() && format != "debezium-json")
        d.error(o.where(o->debezium_schema_include), "applies only to value.format debezium-json");
    try {
        const ClientConfig client = translate_properties(props, ClientRole::Consumer);
        if (handled_number(client, "partition.discovery.interval.ms") &&
            (o.is_set(o->discovery_interval) || o.is_set(o->flink_discovery_interval)))
            d.error(o.where(props, "partition.discovery.interval.ms"),
                    "set one of `properties.partition.discovery.interval.ms`, " +
                        quoted(o->discovery_interval) + " and " +
                        quoted(o->flink_discovery_interval));
        if (auto n = handled_number(client, "max.poll.records"); n && (*n < 1 || *n > kMaxBatch))
            d.error(o.where(props, "max.poll.records"),
                    "`properties.max.poll.records` must be between 1 and " +
                        std::to_string(kMaxBatch) + ", got " + std::to_string(*n));
    } catch (const std::exception& e) {
        d.error(o.options().location(first_key(e.what())), e.what());
    }
}

ConsumerSettings kafka_source_settings(const config::ValidatedOptions& options) {
    const KafkaSourceOptions o = kafka_source_bindings().read(options).take();
    ConsumerSettings s;
    s.client = translate_properties(o.properties, ClientRole::Consumer);
    if (o.topic)
        for (const auto& t : config::parse_list(*o.topic)) s.topics.push_back(t);
    if (o.topic_pattern) s.topic_pattern = *o.topic_pattern;
    s.startup = o.startup;
    if (o.startup_timestamp_ms) s.startup_timestamp_ms = *o.startup_timestamp_ms;
    if (s.startup == StartupMode::SpecificOffsets)
        s.specific_offsets = parse_specific_offsets(o.specific_offsets.value_or(""));
    s.bounded = o.bounded;
    s.consumer_group = o.consumer_group;
    s.discovery_interval_ms = o.discovery_interval.count();
    if (o.flink_discovery_interval) {
        s.discovery_interval_ms = o.flink_discovery_interval->count();
        if (s.discovery_interval_ms == 0) s.discovery_interval_ms = kNoDiscoveryMs;
    }
    // Flink's KafkaSource: a non-positive interval turns discovery off.
    if (auto ms = handled_number(s.client, "partition.discovery.interval.ms"))
        s.discovery_interval_ms = *ms > 0 ? *ms : kNoDiscoveryMs;
    s.max_batch = static_cast<std::size_t>(o.max_batch);
    if (auto n = handled_number(s.client, "max.poll.records"))
        s.max_batch = static_cast<std::size_t>(std::clamp(*n, 1LL, kMaxBatch));
    const std::string& format = o.value_format;
    s.ignore_parse_errors = o.ignore_parse_errors;
    const std::optional<bool>& own = format == "debezium-json" ? o.debezium_json_ignore_parse_errors
                                     : format == "canal-json"  ? o.canal_json_ignore_parse_errors
                                                               : o.json_ignore_parse_errors;
    if (own) s.ignore_parse_errors = s.ignore_parse_errors || *own;
    if (o.rate_limit) {
        s.rate_limit = *o.rate_limit;
        // A chunk is waited for whole: keep one to about a second's worth of messages.
        s.max_batch = std::min(s.max_batch,
                               static_cast<std::size_t>(std::max(1.0, std::floor(*s.rate_limit))));
    }
    if (o.canal_database_include) s.decoder.canal.database_include = *o.canal_database_include;
    if (o.canal_table_include) s.decoder.canal.table_include = *o.canal_table_include;
    s.decoder.format = format == "debezium-json" ? ValueFormat::DebeziumJson
                       : format == "canal-json"  ? ValueFormat::CanalJson
                                                 : ValueFormat::Json;
    s.decoder.debezium_schema_include = o.debezium_schema_include;
    if (o.fixed_table) {
        auto id = TableId::parse(*o.fixed_table);
        if (!id)
            throw std::invalid_argument("table-id.fixed.name: must have 1 to 3 non-empty parts");
        s.decoder.fixed_table = *id;
    } else {
        s.decoder.table_from_key = o.table_from_key.value_or(false);
        s.decoder.table_fields = o.table_fields.value_or(std::vector<std::string>{});
    }
    if (o.metadata_list)
        for (const auto& name : *o.metadata_list)
            if (auto f = metadata_field(name)) s.decoder.metadata.push_back(*f);
    MessageLimits& limits = s.decoder.limits;
    if (o.max_message_bytes) {
        limits.max_message_bytes = *o.max_message_bytes;
    } else if (const std::string* fetch = find_setting(s.client, "fetch.max.bytes")) {
        // Validated by librdkafka when the consumer is made; a number here.
        std::size_t bytes = 0;
        auto [p, ec] = std::from_chars(fetch->data(), fetch->data() + fetch->size(), bytes);
        if (ec == std::errc() && p == fetch->data() + fetch->size() && bytes > 0)
            limits.max_message_bytes = bytes;
    }
    limits.max_json_depth = o.max_json_depth;
    limits.max_columns_per_table = o.max_columns_per_table;
    limits.max_tables = o.max_tables;
    limits.max_total_columns = o.max_total_columns;
    return s;
}

}  // namespace cdcd::kafka
