// The Kafka source's options as settings: discovery interval spellings, the rate limit, the
// canal-json format options, and the Java consumer properties cdcd reads itself.
#include "sources/kafka/kafka_source_options.h"

#include <catch2/catch.hpp>

#include "tests/unit/config/options_block.h"

using namespace cdcd;
using namespace cdcd::kafka;

namespace {

struct Parsed {
    config::ValidatedOptions options;
    std::string errors;
};

Parsed parse(std::map<std::string, std::string> kv) {
    kv.emplace("properties.bootstrap.servers", "127.0.0.1:9");
    kv.emplace("topic", "t");
    kv.emplace("value.format", "json");
    kv.emplace("table-id.fixed.name", "db.t");
    kv.emplace("scan.startup.mode", "earliest-offset");
    config::Diagnostics d;
    Parsed p{config::test::validate_block(kafka_source_options(), kv, "source `kafka`", d), ""};
    if (d.ok()) validate_kafka_source(p.options, d);
    p.errors = d.ok() ? std::string() : d.to_string();
    return p;
}

ConsumerSettings settings(std::map<std::string, std::string> kv) {
    Parsed p = parse(std::move(kv));
    INFO(p.errors);
    REQUIRE(p.errors.empty());
    return kafka_source_settings(p.options);
}

// "never": at least a year.
constexpr std::int64_t kYearMs = 365LL * 24 * 3600 * 1000;

}  // namespace

