#include "config/option_validator.h"

#include <catch2/catch.hpp>

#include "config/pipeline_options.h"

using namespace cdcd::config;
using namespace std::chrono_literals;
using Catch::Contains;

namespace {

// How a connector declares its options: once, as data.
const ConnectorOptionsSpec& kafka_like_spec() {
    static const ConnectorOptionsSpec spec{
        {
            OptionSpec::string("topic").required().desc("Kafka topic"),
            OptionSpec::enum_of("scan.startup.mode",
                                {"earliest-offset", "latest-offset", "timestamp"})
                .default_("latest-offset"),
            OptionSpec::integer("fetch.size").range(1, 100).default_("10"),
            OptionSpec::long_("start.timestamp"),
            OptionSpec::double_("ratio").range(0, 1).default_("0.5"),
            OptionSpec::boolean("ssl").default_("false"),
            OptionSpec::duration("timeout").default_("30s").at_least(1000),
            OptionSpec::memory_size("buffer").default_("64mb"),
            OptionSpec::list("hosts").default_("a, b"),
            OptionSpec::string("password").secret().desc("SASL password"),
        },
        {PrefixSpec{"properties.", "passed to librdkafka"}},
    };
    return spec;
}

const SourceLocation kBlock{"p.yaml", 5, 1};

RawOptions raw(std::initializer_list<std::pair<std::string, std::string>> kv) {
    RawOptions out;
    int line = 6;
    for (const auto& [k, v] : kv) {
        out.emplace(k, RawValue{v, SourceLocation{"p.yaml", line++, 3}});
    }
    return out;
}

}  // namespace

TEST_CASE("the declared specs are consistent", "[config][options]") {
    CHECK(check_spec(kafka_like_spec()).empty());
    CHECK(check_spec(pipeline_options_spec()).empty());

    ConnectorOptionsSpec broken{
        {OptionSpec::integer("n").default_("ten"), OptionSpec::enum_of("e", {"A"}).default_("B"),
         OptionSpec::string("n"), OptionSpec::string("properties.x")},
        {PrefixSpec{"properties.", ""}}};
    auto problems = check_spec(broken);
    CHECK(problems.size() == 4);
}

TEST_CASE("valid options are typed, defaults fill the gaps", "[config][options]") {
    Diagnostics diags;
    auto opts = validate_options(kafka_like_spec(),
                                 raw({{"topic", "orders"},
                                      {"scan.startup.mode", "EARLIEST-OFFSET"},
                                      {"fetch.size", " 42 "},
                                      {"start.timestamp", "1700000000000"},
                                      {"ssl", "TRUE"},
                                      {"timeout", "PT1M"},
                                      {"buffer", "1 gb"},
                                      {"hosts", "k1:9092, k2:9092,,"},
                                      {"properties.acks", "all"},
                                      {"properties.linger.ms", "5"}}),
                                 kBlock, "source `kafka`", diags);
    REQUIRE(diags.ok());
    CHECK(opts.get_string("topic") == "orders");
    CHECK(opts.get_enum("scan.startup.mode") == "earliest-offset");  // canonical spelling
    CHECK(opts.get_int("fetch.size") == 42);
    CHECK(opts.get_long("start.timestamp") == 1700000000000LL);
    CHECK(opts.get_double("ratio") == 0.5);  // default
    CHECK(opts.get_bool("ssl"));
    CHECK(opts.get_duration("timeout") == 1min);
    CHECK(opts.get_memory_size("buffer") == (1ULL << 30));
    CHECK(opts.get_list("hosts") == std::vector<std::string>{"k1:9092", "k2:9092"});
    CHECK(opts.with_prefix("properties.") ==
          std::map<std::string, std::string>{{"acks", "all"}, {"linger.ms", "5"}});
    CHECK(opts.has("ratio"));
    CHECK_FALSE(opts.is_set("ratio"));
    CHECK(opts.is_set("topic"));
    CHECK_FALSE(opts.has("password"));
    CHECK(opts.raw("ssl") == std::optional<std::string>("true"));
    CHECK(opts.raw("properties.acks") == std::optional<std::string>("all"));
    CHECK_FALSE(opts.raw("password").has_value());
    CHECK(opts.location("fetch.size") == SourceLocation{"p.yaml", 8, 3});
    CHECK(opts.location("ratio") == kBlock);

    CHECK_THROWS_AS(opts.get_int("topic"), std::logic_error);        // wrong type
    CHECK_THROWS_AS(opts.get_string("nope"), std::logic_error);      // not declared
    CHECK_THROWS_AS(opts.get_string("password"), std::logic_error);  // unset, no default
}

