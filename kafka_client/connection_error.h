#pragma once
// Connection errors that librdkafka would retry for ever although retrying cannot cure them: the
// broker refused the SASL credentials, or the broker's TLS certificate could not be verified.
// librdkafka reports them as client errors and keeps reconnecting, so without this a source waits
// for its metadata timeout with "Broker transport failure" and a sink for message.timeout.ms
// (5 minutes by default) with "Message timed out". Both clients stop at once instead, with
// librdkafka's reason (which names the broker, e.g. "sasl_ssl://host:9093/bootstrap: SASL
// authentication error: …", and never the password) and the settings to check.
#include <optional>
#include <string>

namespace cdcd::kafka {

/// For a client error (error_cb, or a consumer message with `err` set): the text to fail with
/// when the error is one that lasts, else nullopt (librdkafka recovers from the rest by itself).
std::optional<std::string> lasting_connection_error(int err, const std::string& reason);

/// Logs a client error the way librdkafka does when no error callback is set ("all brokers
/// down" as a warning: librdkafka reconnects by itself).
void log_client_error(const char* client, int err, const char* reason);

}  // namespace cdcd::kafka
