#pragma once
// `properties.*` of the Kafka source and sink: Flink passes them to the Java Kafka client; cdcd
// passes them to librdkafka with the prefix stripped. Java names whose librdkafka spelling differs
// are translated (sasl.mechanism → sasl.mechanisms, delivery.timeout.ms → message.timeout.ms,
// sasl.jaas.config → sasl.username/sasl.password, …); Java-only settings cdcd honours itself are
// taken out; Java PEM trust/key stores map to librdkafka's ssl.ca.* / ssl.certificate.* /
// ssl.key.*, PKCS12 key stores are librdkafka's ssl.keystore.*; what librdkafka cannot honour
// (JKS or PKCS12 trust stores, JKS key stores, unknown keys, bad values) is rejected with an error
// naming `properties.<key>` and what to write instead.
#include <librdkafka/rdkafka.h>

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cdcd::kafka {

enum class ClientRole { Consumer, Producer };

struct ClientConfig {
    /// librdkafka configuration, in the order given.
    std::vector<std::pair<std::string, std::string>> librdkafka;
    /// Java-client settings that cdcd itself honours: max.poll.records,
    /// partition.discovery.interval.ms (source) — by their Java name.
    std::map<std::string, std::string> handled;
    /// Settings accepted but without effect (Java serializer classes Flink overrides anyway).
    std::vector<std::string> ignored;
};

struct PropertyError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

/// Translates `properties.*` (prefix already stripped) for librdkafka and checks every result
/// against librdkafka's own configuration parser. Throws PropertyError naming the key.
ClientConfig translate_properties(const std::map<std::string, std::string>& properties,
                                  ClientRole role);

/// Sets `key` on a librdkafka configuration. When librdkafka refuses it, destroys `conf` and
/// throws std::invalid_argument("<context>: <key>: <librdkafka's reason>").
void set_or_throw(rd_kafka_conf_t* conf, const std::string& key, const std::string& value,
                  std::string_view context);

/// What is wrong with `properties.bootstrap.servers` among `properties` (prefix stripped): missing,
/// or naming no server; nullopt when it names some. Both Kafka connectors need it.
std::optional<std::string> bootstrap_servers_problem(
    const std::map<std::string, std::string>& properties);

/// The value of a librdkafka key in `config`, or nullptr.
const std::string* find_setting(const ClientConfig& config, const std::string& key);

}  // namespace cdcd::kafka