TEST_CASE("partition discovery interval: cdcd's, Flink's and the Java property's spelling") {
    CHECK(settings({}).discovery_interval_ms == 300'000);  // 5 min
    CHECK(settings({{"scan.partition-discovery.interval", "2s"}}).discovery_interval_ms == 2000);
    CHECK(settings({{"scan.topic-partition-discovery.interval", "3s"}}).discovery_interval_ms ==
          3000);
    CHECK(
        settings({{"properties.partition.discovery.interval.ms", "4000"}}).discovery_interval_ms ==
        4000);
}

TEST_CASE("partition discovery interval: 0 or less turns discovery off, as in Flink") {
    // Not "discover at every poll": that sent a metadata request per batch.
    CHECK(settings({{"scan.topic-partition-discovery.interval", "0"}}).discovery_interval_ms >
          kYearMs);
    CHECK(settings({{"properties.partition.discovery.interval.ms", "0"}}).discovery_interval_ms >
          kYearMs);
    CHECK(settings({{"properties.partition.discovery.interval.ms", "-1"}}).discovery_interval_ms >
          kYearMs);
}

TEST_CASE("partition discovery interval: two spellings at once, or not a number, are refused") {
    CHECK_THAT(parse({{"scan.topic-partition-discovery.interval", "1s"},
                      {"scan.partition-discovery.interval", "1s"}})
                   .errors,
               Catch::Contains("scan.topic-partition-discovery.interval"));
    CHECK_THAT(parse({{"properties.partition.discovery.interval.ms", "100"},
                      {"scan.topic-partition-discovery.interval", "1s"}})
                   .errors,
               Catch::Contains("set one of `properties.partition.discovery.interval.ms`"));
    CHECK_THAT(parse({{"properties.partition.discovery.interval.ms", "5 min"}}).errors,
               Catch::Contains("properties.partition.discovery.interval.ms: '5 min' is not a "
                               "whole number"));
}

TEST_CASE("properties.max.poll.records is bounded like scan.max-batch-size") {
    CHECK(settings({{"properties.max.poll.records", "500"}}).max_batch == 500);
    // The consumer allocates a slot per record: 2e9 was a 16 GB allocation.
    CHECK_THAT(parse({{"properties.max.poll.records", "2000000000"}}).errors,
               Catch::Contains("`properties.max.poll.records` must be between 1 and 1048576"));
    CHECK_THAT(parse({{"properties.max.poll.records", "0"}}).errors,
               Catch::Contains("properties.max.poll.records"));
    CHECK_THAT(parse({{"properties.max.poll.records", "many"}}).errors,
               Catch::Contains("not a whole number"));
}

TEST_CASE("scan.rate-limit.records-per-second: a chunk holds about a second's worth") {
    ConsumerSettings s = settings({{"scan.rate-limit.records-per-second", "20"}});
    REQUIRE(s.rate_limit);
    CHECK(*s.rate_limit == 20);
    CHECK(s.max_batch == 20);
    CHECK(settings({{"scan.rate-limit.records-per-second", "0.5"}}).max_batch == 1);
    CHECK_FALSE(settings({}).rate_limit);
    CHECK_THAT(parse({{"scan.rate-limit.records-per-second", "0"}}).errors,
               Catch::Contains("must be a positive number of records per second"));
}

TEST_CASE("format-prefixed ignore-parse-errors applies to its own value.format only") {
    CHECK(settings({{"json.ignore-parse-errors", "true"}}).ignore_parse_errors);
    CHECK_FALSE(settings({}).ignore_parse_errors);
    CHECK_THAT(parse({{"canal-json.ignore-parse-errors", "true"}}).errors,
               Catch::Contains("`canal-json.ignore-parse-errors` applies only to value.format "
                               "canal-json (value.format is json)"));
}

TEST_CASE("canal-json include filters reach the decoder") {
    ConsumerSettings s = settings({{"value.format", "canal-json"},
                                   {"canal-json.database.include", "app.*"},
                                   {"canal-json.table.include", "orders"}});
    CHECK(s.decoder.canal.database_include == "app.*");
    CHECK(s.decoder.canal.table_include == "orders");
}

TEST_CASE("a missing value.format is reported once and the other checks still run") {
    // The pipeline planner runs validate_kafka_source after a failed generic validation too; it
    // asked for value.format regardless and threw (found by fuzz_pipeline_yaml).
    config::RawOptions raw;
    raw["properties.bootstrap.servers"] = config::RawValue{"127.0.0.1:9", {"p.yaml", 10, 3}};
    raw["topic"] = config::RawValue{"t", {"p.yaml", 11, 3}};
    raw["table-id.fixed.name"] = config::RawValue{"db.t", {"p.yaml", 12, 3}};
    raw["canal-json.table.include"] = config::RawValue{"(", {"p.yaml", 13, 3}};
    config::Diagnostics d;
    auto options = config::validate_options(
        kafka_source_options(), raw, config::SourceLocation{"p.yaml", 9, 1}, "source `kafka`", d);
    REQUIRE_NOTHROW(validate_kafka_source(options, d));
    const std::string errors = d.to_string();
    CHECK(errors.find("value.format") != std::string::npos);
    CHECK(errors.find("canal-json.table.include`: invalid regular expression '('") !=
          std::string::npos);
}

TEST_CASE("topic and bootstrap.servers: empty values and names Kafka refuses are reported") {
    // `topic: ""` and `properties.bootstrap.servers: ""` validated, then the run waited 10 s to
    // fail with "cannot read topic metadata: Local: Broker transport failure".
    CHECK_THAT(parse({{"topic", ""}}).errors, Catch::Contains("`topic` names no topic"));
    CHECK_THAT(parse({{"topic", " , "}}).errors, Catch::Contains("`topic` names no topic"));
    CHECK_THAT(parse({{"topic", "a, b c"}}).errors,
               Catch::Contains("`topic`: `b c` is not a Kafka topic name"));
    CHECK_THAT(parse({{"topic", "a;b"}}).errors,
               Catch::Contains("`topic`: `a;b` is not a Kafka topic name"));
    CHECK_THAT(parse({{"properties.bootstrap.servers", " "}}).errors,
               Catch::Contains("`properties.bootstrap.servers` is empty"));
    CHECK(parse({{"topic", "a, b.c_d-e"}}).errors.empty());
}

TEST_CASE("an empty properties.group.id is no group") {
    // It validated, and group-offsets then read the offsets of cdcd's own uncommitted group.
    const std::string e =
        parse({{"properties.group.id", " "}, {"scan.startup.mode", "group-offsets"}}).errors;
    CHECK_THAT(e, Catch::Contains("`properties.group.id` is empty"));
    CHECK_THAT(e, Catch::Contains("scan.startup.mode group-offsets needs `properties.group.id`"));
    CHECK_THAT(parse({{"properties.group.id", ""}}).errors,
               Catch::Contains("`properties.group.id` is empty"));
    CHECK(parse({{"properties.group.id", "g1"}, {"scan.startup.mode", "group-offsets"}})
              .errors.empty());
}
