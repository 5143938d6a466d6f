// Process-wide registry of secret values (passwords, tokens) and the redaction applied to
// every diagnostic, option dump and log line, so a secret never leaves the process in text.
#pragma once

#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

namespace spdlog::sinks {
class sink;
}

namespace cdcd::config {

inline constexpr std::string_view kRedacted = "******";

class SecretRegistry {
  public:
    // Values shorter than this are not registered: redacting "1" or "abc" everywhere would
    // destroy logs without protecting anything.
    static constexpr std::size_t kMinSecretLength = 4;

    static SecretRegistry& instance();

    // Register a secret value. Empty or short values (< kMinSecretLength) are ignored.
    void add(std::string_view value);
    bool contains(std::string_view value) const;
    std::size_t size() const;

    // Replace every occurrence of every registered secret by "******". Longer secrets are
    // replaced first, so a secret that contains another one is hidden completely.
    std::string redact(std::string_view text) const;

  private:
    mutable std::shared_mutex mutex_;
    std::vector<std::string> secrets_;  // sorted by length, longest first, no duplicates
};

// Whether the key of a pass-through option (a prefix option such as Kafka's `properties.*`, which
// has no declaration to mark it secret) names a credential: it contains `password`, `secret`,
// `token`, `credential`, `jaas.config`, `api-key`/`apikey`, or ends in `key.pem` or
// `keystore.key` (any case). Such values are registered like those of secret options.
bool names_a_credential(std::string_view key);

// Wrap a spdlog sink so that every message passed to it is redacted first.
std::shared_ptr<spdlog::sinks::sink> make_redacting_sink(
    std::shared_ptr<spdlog::sinks::sink> inner);

}  // namespace cdcd::config
