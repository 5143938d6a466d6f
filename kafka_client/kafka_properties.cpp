#include "kafka_client/kafka_properties.h"

#include <librdkafka/rdkafka.h>

#include <memory>
#include <regex>

#include "config/option_spec.h"
#include "config/secrets.h"

namespace cdcd::kafka {

namespace {

[[noreturn]] void reject(const std::string& key, const std::string& why) {
    throw PropertyError("properties." + key + ": " + why);
}

// sasl.jaas.config: `org.apache.kafka.common.security.plain.PlainLoginModule required
// username="u" password="p";` (also Scram). Only username/password logins map to librdkafka.
void translate_jaas(const std::string& value, ClientConfig& out) {
    if (value.find("PlainLoginModule") == std::string::npos &&
        value.find("ScramLoginModule") == std::string::npos)
        reject("sasl.jaas.config",
               "only PlainLoginModule and ScramLoginModule logins can be mapped to librdkafka "
               "(sasl.username / sasl.password); for Kerberos (GSSAPI) set "
               "properties.sasl.kerberos.service.name, properties.sasl.kerberos.principal and "
               "properties.sasl.kerberos.keytab, for OAUTHBEARER librdkafka's "
               "properties.sasl.oauthbearer.* settings, instead of properties.sasl.jaas.config");
    static const std::regex field(R"re((username|password)\s*=\s*"((?:[^"\\]|\\.)*)")re");
    bool user = false, pass = false;
    for (std::sregex_iterator it(value.begin(), value.end(), field), end; it != end; ++it) {
        std::string v = (*it)[2];
        std::string unescaped;
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (v[i] == '\\' && i + 1 < v.size()) ++i;
            unescaped.push_back(v[i]);
        }
        if ((*it)[1] == "username") {
            out.librdkafka.emplace_back("sasl.username", unescaped);
            user = true;
        } else {
            config::SecretRegistry::instance().add(unescaped);  // librdkafka sees it alone
            out.librdkafka.emplace_back("sasl.password", unescaped);
            pass = true;
        }
    }
    if (!user || !pass) reject("sasl.jaas.config", "needs both username=\"…\" and password=\"…\"");
}

std::string store_type(const std::map<std::string, std::string>& properties,
                       const std::string& key) {
    auto it = properties.find(key);
    return it == properties.end() ? "JKS" : it->second;  // Java's default store type
}

// Java trust stores: a PEM one maps to librdkafka's CA settings; JKS and PKCS12 ones librdkafka
// cannot read.
void translate_truststore(const std::map<std::string, std::string>& properties,
                          const std::string& key, const std::string& value, ClientConfig& out) {
    const std::string type = store_type(properties, "ssl.truststore.type");
    if (type != "PEM")
        reject(key,
               "librdkafka cannot read " + type +
                   " trust stores; export the CA certificates as PEM (keytool -exportcert -rfc "
                   "-keystore <store> -alias <alias> -file ca.pem) and set "
                   "properties.ssl.ca.location: ca.pem (or properties.ssl.truststore.type: PEM "
                   "with properties.ssl.truststore.location: ca.pem)");
    if (key == "ssl.truststore.location")
        out.librdkafka.emplace_back("ssl.ca.location", value);
    else if (key == "ssl.truststore.certificates")
        out.librdkafka.emplace_back("ssl.ca.pem", value);
    else if (key != "ssl.truststore.type")
        reject(key, "does not apply to a PEM trust store (ssl.truststore.type: PEM)");
}

// Java key stores: PKCS12 is librdkafka's ssl.keystore.location too; a PEM one (key and
// certificate chain in one file, or given inline) maps to librdkafka's certificate and key
// settings; JKS librdkafka cannot read.
void translate_keystore(const std::map<std::string, std::string>& properties,
                        const std::string& key, const std::string& value, ClientConfig& out) {
    const bool typed = properties.count("ssl.keystore.type") > 0;
    const std::string type = store_type(properties, "ssl.keystore.type");
    if (type == "PKCS12" || (!typed && key == "ssl.keystore.location")) {
        // Untyped: Java would read JKS; librdkafka tries PKCS#12 and says so if it is not.
        if (key == "ssl.keystore.location")
            out.librdkafka.emplace_back(key, value);
        else if (key != "ssl.keystore.type")
            reject(key,
                   "does not apply to a PKCS12 key store; use properties.ssl.keystore.location");
        return;
    }
    if (type != "PEM")
        reject(key, "librdkafka cannot read " + type +
                        " key stores; convert it to PKCS12 (keytool -importkeystore -srckeystore "
                        "<store> -destkeystore client.p12 -deststoretype PKCS12) and set "
                        "properties.ssl.keystore.type: PKCS12 with "
                        "properties.ssl.keystore.location: client.p12, or give PEM files with "
                        "properties.ssl.certificate.location and properties.ssl.key.location");
    if (key == "ssl.keystore.location") {  // one file holding the private key and the chain
        out.librdkafka.emplace_back("ssl.certificate.location", value);
        out.librdkafka.emplace_back("ssl.key.location", value);
    } else if (key == "ssl.keystore.key") {
        config::SecretRegistry::instance().add(value);
        out.librdkafka.emplace_back("ssl.key.pem", value);
    } else if (key == "ssl.keystore.certificate.chain") {
        out.librdkafka.emplace_back("ssl.certificate.pem", value);
    }
}

}  // namespace

ClientConfig translate_properties(const std::map<std::string, std::string>& properties,
                                  ClientRole role) {
    ClientConfig out;
    const bool consumer = role == ClientRole::Consumer;
    for (const auto& [key, value] : properties) {
        if (key == "key.serializer" || key == "value.serializer" || key == "key.deserializer" ||
            key == "value.deserializer") {
            out.ignored.push_back(key);  // Flink sets its own byte-array (de)serializers too
        } else if (key == "sasl.mechanism") {
            out.librdkafka.emplace_back("sasl.mechanisms", value);
        } else if (key == "sasl.jaas.config") {
            translate_jaas(value, out);
        } else if (key == "delivery.timeout.ms") {
            out.librdkafka.emplace_back("message.timeout.ms", value);
        } else if (key == "max.request.size") {
            out.librdkafka.emplace_back("message.max.bytes", value);
        } else if (key == "buffer.memory") {
            long long bytes = 0;
            try {
                bytes = std::stoll(value);
            } catch (const std::exception&) {
                reject(key, "not a number: " + value);
            }
            out.librdkafka.emplace_back("queue.buffering.max.kbytes",
                                        std::to_string((bytes + 1023) / 1024));
        } else if (key == "client.id.prefix") {
            out.librdkafka.emplace_back("client.id", value);
        } else if (key == "ssl.endpoint.identification.algorithm") {
            out.librdkafka.emplace_back(key, value.empty() ? "none" : value);
        } else if (key.rfind("ssl.truststore.", 0) == 0) {
            translate_truststore(properties, key, value, out);
        } else if (key == "ssl.keystore.type" || key == "ssl.keystore.location" ||
                   key == "ssl.keystore.key" || key == "ssl.keystore.certificate.chain") {
            translate_keystore(properties, key, value, out);
        } else if (key == "auto.offset.reset") {
            if (!consumer) reject(key, "is a consumer setting");
            out.librdkafka.emplace_back(key, value == "none" ? "error" : value);
        } else if (consumer &&
                   (key == "max.poll.records" || key == "partition.discovery.interval.ms")) {
            out.handled[key] = value;
        } else if (consumer && key == "enable.auto.commit") {
            if (value != "false")
                reject(key,
                       "cdcd commits consumer offsets when a checkpoint completes; auto commit "
                       "cannot be enabled");
        } else if (consumer && key == "enable.auto.offset.store") {
            reject(key, "cdcd tracks offsets itself");
        } else if (!consumer && key == "transactional.id") {
            reject(key,
                   "cdcd derives transactional ids from sink.transactional-id-prefix (or the "
                   "pipeline name) and writer index (sink.delivery-guarantee: exactly-once)");
        } else {
            out.librdkafka.emplace_back(key, value);
        }
    }
    // Let librdkafka check every key and value now, so a typo fails at validate time.
    std::unique_ptr<rd_kafka_conf_t, decltype(&rd_kafka_conf_destroy)> conf(rd_kafka_conf_new(),
                                                                            rd_kafka_conf_destroy);
    char err[512];
    for (const auto& [key, value] : out.librdkafka) {
        if (rd_kafka_conf_set(conf.get(), key.c_str(), value.c_str(), err, sizeof err) !=
            RD_KAFKA_CONF_OK) {
            std::string java;
            for (const auto& [k, v] : properties)
                if (k == key) java = k;
            reject(java.empty() ? key : java, err);
        }
    }
    return out;
}

std::optional<std::string> bootstrap_servers_problem(
    const std::map<std::string, std::string>& properties) {
    auto it = properties.find("bootstrap.servers");
    if (it == properties.end()) return "`properties.bootstrap.servers` is required";
    if (config::parse_list(it->second).empty()) return "`properties.bootstrap.servers` is empty";
    return std::nullopt;
}

const std::string* find_setting(const ClientConfig& config, const std::string& key) {
    const std::string* found = nullptr;
    for (const auto& [k, v] : config.librdkafka)
        if (k == key) found = &v;
    return found;
}

void set_or_throw(rd_kafka_conf_t* conf, const std::string& key, const std::string& value,
                  std::string_view context) {
    char err[512];
    if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), err, sizeof err) == RD_KAFKA_CONF_OK)
        return;
    rd_kafka_conf_destroy(conf);
    throw std::invalid_argument(std::string(context) + ": " + key + ": " + err);
}

}  // namespace cdcd::kafka