TEST_CASE("every option mistake is reported with its position", "[config][options]") {
    Diagnostics diags;
    validate_options(kafka_like_spec(),
                     raw({{"topc", "orders"},                 // line 6: unknown, typo
                          {"fetch.size", "many"},             // line 7: wrong int type
                          {"timeout", "10 parsecs"},          // line 8: bad duration
                          {"ratio", "1.5"},                   // line 9: out of range
                          {"scan.startup.mode", "earliest"},  // line 10: enum not allowed
                          {"ssl", "yes"},                     // line 11: not a boolean
                          {"buffer", "lots"},                 // line 12: bad memory size
                          {"start.timestamp", "1e3"},         // line 13: not a long
                          {"completely-unrelated", "x"}}),    // line 14: unknown, no hint
                     kBlock, "source `kafka`", diags);
    const std::string text = diags.to_string();
    INFO(text);
    // RawOptions is ordered by key, so the errors come in key order; check each one's text.
    CHECK_THAT(text, Contains("p.yaml:6:3: error: unsupported option `topc` in source `kafka`; "
                              "did you mean `topic`?"));
    CHECK_THAT(text, Contains("p.yaml:7:3: error: option `fetch.size` (INT) in source `kafka`: "
                              "expected an integer (32-bit), got `many`"));
    CHECK_THAT(text, Contains("p.yaml:8:3: error: option `timeout` (DURATION) in source `kafka`: "
                              "invalid duration `10 parsecs`: unknown unit `parsecs`"));
    CHECK_THAT(text, Contains("p.yaml:9:3: error: option `ratio` (DOUBLE) in source `kafka`: "
                              "value `1.5` is out of range: must be between 0 and 1"));
    CHECK_THAT(text, Contains("p.yaml:10:3: error: option `scan.startup.mode` (ENUM) in source "
                              "`kafka`: value `earliest` is not allowed; allowed values: "
                              "earliest-offset, latest-offset, timestamp"));
    CHECK_THAT(text, Contains("p.yaml:11:3: error: option `ssl` (BOOLEAN)"));
    CHECK_THAT(text, Contains("p.yaml:12:3: error: option `buffer` (MEMORY)"));
    CHECK_THAT(text, Contains("p.yaml:13:3: error: option `start.timestamp` (LONG)"));
    CHECK_THAT(text, Contains("p.yaml:14:3: error: unsupported option `completely-unrelated` in "
                              "source `kafka`\n"));
    CHECK_THAT(text, Contains("p.yaml:5:1: error: missing required option `topic` in source "
                              "`kafka` (Kafka topic)"));
    CHECK(diags.size() == 10);
}

TEST_CASE("the options whose values were refused are known, and read as their defaults",
          "[config][options]") {
    Diagnostics diags;
    ValidatedOptions opts = validate_options(kafka_like_spec(),
                                             raw({{"topic", "orders"},
                                                  {"scan.startup.mode", "earliest"},
                                                  {"fetch.size", "many"},
                                                  {"topc", "x"}}),
                                             kBlock, "source `kafka`", diags);
    CHECK(diags.size() == 3);
    // Only values refused: an unknown key has no default to stand in for it.
    CHECK(opts.rejected() == std::vector<std::string>{"fetch.size", "scan.startup.mode"});
    CHECK(opts.get_enum("scan.startup.mode") == "latest-offset");
    CHECK(opts.get_int("fetch.size") == 10);
}

TEST_CASE("integer ranges are inclusive", "[config][options]") {
    for (auto [value, ok] : std::vector<std::pair<std::string, bool>>{{"0", false},
                                                                      {"1", true},
                                                                      {"100", true},
                                                                      {"101", false},
                                                                      {"-5", false},
                                                                      {"99999999999", false}}) {
        INFO("fetch.size = " << value);
        Diagnostics diags;
        validate_options(kafka_like_spec(), raw({{"topic", "t"}, {"fetch.size", value}}), kBlock,
                         "source", diags);
        CHECK(diags.ok() == ok);
    }
    Diagnostics diags;
    validate_options(kafka_like_spec(), raw({{"topic", "t"}, {"timeout", "500ms"}}), kBlock,
                     "source", diags);
    CHECK_THAT(diags.to_string(), Contains("must be at least 1000 ms"));
}

