#include "kafka_client/connection_error.h"

#include <librdkafka/rdkafka.h>
#include <spdlog/spdlog.h>

namespace cdcd::kafka {

namespace {

// librdkafka before 2.6.1 sends a SCRAM client-final-message with the client nonce twice;
// Kafka 4.0 and later brokers check it as RFC 5802 says and refuse every such login
// (confluentinc/librdkafka#4895).
bool scram_nonce_bug() {
    return rd_kafka_version() < 0x020601ff;
}

}  // namespace

std::optional<std::string> lasting_connection_error(int err, const std::string& reason) {
    if (err == RD_KAFKA_RESP_ERR__AUTHENTICATION) {
        std::string text = "cannot log in to the broker: " + reason +
                           " (check properties.sasl.mechanism and properties.sasl.username / "
                           "properties.sasl.password, or properties.sasl.jaas.config)";
        if (reason.find("SCRAM") != std::string::npos && scram_nonce_bug())
            text += "; note: the librdkafka cdcd runs with (" +
                    std::string(rd_kafka_version_str()) +
                    ") cannot log in with SCRAM to Kafka 4.0 or later brokers (fixed in librdkafka "
                    "2.6.1): use SASL PLAIN over SASL_SSL with those brokers";
        return text;
    }
    if (err == RD_KAFKA_RESP_ERR__SSL &&
        reason.find("certificate verify failed") != std::string::npos)
        return "cannot verify the broker's TLS certificate: " + reason +
               " (set properties.ssl.ca.location to the PEM file of the CA that signed the "
               "broker's certificate; the broker's host name must match the certificate)";
    return std::nullopt;
}

void log_client_error(const char* client, int err, const char* reason) {
    spdlog::log(
        err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN ? spdlog::level::warn : spdlog::level::err,
        "librdkafka {} ERROR: {}", client, reason);
}

}  // namespace cdcd::kafka
