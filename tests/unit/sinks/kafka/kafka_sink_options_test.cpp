#include "sinks/kafka/kafka_sink_options.h"

#include <catch2/catch.hpp>

#include "config/secrets.h"
#include "kafka_client/kafka_properties.h"
#include "sinks/kafka/topic_selector.h"
#include "tests/unit/sinks/kafka/sink_option_errors.h"

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

TEST_CASE("properties: a sasl.jaas.config login librdkafka cannot take says what to set instead") {
    CHECK_THROWS_WITH(
        translate_properties({{"sasl.jaas.config",
                               "com.sun.security.auth.module.Krb5LoginModule required "
                               "useKeyTab=true keyTab=\"/k.keytab\" principal=\"cdc@R\";"}},
                             ClientRole::Consumer),
        Catch::StartsWith("properties.sasl.jaas.config: only PlainLoginModule") &&
            Catch::Contains("properties.sasl.kerberos.keytab"));
}

TEST_CASE("properties: Java trust stores: PEM maps to ssl.ca.*, JKS and PKCS12 are refused") {
    auto pem = translate_properties(
        {{"ssl.truststore.type", "PEM"}, {"ssl.truststore.location", "/ca.pem"}},
        ClientRole::Consumer);
    CHECK(*find_setting(pem, "ssl.ca.location") == "/ca.pem");
    CHECK_FALSE(find_setting(pem, "ssl.truststore.type"));
    auto inline_pem =
        translate_properties({{"ssl.truststore.type", "PEM"},
                              {"ssl.truststore.certificates", "-----BEGIN CERTIFICATE-----"}},
                             ClientRole::Producer);
    CHECK(*find_setting(inline_pem, "ssl.ca.pem") == "-----BEGIN CERTIFICATE-----");
    // Java's default trust store type is JKS: an untyped location is refused too.
    for (const char* type : {"JKS", "PKCS12", ""}) {
        std::map<std::string, std::string> p{{"ssl.truststore.location", "/t.jks"},
                                             {"ssl.truststore.password", "changeit"}};
        if (*type) p["ssl.truststore.type"] = type;
        CHECK_THROWS_WITH(
            translate_properties(p, ClientRole::Consumer),
            Catch::StartsWith("properties.ssl.truststore.location: librdkafka cannot read") &&
                Catch::Contains("properties.ssl.ca.location: ca.pem") &&
                !Catch::Contains("changeit"));
    }
    CHECK_THROWS_WITH(translate_properties(
                          {{"ssl.truststore.type", "PEM"}, {"ssl.truststore.password", "changeit"}},
                          ClientRole::Consumer),
                      Catch::StartsWith("properties.ssl.truststore.password: does not apply"));
}

TEST_CASE("properties: Java key stores: PKCS12 and PEM map to librdkafka, JKS is refused") {
    auto p12 = translate_properties({{"ssl.keystore.type", "PKCS12"},
                                     {"ssl.keystore.location", "/k.p12"},
                                     {"ssl.keystore.password", "pw"}},
                                    ClientRole::Producer);
    CHECK(*find_setting(p12, "ssl.keystore.location") == "/k.p12");
    CHECK(*find_setting(p12, "ssl.keystore.password") == "pw");
    auto pem = translate_properties(
        {{"ssl.keystore.type", "PEM"}, {"ssl.keystore.location", "/client.pem"}},
        ClientRole::Consumer);
    CHECK(*find_setting(pem, "ssl.certificate.location") == "/client.pem");
    CHECK(*find_setting(pem, "ssl.key.location") == "/client.pem");
    auto inline_pem = translate_properties({{"ssl.keystore.type", "PEM"},
                                            {"ssl.keystore.key", "-----BEGIN PRIVATE KEY-----"},
                                            {"ssl.keystore.certificate.chain", "-----BEGIN C"}},
                                           ClientRole::Consumer);
    CHECK(*find_setting(inline_pem, "ssl.key.pem") == "-----BEGIN PRIVATE KEY-----");
    CHECK(*find_setting(inline_pem, "ssl.certificate.pem") == "-----BEGIN C");
    CHECK_THROWS_WITH(
        translate_properties({{"ssl.keystore.type", "JKS"}, {"ssl.keystore.location", "/k.jks"}},
                             ClientRole::Producer),
        Catch::StartsWith("properties.ssl.keystore.location: librdkafka cannot read JKS") &&
            Catch::Contains("properties.ssl.keystore.type: PKCS12"));
}

TEST_CASE("topic and bootstrap.servers: empty values and names Kafka refuses are reported") {
    // `topic: ""` validated, and every record then went to a topic with no name.
    CHECK_THAT(testing::sink_option_errors({{"topic", ""}}),
               Catch::Contains("p.yaml:11:3: error: `topic`: an empty name is not a Kafka topic "
                               "name"));
    CHECK_THAT(testing::sink_option_errors({{"topic", "a b"}}),
               Catch::Contains("`topic`: `a b` is not a Kafka topic name"));
    CHECK_THAT(testing::sink_option_errors({{"properties.bootstrap.servers", ""}}),
               Catch::Contains("`properties.bootstrap.servers` is empty"));
    CHECK(testing::sink_option_errors({{"topic", "orders.v2"}}).empty());
}

TEST_CASE("topic: a mapping to a name Kafka refuses is refused") {
    CHECK_THROWS_WITH(TopicSelector(std::nullopt, "a.b:x y;c.d:ok"),
                      "sink.tableId-to-topic.mapping: entry 'a.b:x y': `x y` is not a Kafka topic "
                      "name: it may hold only ASCII letters, digits, '.', '_' and '-'");
    CHECK_NOTHROW(TopicSelector(std::nullopt, "a.b:x_y;c.d:ok"));
}

TEST_CASE("topic: a mapping selector RE2 cannot run is refused as every regex option refuses") {
    CHECK_THROWS_WITH(TopicSelector(std::nullopt, "app_db.(?U)t:x"),
                      "sink.tableId-to-topic.mapping: selector 'app_db.(?U)t': invalid table "
                      "selector 'app_db.(?U)t': unsupported regular expression '(?U)t': inline "
                      "flag '(?U)' at index 0 is not supported: RE2, which cdcd matches with, "
                      "cannot run it");
}
