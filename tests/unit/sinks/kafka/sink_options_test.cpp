#include <catch2/catch.hpp>

#include "config/secrets.h"
#include "sinks/kafka/kafka_properties.h"
#include "sinks/kafka/kafka_sink_options.h"
#include "sinks/kafka/topic_selector.h"

using namespace cdcd;
using namespace cdcd::kafka;

TEST_CASE("sink.custom-header splits pairs on semicolons and key/value on colons") {
    auto h = parse_custom_headers("k1:v1;k2:v2");
    REQUIRE(h.size() == 2);
    CHECK(h[0] == std::pair<std::string, std::string>{"k1", "v1"});
    CHECK(h[1] == std::pair<std::string, std::string>{"k2", "v2"});
    CHECK(parse_custom_headers("").empty());
    CHECK_THROWS_WITH(parse_custom_headers("key1:value1,key2:value2"),
                      Catch::Contains("malformed"));
    CHECK_THROWS(parse_custom_headers("novalue"));
}

TEST_CASE("topic: fixed topic, then first matching mapping, then the table id") {
    TopicSelector mapped(std::nullopt, "app_db.orders:orders-topic;app_db.\\.*:all-app");
    CHECK(mapped.topic_for(TableId::of("app_db", "orders")) == "orders-topic");
    CHECK(mapped.topic_for(TableId::of("APP_DB", "products")) == "all-app");
    CHECK(mapped.topic_for(TableId::of("other", "t")) == "other.t");
    TopicSelector fixed(std::string("one"), "app_db.orders:orders-topic");
    CHECK(fixed.topic_for(TableId::of("app_db", "orders")) == "one");
    CHECK_THROWS(TopicSelector(std::nullopt, "a.b"));
}

TEST_CASE("properties: Java names translated, unsupported ones rejected by name") {
    auto c = translate_properties(
        {{"bootstrap.servers", "x:1"},
         {"sasl.mechanism", "PLAIN"},
         {"delivery.timeout.ms", "1000"},
         {"sasl.jaas.config",
          "org.apache.kafka.common.security.plain.PlainLoginModule required "
          "username=\"u\" password=\"p\\\"w\";"},
         {"key.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer"}},
        ClientRole::Producer);
    CHECK(*find_setting(c, "sasl.mechanisms") == "PLAIN");
    CHECK(*find_setting(c, "message.timeout.ms") == "1000");
    CHECK(*find_setting(c, "sasl.username") == "u");
    CHECK(*find_setting(c, "sasl.password") == "p\"w");
    CHECK(c.ignored == std::vector<std::string>{"key.serializer"});
    CHECK_THROWS_WITH(
        translate_properties({{"ssl.truststore.location", "/x.jks"}}, ClientRole::Producer),
        Catch::StartsWith("properties.ssl.truststore.location"));
    CHECK_THROWS_WITH(translate_properties({{"no.such.key", "1"}}, ClientRole::Producer),
                      Catch::StartsWith("properties.no.such.key"));
    CHECK_THROWS_WITH(translate_properties({{"enable.auto.commit", "true"}}, ClientRole::Consumer),
                      Catch::StartsWith("properties.enable.auto.commit"));
    auto consumer = translate_properties(
        {{"max.poll.records", "100"}, {"auto.offset.reset", "none"}}, ClientRole::Consumer);
    CHECK(consumer.handled.at("max.poll.records") == "100");
    CHECK(*find_setting(consumer, "auto.offset.reset") == "error");
}

TEST_CASE("properties: the password inside sasl.jaas.config is redacted on its own") {
    auto c =
        translate_properties({{"sasl.jaas.config",
                               "org.apache.kafka.common.security.scram.ScramLoginModule required "
                               "username=\"u\" password=\"jaas-only-p\\\"assword\";"}},
                             ClientRole::Producer);
    CHECK(*find_setting(c, "sasl.password") == "jaas-only-p\"assword");
    CHECK(config::SecretRegistry::instance().redact("login jaas-only-p\"assword failed") ==
          "login ****** failed");
}
