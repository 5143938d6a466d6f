#include "sources/kafka/kafka_source_options.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "regex/java_regex.h"
#include "text/ascii.h"

namespace cdcd::kafka {

namespace {

using config::OptionSpec;

constexpr const char* kFlinkDiscoveryInterval = "scan.topic-partition-discovery.interval";
constexpr const char* kRateLimit = "scan.rate-limit.records-per-second";
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

config::ConnectorOptionsSpec kafka_source_options() {
    config::ConnectorOptionsSpec spec;
    auto& o = spec.options;
    o.push_back(OptionSpec::string("topic").desc(
        "Topics to read, comma-separated (exclusive with topic-pattern)."));
    o.push_back(
        OptionSpec::string("topic-pattern")
            .desc(
                "Java regex of the topics to read; topics created later are picked up at partition "
                "discovery (exclusive with topic)."));
    o.push_back(OptionSpec::enum_of("value.format", {"json", "debezium-json", "canal-json"})
                    .required()
                    .desc("Message value format."));
    o.push_back(OptionSpec::string("table-id.fixed.name")
                    .desc("Every message belongs to this table (`table`, `schema.table` or "
                          "`ns.schema.table`)."));
    o.push_back(
        OptionSpec::enum_of("table-id.dynamic.from", {"key", "value"})
            .desc(
                "Read the table id from the message key or value (with table-id.dynamic.fields)."));
    o.push_back(OptionSpec::list("table-id.dynamic.fields")
                    .desc("1–3 comma-separated JSON paths of string fields: table | schema,table | "
                          "namespace,schema,table, e.g. source.db,source.table."));
    o.push_back(
        OptionSpec::enum_of("scan.startup.mode", {"earliest-offset", "latest-offset",
                                                  "group-offsets", "timestamp", "specific-offsets"})
            .default_("group-offsets")
            .desc("Where a pipeline without a checkpoint starts. group-offsets falls back to "
                  "properties.auto.offset.reset (default latest) for partitions without a "
                  "committed offset."));
    o.push_back(
        OptionSpec::long_("scan.startup.timestamp-millis")
            .at_least(0)
            .desc(
                "scan.startup.mode timestamp: first offset whose timestamp is at or after this."));
    o.push_back(OptionSpec::string("scan.startup.specific-offsets")
                    .desc("scan.startup.mode specific-offsets: "
                          "`partition:0,offset:42;partition:1,offset:300`; "
                          "other partitions start from the committed group offset."));
    o.push_back(OptionSpec::enum_of("scan.bounded.mode", {"unbounded", "latest-offset"})
                    .default_("unbounded")
                    .desc("latest-offset: stop at the end offsets found at start (the pipeline "
                          "then finishes)."));
    o.push_back(
        OptionSpec::boolean(kConsumerGroupOption)
            .default_("false")
            .desc("cdcd extension: join the consumer group properties.group.id (cooperative-sticky "
                  "assignment), so that several cdcd replicas share the topics' partitions; each "
                  "checkpoints the partitions it owns and hands a revoked partition over through "
                  "the group's committed offset (docs/scaling.md)."));
    o.push_back(
        OptionSpec::duration("scan.partition-discovery.interval")
            .default_("5 min")
            .at_least(100)
            .desc("How often new partitions and (with topic-pattern) new topics are looked for."));
    o.push_back(OptionSpec::duration(kFlinkDiscoveryInterval)
                    .at_least(0)
                    .desc("Flink's spelling of scan.partition-discovery.interval (set one of "
                          "them); 0 turns discovery off, as in Flink."));
    o.push_back(
        OptionSpec::double_(kRateLimit)
            .desc("The most change records the source emits per second (a token bucket holding one "
                  "second's worth); unset: no limit."));
    o.push_back(
        OptionSpec::list("metadata.list")
            .desc("Kafka metadata put into each event's meta: topic, partition, offset, timestamp, "
                  "timestamp-type, key, headers."));
    o.push_back(
        OptionSpec::boolean("ignore-parse-errors")
            .default_("false")
            .desc("Skip (count and log) messages that cannot be parsed instead of failing."));
    for (const char* format : {"json", "debezium-json", "canal-json"})
        o.push_back(OptionSpec::boolean(std::string(format) + ".ignore-parse-errors")
                        .desc("Flink's format option: ignore-parse-errors for value.format " +
                              std::string(format) + " only."));
    o.push_back(OptionSpec::string("canal-json.database.include")
                    .desc("canal-json: only messages whose `database` field matches this Java "
                          "regex (whole value) are read; others are skipped."));
    o.push_back(OptionSpec::string("canal-json.table.include")
                    .desc("canal-json: only messages whose `table` field matches this Java "
                          "regex (whole value) are read; others are skipped."));
    o.push_back(OptionSpec::boolean("debezium-json.schema-include")
                    .default_("false")
                    .desc("debezium-json: messages carry the {\"schema\",\"payload\"} envelope "
                          "(required when true; detected either way); when true, column types "
                          "come from its Kafka Connect schema (docs/kafka.md)."));
    o.push_back(OptionSpec::integer("scan.max-batch-size")
                    .default_("2048")
                    .range(1, kMaxBatch)
                    .desc("Messages taken from librdkafka at once (properties.max.poll.records "
                          "sets it too)."));
    // Limits (MessageLimits): a message over one is a bad record (bad-record.policy).
    o.push_back(
        OptionSpec::memory_size(MessageLimits::kMessageBytesOption)
            .range(1, 1LL << 31)
            .desc("cdcd extension: the largest message (key and value) decoded; larger ones are "
                  "bad records. Default: the consumer's fetch.max.bytes (librdkafka's 50 MB)."));
    o.push_back(OptionSpec::integer(MessageLimits::kJsonDepthOption)
                    .default_(std::to_string(MessageLimits::kDefaultJsonDepth))
                    .range(4, 100'000)
                    .desc("cdcd extension: how deep the objects and arrays of a row image's "
                          "values may nest, counted from the message's top level."));
    o.push_back(OptionSpec::integer(MessageLimits::kColumnsOption)
                    .default_(std::to_string(MessageLimits::kDefaultColumns))
                    .range(1, 1'000'000)
                    .desc("cdcd extension: the most columns schema inference gives one table."));
    o.push_back(OptionSpec::integer(MessageLimits::kTablesOption)
                    .default_(std::to_string(MessageLimits::kDefaultTables))
                    .range(1, 10'000'000)
                    .desc("cdcd extension: the most distinct table ids the source tracks (each "
                          "keeps an inferred schema in every checkpoint)."));
    o.push_back(OptionSpec::integer(MessageLimits::kTotalColumnsOption)
                    .default_(std::to_string(MessageLimits::kDefaultTotalColumns))
                    .range(1, 100'000'000)
                    .desc("cdcd extension: the most columns of all inferred tables together."));
    spec.prefixes.push_back(
        {"properties.", "Kafka consumer settings, passed to librdkafka (Java names translated)."});
    return spec;
}

void validate_kafka_source(const config::ValidatedOptions& o, config::Diagnostics& d) {
    bool topic = o.has("topic"), pattern = o.has("topic-pattern");
    if (topic == pattern)
        d.error(o.location(topic ? "topic-pattern" : "topic"),
                "exactly one of `topic` and `topic-pattern` must be set");
    if (pattern) {
        const std::string value = o.get_string("topic-pattern");
        regex::Error error;
        if (!regex::compile_java(value, &error))
            d.error(o.location("topic-pattern"),
                    "`topic-pattern`: " + regex::refusal(value, error));
    }
    bool fixed = o.has("table-id.fixed.name");
    bool from = o.has("table-id.dynamic.from"), fields = o.has("table-id.dynamic.fields");
    if (fixed && (from || fields))
        d.error(o.location("table-id.fixed.name"),
                "`table-id.fixed.name` cannot be combined with `table-id.dynamic.from` / "
                "`table-id.dynamic.fields`");
    if (!fixed && !(from && fields))
        d.error(o.location(from ? "table-id.dynamic.fields" : "table-id.dynamic.from"),
                "set `table-id.fixed.name`, or both `table-id.dynamic.from` and "
                "`table-id.dynamic.fields`");
    if (fixed && !TableId::parse(o.get_string("table-id.fixed.name")))
        d.error(o.location("table-id.fixed.name"),
                "`table-id.fixed.name` must have 1 to 3 non-empty parts");
    if (fields) {
        auto list = o.get_list("table-id.dynamic.fields");
        if (list.empty() || list.size() > 3)
            d.error(o.location("table-id.dynamic.fields"),
                    "`table-id.dynamic.fields` takes 1 to 3 JSON paths, got " +
                        std::to_string(list.size()));
    }
    std::string mode = o.get_enum("scan.startup.mode");
    if (mode == "timestamp" && !o.has("scan.startup.timestamp-millis"))
        d.error(o.location("scan.startup.mode"),
                "scan.startup.mode timestamp needs `scan.startup.timestamp-millis`");
    if (mode != "timestamp" && o.is_set("scan.startup.timestamp-millis"))
        d.error(o.location("scan.startup.timestamp-millis"),
                "applies only to scan.startup.mode timestamp");
    if (mode == "specific-offsets") {
        if (!o.has("scan.startup.specific-offsets")) {
            d.error(o.location("scan.startup.mode"),
                    "scan.startup.mode specific-offsets needs `scan.startup.specific-offsets`");
        } else {
            try {
                parse_specific_offsets(o.get_string("scan.startup.specific-offsets"));
            } catch (const std::exception& e) {
                d.error(o.location("scan.startup.specific-offsets"), e.what());
            }
        }
    } else if (o.is_set("scan.startup.specific-offsets")) {
        d.error(o.location("scan.startup.specific-offsets"),
                "applies only to scan.startup.mode specific-offsets");
    }
    auto props = o.with_prefix("properties.");
    if (!props.count("bootstrap.servers"))
        d.error(o.location("properties.bootstrap.servers"),
                "`properties.bootstrap.servers` is required");
    if ((mode == "group-offsets" || mode == "specific-offsets") && !props.count("group.id"))
        d.error(o.location("scan.startup.mode"),
                "scan.startup.mode " + mode + " needs `properties.group.id`");
    if (o.get_bool(kConsumerGroupOption)) {
        if (!props.count("group.id"))
            d.error(
                o.location(kConsumerGroupOption),
                std::string(kConsumerGroupOption) +
                    " needs `properties.group.id`: the group whose members share the partitions");
        if (o.get_enum("scan.bounded.mode") != "unbounded")
            d.error(o.location("scan.bounded.mode"),
                    "scan.bounded.mode latest-offset cannot be combined with " +
                        std::string(kConsumerGroupOption) +
                        ": a group member's partitions change at every rebalance, so it has no end "
                        "offsets of its own to stop at");
        if (auto it = props.find("partition.assignment.strategy");
            it != props.end() && it->second != "cooperative-sticky" &&
            it->second != "org.apache.kafka.clients.consumer.CooperativeStickyAssignor")
            d.error(o.location("properties.partition.assignment.strategy"),
                    "with " + std::string(kConsumerGroupOption) +
                        " the assignment strategy is cooperative-sticky (a replica keeps reading "
                        "its partitions while others are moved); remove "
                        "`properties.partition.assignment.strategy` or set it to "
                        "cooperative-sticky");
    }
    if (o.has("metadata.list")) {
        for (const auto& name : o.get_list("metadata.list"))
            if (!metadata_field(name))
                d.error(o.location("metadata.list"),
                        "unknown metadata '" + name +
                            "'; known: topic, partition, offset, timestamp, "
                            "timestamp-type, key, headers");
    }
    if (o.is_set(kFlinkDiscoveryInterval) && o.is_set("scan.partition-discovery.interval"))
        d.error(o.location(kFlinkDiscoveryInterval),
                std::string("set one of `") + kFlinkDiscoveryInterval +
                    "` (Flink's spelling) and `scan.partition-discovery.interval`, not both");
    if (o.is_set(kRateLimit)) {
        const double rate = o.get_double(kRateLimit);
        if (!(rate > 0) || !std::isfinite(rate))
            d.error(o.location(kRateLimit),
                    std::string("`") + kRateLimit +
                        "` must be a positive number of records per second, got " +
                        o.raw(kRateLimit).value_or("?") + "; leave it unset for no limit");
    }
    // value.format is required: when it is missing that error is already reported, and the
    // checks against the format are left out.
    const std::string format = o.has("value.format") ? o.get_enum("value.format") : "";
    for (const char* other : {"json", "debezium-json", "canal-json"}) {
        const std::string key = std::string(other) + ".ignore-parse-errors";
        if (o.is_set(key) && !format.empty() && format != other)
            d.error(o.location(key), "`" + key + "` applies only to value.format " + other +
                                         " (value.format is " + format +
                                         "); use `ignore-parse-errors`");
    }
    for (const char* key : {"canal-json.database.include", "canal-json.table.include"}) {
        if (!o.is_set(key)) continue;
        if (!format.empty() && format != "canal-json") {
            d.error(o.location(key), std::string("`") + key +
                                         "` applies only to value.format canal-json (value.format "
                                         "is " +
                                         format + ")");
            continue;
        }
        const std::string value = o.get_string(key);
        regex::Error error;
        if (!regex::compile_java(value, &error))
            d.error(o.location(key), std::string("`") + key + "`: " + regex::refusal(value, error));
    }
    if (o.get_bool("debezium-json.schema-include") && !format.empty() && format != "debezium-json")
        d.error(o.location("debezium-json.schema-include"),
                "applies only to value.format debezium-json");
    try {
        const ClientConfig client = translate_properties(props, ClientRole::Consumer);
        if (handled_number(client, "partition.discovery.interval.ms") &&
            (o.is_set("scan.partition-discovery.interval") || o.is_set(kFlinkDiscoveryInterval)))
            d.error(o.location("properties.partition.discovery.interval.ms"),
                    std::string("set one of `properties.partition.discovery.interval.ms`, "
                                "`scan.partition-discovery.interval` and `") +
                        kFlinkDiscoveryInterval + "`");
        if (auto n = handled_number(client, "max.poll.records"); n && (*n < 1 || *n > kMaxBatch))
            d.error(o.location("properties.max.poll.records"),
                    "`properties.max.poll.records` must be between 1 and " +
                        std::to_string(kMaxBatch) + ", got " + std::to_string(*n));
    } catch (const std::exception& e) {
        d.error(o.location(first_key(e.what())), e.what());
    }
}

ConsumerSettings kafka_source_settings(const config::ValidatedOptions& o) {
    ConsumerSettings s;
    s.client = translate_properties(o.with_prefix("properties."), ClientRole::Consumer);
    if (o.has("topic"))
        for (const auto& t : config::parse_list(o.get_string("topic"))) s.topics.push_back(t);
    if (o.has("topic-pattern")) s.topic_pattern = o.get_string("topic-pattern");
    std::string mode = o.get_enum("scan.startup.mode");
    s.startup = mode == "earliest-offset"    ? StartupMode::EarliestOffset
                : mode == "latest-offset"    ? StartupMode::LatestOffset
                : mode == "timestamp"        ? StartupMode::Timestamp
                : mode == "specific-offsets" ? StartupMode::SpecificOffsets
                                             : StartupMode::GroupOffsets;
    if (o.has("scan.startup.timestamp-millis"))
        s.startup_timestamp_ms = o.get_long("scan.startup.timestamp-millis");
    if (s.startup == StartupMode::SpecificOffsets)
        s.specific_offsets = parse_specific_offsets(o.get_string("scan.startup.specific-offsets"));
    s.bounded = o.get_enum("scan.bounded.mode") == "latest-offset";
    s.consumer_group = o.get_bool(kConsumerGroupOption);
    s.discovery_interval_ms = o.get_duration("scan.partition-discovery.interval").count();
    if (o.is_set(kFlinkDiscoveryInterval)) {
        s.discovery_interval_ms = o.get_duration(kFlinkDiscoveryInterval).count();
        if (s.discovery_interval_ms == 0) s.discovery_interval_ms = kNoDiscoveryMs;
    }
    // Flink's KafkaSource: a non-positive interval turns discovery off.
    if (auto ms = handled_number(s.client, "partition.discovery.interval.ms"))
        s.discovery_interval_ms = *ms > 0 ? *ms : kNoDiscoveryMs;
    s.max_batch = static_cast<std::size_t>(o.get_int("scan.max-batch-size"));
    if (auto n = handled_number(s.client, "max.poll.records"))
        s.max_batch = static_cast<std::size_t>(std::clamp(*n, 1LL, kMaxBatch));
    std::string format = o.get_enum("value.format");
    s.ignore_parse_errors = o.get_bool("ignore-parse-errors");
    if (const std::string own = format + ".ignore-parse-errors"; o.is_set(own))
        s.ignore_parse_errors = s.ignore_parse_errors || o.get_bool(own);
    if (o.is_set(kRateLimit)) {
        s.rate_limit = o.get_double(kRateLimit);
        // A chunk is waited for whole: keep one to about a second's worth of messages.
        s.max_batch = std::min(s.max_batch,
                               static_cast<std::size_t>(std::max(1.0, std::floor(*s.rate_limit))));
    }
    if (o.has("canal-json.database.include"))
        s.decoder.canal.database_include = o.get_string("canal-json.database.include");
    if (o.has("canal-json.table.include"))
        s.decoder.canal.table_include = o.get_string("canal-json.table.include");
    s.decoder.format = format == "debezium-json" ? ValueFormat::DebeziumJson
                       : format == "canal-json"  ? ValueFormat::CanalJson
                                                 : ValueFormat::Json;
    s.decoder.debezium_schema_include = o.get_bool("debezium-json.schema-include");
    if (o.has("table-id.fixed.name")) {
        auto id = TableId::parse(o.get_string("table-id.fixed.name"));
        if (!id)
            throw std::invalid_argument("table-id.fixed.name: must have 1 to 3 non-empty parts");
        s.decoder.fixed_table = *id;
    } else {
        s.decoder.table_from_key = o.get_enum("table-id.dynamic.from") == "key";
        s.decoder.table_fields = o.get_list("table-id.dynamic.fields");
    }
    if (o.has("metadata.list"))
        for (const auto& name : o.get_list("metadata.list"))
            if (auto f = metadata_field(name)) s.decoder.metadata.push_back(*f);
    MessageLimits& limits = s.decoder.limits;
    if (o.has(MessageLimits::kMessageBytesOption)) {
        limits.max_message_bytes = o.get_memory_size(MessageLimits::kMessageBytesOption);
    } else if (const std::string* fetch = find_setting(s.client, "fetch.max.bytes")) {
        // Validated by librdkafka when the consumer is made; a number here.
        std::size_t bytes = 0;
        auto [p, ec] = std::from_chars(fetch->data(), fetch->data() + fetch->size(), bytes);
        if (ec == std::errc() && p == fetch->data() + fetch->size() && bytes > 0)
            limits.max_message_bytes = bytes;
    }
    limits.max_json_depth = static_cast<std::size_t>(o.get_int(MessageLimits::kJsonDepthOption));
    limits.max_columns_per_table =
        static_cast<std::size_t>(o.get_int(MessageLimits::kColumnsOption));
    limits.max_tables = static_cast<std::size_t>(o.get_int(MessageLimits::kTablesOption));
    limits.max_total_columns =
        static_cast<std::size_t>(o.get_int(MessageLimits::kTotalColumnsOption));
    return s;
}

}  // namespace cdcd::kafka