TEST_CASE("a required string set to nothing is refused like a missing one", "[config][options]") {
    // `path: ""` validated, then failed at run time as "output file : cannot create".
    const ConnectorOptionsSpec spec{{
                                        OptionSpec::string("path").required(),
                                        OptionSpec::list("hosts").required(),
                                        OptionSpec::string("password").required().allow_empty(),
                                        OptionSpec::string("comment"),
                                    },
                                    {}};
    Diagnostics diags;
    validate_options(spec,
                     raw({{"comment", ""}, {"hosts", " , "}, {"password", ""}, {"path", "  "}}),
                     kBlock, "sink `file`", diags);
    const std::string text = diags.to_string();
    INFO(text);
    CHECK_THAT(text, Contains("p.yaml:7:3: error: option `hosts` (LIST) in sink `file`: the value "
                              "is empty, and the option is required"));
    CHECK_THAT(text, Contains("p.yaml:9:3: error: option `path` (STRING) in sink `file`: the value "
                              "is empty, and the option is required"));
    CHECK(diags.size() == 2);  // not `comment` (optional) nor `password` (may be empty)
}

TEST_CASE("pipeline options have Flink CDC's defaults", "[config][options]") {
    Diagnostics diags;
    auto opts = validate_options(pipeline_options_spec(), {}, kBlock, "`pipeline` block", diags);
    REQUIRE(diags.ok());
    CHECK(opts.get_string("name") == "Flink CDC Pipeline Job");
    CHECK(opts.get_int("parallelism") == 1);
    CHECK(opts.get_enum("schema.change.behavior") == "LENIENT");
    CHECK(opts.get_enum("route-mode") == "ALL_MATCH");
    CHECK(opts.get_string("local-time-zone") == "systemDefault");
    CHECK(opts.get_enum("execution.runtime-mode") == "STREAMING");
    CHECK(opts.get_duration("schema-operator.rpc-timeout") == 3min);
    CHECK(opts.get_duration("execution.checkpointing.interval") == 10s);
    CHECK(opts.get_duration("execution.checkpointing.timeout") == 10min);
    CHECK(opts.get_int("state.checkpoints.num-retained") == 3);
    CHECK(opts.get_string("state.dir") == "./cdcd-state");
    CHECK_FALSE(opts.has("operator.uid.prefix"));
    CHECK(opts.get_duration("shutdown.timeout") == 30s);
    CHECK_FALSE(opts.has("admin.address"));
    CHECK(opts.get_enum("sink.partitioning.strategy") == "SINK_DEFINED");
    CHECK(opts.get_enum("transform.decimal.precision.mode") == "UP_TO_19");
    CHECK(opts.get_enum("bad-record.policy") == "fail");
    CHECK_FALSE(opts.has("bad-record.dead-letter.path"));
    CHECK(opts.get_int("execution.checkpointing.tolerable-failed-checkpoints") == 0);
    CHECK(opts.get_int("transform.lanes") == 0);  // cdcd's: chosen from parallelism and CPUs
    CHECK(opts.get_bool("tap.enabled"));
    CHECK_FALSE(opts.has("tap.sensitive-columns"));
    CHECK(pipeline_options_spec().options.size() == 22);
}

TEST_CASE("describe renders an aligned table", "[config][options]") {
    ConnectorOptionsSpec spec{
        {OptionSpec::string("topic").required().desc("Kafka topic"),
         OptionSpec::integer("retries").range(0, 10).default_("3").desc("Retry count"),
         OptionSpec::enum_of("mode", {"a", "b"}).default_("a"),
         OptionSpec::string("password").secret().desc("SASL password")},
        {PrefixSpec{"properties.", "librdkafka settings"}}};
    CHECK(describe(spec, "kafka") ==
          "Options of `kafka`:\n"
          "KEY           TYPE         DEFAULT  REQUIRED  DESCRIPTION\n"
          "topic         STRING       -        yes       Kafka topic\n"
          "retries       INT [0..10]  3        no        Retry count\n"
          "mode          a|b          a        no\n"
          "password      STRING       -        no        (secret) SASL password\n"
          "properties.*  STRING       -        no        librdkafka settings\n");
}
