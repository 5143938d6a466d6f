#include "kafka_client/connection_error.h"

#include <librdkafka/rdkafka.h>
#include <spdlog/spdlog.h>

namespace cdcd::kafka {

std::optional<std::string> lasting_connection_error(int err, const std::string& reason) {
    if (err == RD_KAFKA_RESP_ERR__AUTHENTICATION) {
        return "cannot log in to the broker: " + reason +
               " (check properties.sasl.mechanism and properties.sasl.username / "
               "properties.sasl.password, or properties.sasl.jaas.config)";
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
