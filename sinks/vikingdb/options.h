#pragma once
// The VikingDB sink's options (spec 002: connection and auth, collection and write, connection
// pool, field-level), declared as data, the cross-option rules checked at validate time, and the
// settings parsed from them.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "config/diagnostics.h"
#include "config/option_binding.h"
#include "config/option_spec.h"
#include "config/option_validator.h"

namespace cdcd::vikingdb {

/// Per-field overrides (`vikingdb.field.<f>.type` / `.dim`), by field name.
struct FieldOverride {
    std::optional<std::string> type;  // sink spelling: vector, sparse_vector, list_string, ...
    std::optional<int> dim;
};
using FieldOverrides = std::map<std::string, FieldOverride>;

struct Credentials {
    std::string api_key;     // data plane (Bearer); empty: sign the data plane with AK/SK
    std::string access_key;  // control plane (and data plane without an API key)
    std::string secret_key;
};

struct VikingdbSettings {
    std::string region;
    std::string control_host;
    std::string control_scheme = "https";
    std::string data_host;
    std::string data_scheme = "https";
    Credentials credentials;

    std::optional<std::string> name_template;  // collection-name-template
    std::optional<std::string> resource_id;
    std::string project_name = "default";
    std::string default_database = "default";
    bool auto_create = true;
    std::optional<std::int64_t> ttl_seconds;
    bool async_upsert = false;
    int batch_size = 100;
    std::chrono::milliseconds flush_interval{1000};
    bool ignore_update_before = false;
    bool ignore_delete = false;

    std::chrono::milliseconds connect_timeout{10'000};
    std::chrono::milliseconds socket_timeout{120'000};
    std::chrono::milliseconds read_timeout{120'000};
    int max_retries = 3;
    // Retries wait [d/2, d], d = 5 s doubling up to 60 s: 3 retries span 17.5..35 s.
    std::chrono::milliseconds retry_initial_backoff{5'000};
    std::chrono::milliseconds retry_max_backoff{60'000};
    int max_total_connections = 200;
    int max_per_route = 200;
    std::chrono::milliseconds connection_ttl{60'000};
    std::chrono::milliseconds validate_after_inactivity{10'000};
    std::chrono::milliseconds idle_evict{30'000};

    FieldOverrides fields;                         // from sink options
    std::map<std::string, std::string> vectorize;  // `vikingdb.vectorize.<key>` → value
};

inline constexpr const char* kFieldPrefix = "vikingdb.field.";
inline constexpr const char* kVectorizePrefix = "vikingdb.vectorize.";

/// The options as written, one member per option; VikingdbSettings is derived from them
/// (schemes split off the hosts, secrets read from the environment, field overrides parsed).
struct VikingdbOptions {
    std::string region;
    std::string control_host;
    std::string data_host;
    std::string data_scheme;
    std::optional<std::string> api_key;
    std::optional<std::string> api_key_env;
    std::optional<std::string> access_key;
    std::optional<std::string> access_key_env;
    std::optional<std::string> secret_key;
    std::optional<std::string> secret_key_env;
    std::optional<std::string> name_template;
    std::optional<std::string> resource_id;
    std::string project_name;
    std::string default_database;
    bool auto_create = true;
    std::optional<std::int64_t> ttl_seconds;
    bool async_upsert = false;
    int batch_size = 0;
    std::chrono::milliseconds flush_interval{0};
    bool ignore_update_before = false;
    bool ignore_delete = false;
    std::chrono::milliseconds connect_timeout{0};
    std::chrono::milliseconds socket_timeout{0};
    std::chrono::milliseconds read_timeout{0};
    int max_retries = 0;
    std::chrono::milliseconds retry_initial_backoff{0};
    std::chrono::milliseconds retry_max_backoff{0};
    int max_total_connections = 0;
    int max_per_route = 0;
    std::chrono::milliseconds connection_ttl{0};
    std::chrono::milliseconds validate_after_inactivity{0};
    std::chrono::milliseconds idle_evict{0};
    std::map<std::string, std::string> fields;     // vikingdb.field.*, prefix stripped
    std::map<std::string, std::string> vectorize;  // vikingdb.vectorize.*, prefix stripped
};

/// Every option, declared and bound to its member of VikingdbOptions.
const config::OptionBindings<VikingdbOptions>& vikingdb_sink_bindings();
config::ConnectorOptionsSpec vikingdb_sink_options();

/// Reads an environment variable; replaceable in tests.
using EnvReader = std::function<std::optional<std::string>(const std::string&)>;
std::optional<std::string> read_process_env(const std::string& name);

/// Cross-option rules: exactly one of `api-key`/`api-key-env` (or neither, then the data plane
/// is signed with AK/SK), exactly one of `access-key`/`access-key-env` and of
/// `secret-key`/`secret-key-env`, the named variables set, field overrides well-formed,
/// `async` not combined with vectorize. Each error carries the option's YAML position.
void validate_vikingdb_sink(const config::ValidatedOptions& options,
                            config::Diagnostics& diagnostics,
                            const EnvReader& env = read_process_env);

/// Throws config::ConfigError on anything validate_vikingdb_sink reports. Secrets read from
/// the environment are registered in the SecretRegistry.
VikingdbSettings vikingdb_settings(const config::ValidatedOptions& options,
                                   const EnvReader& env = read_process_env);

/// Parses `vikingdb.field.<f>.type|dim` keys (prefix stripped: `<f>.type`) into overrides;
/// throws std::invalid_argument naming the key on a bad suffix, type or dim.
FieldOverrides parse_field_overrides(const std::map<std::string, std::string>& keys);

/// The Vectorize object a `vikingdb.vectorize.<key>` (prefix stripped) belongs to: "Dense" for
/// `dense`, `dense.<param>` and a flat `<param>` (the spec's form), "Sparse" for `sparse` and
/// `sparse.<param>`; nullopt for `<other>.<param>`.
std::optional<std::string> vectorize_kind(const std::string& key);

/// "host" or "scheme://host" → (scheme, host); the scheme defaults to `fallback`.
std::pair<std::string, std::string> split_scheme(const std::string& host,
                                                 const std::string& fallback);

}  // namespace cdcd::vikingdb
