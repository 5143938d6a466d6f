#include "kafka_client/connection_error.h"

#include <librdkafka/rdkafka.h>

#include <catch2/catch.hpp>

using namespace cdcd::kafka;

TEST_CASE(
    "connection errors: refused credentials last, with librdkafka's reason and the settings") {
    auto e = lasting_connection_error(
        RD_KAFKA_RESP_ERR__AUTHENTICATION,
        "sasl_ssl://b:9093/bootstrap: SASL authentication error: Authentication failed: Invalid "
        "username or password (after 3ms in state AUTH_REQ)");
    REQUIRE(e);
    CHECK_THAT(*e, Catch::StartsWith("cannot log in to the broker: sasl_ssl://b:9093/bootstrap: "));
    CHECK_THAT(*e, Catch::Contains("properties.sasl.password"));
    CHECK_THAT(*e, !Catch::Contains("SCRAM"));
}

TEST_CASE("connection errors: cdcd links a librdkafka whose SCRAM logins Kafka 4 accepts") {
    // Before 2.6.1 librdkafka sent the client nonce twice and Kafka 4 brokers refused every SCRAM
    // login (confluentinc/librdkafka#4895); scripts/install_librdkafka.sh builds a newer one.
    CHECK(rd_kafka_version() >= 0x020601ff);
    auto e = lasting_connection_error(RD_KAFKA_RESP_ERR__AUTHENTICATION,
                                      "b:9093/bootstrap: SASL authentication error: Authentication "
                                      "failed during authentication due to invalid credentials "
                                      "with SASL mechanism SCRAM-SHA-256");
    REQUIRE(e);
    CHECK_THAT(*e, Catch::StartsWith("cannot log in to the broker: b:9093/bootstrap: "));
}

TEST_CASE("connection errors: an unverifiable certificate lasts and points at ssl.ca.location") {
    auto e = lasting_connection_error(
        RD_KAFKA_RESP_ERR__SSL,
        "ssl://b:9093/bootstrap: SSL handshake failed: error:0A000086:SSL "
        "routines::certificate verify failed: broker certificate could not be verified");
    REQUIRE(e);
    CHECK_THAT(*e, Catch::StartsWith("cannot verify the broker's TLS certificate: ssl://b:9093"));
    CHECK_THAT(*e, Catch::Contains("properties.ssl.ca.location"));
}

TEST_CASE("connection errors: what librdkafka recovers from by itself is not lasting") {
    CHECK_FALSE(lasting_connection_error(RD_KAFKA_RESP_ERR__TRANSPORT,
                                         "b:9092/bootstrap: Connect to ipv4#127.0.0.1:9092 "
                                         "failed: Connection refused"));
    CHECK_FALSE(
        lasting_connection_error(RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN, "1/1 brokers are down"));
    CHECK_FALSE(lasting_connection_error(RD_KAFKA_RESP_ERR__SSL,
                                         "ssl://b:9093/bootstrap: SSL transport error: "
                                         "Disconnected"));
}
