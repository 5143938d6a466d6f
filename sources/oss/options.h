#pragma once
// The oss-cdc options: declarations (as data), the cross-option rules of the spec, and the typed
// settings the source runs with.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/diagnostics.h"
#include "config/option_binding.h"
#include "config/option_spec.h"
#include "config/option_validator.h"
#include "config/pipeline_def.h"

namespace cdcd::oss {

enum class IncrementalMode { Mns, Polling };
enum class StartupMode {
    EarliestOffset,
    LatestOffset,
    CommittedOffset,
    Timestamp,
    Initial,
    Snapshot
};

const char* to_string(StartupMode m);

struct OssSettings {
    IncrementalMode mode = IncrementalMode::Mns;
    StartupMode startup = StartupMode::CommittedOffset;
    std::int64_t startup_timestamp_ms = 0;
    bool append_only = false;

    std::string access_key_id;
    std::string access_key_secret;  // secret
    std::string security_token;     // secret; empty: none

    // MNS
    std::string mns_endpoint;  // http(s)://host[:port], VPC form applied
    std::string mns_region;
    std::string mns_queue;
    int mns_batch_size = 1;
    std::chrono::milliseconds mns_wait{10'000};
    int mns_delete_max_retries = 3;
    bool mns_batch_delete = false;
    bool mns_use_vpc = false;

    // OSS
    std::string oss_endpoint;  // http(s)://host[:port]; empty when unset
    std::string oss_region;
    std::string oss_bucket;
    bool v4 = false;
    std::vector<std::string> paths;  // prefixes; empty: whole bucket
    bool presign = false;
    std::chrono::seconds presign_ttl{3600};

    // Common
    std::optional<double> rate_limit;
    int parallelism = 1;  // MNS receivers: scan.parallelism, else pipeline.parallelism
    std::string table_id_pattern;
    std::vector<std::string> metadata;  // metadata.list, canonical names

    // POLLING
    std::chrono::milliseconds polling_interval{10'000};
    int polling_prefix_size = 100;
    bool polling_emit_deletes = false;

    // FETCH_CONTENT
    std::uint64_t fetch_max_bytes = 64ULL << 20;
    bool fetch_ignore_errors = false;
    std::chrono::milliseconds fetch_timeout{60'000};
    std::chrono::milliseconds request_timeout{30'000};  // one OSS or MNS request

    std::int64_t checkpoint_interval_ms = 10'000;  // from the pipeline
};

/// Every metadata key `metadata.list` accepts, in the spec's order.
const std::vector<std::string>& metadata_keys();
/// The declared type of a metadata key ("STRING", "BIGINT", "TIMESTAMP_LTZ(3)").
std::string metadata_type(const std::string& key);

/// The options as written, one member per option; OssSettings is derived from them (defaults
/// that depend on the mode, endpoints normalised, regions resolved).
struct OssOptions {
    IncrementalMode mode = IncrementalMode::Mns;
    std::optional<std::string> mns_endpoint;
    std::optional<std::string> mns_region;
    std::optional<std::string> mns_queue;
    std::string access_key_id;
    std::string access_key_secret;
    std::optional<std::string> security_token;
    std::optional<std::string> table_id_pattern;
    std::optional<StartupMode> startup;  // unset: by mode (startup_of)
    std::optional<std::int64_t> startup_timestamp_ms;
    bool append_only = false;
    int mns_batch_size = 0;
    std::chrono::milliseconds mns_wait{0};
    int mns_delete_max_retries = 0;
    std::optional<double> rate_limit;
    std::optional<int> parallelism;
    bool mns_use_vpc = false;
    bool mns_batch_delete = false;
    std::chrono::milliseconds polling_interval{0};
    int polling_prefix_size = 0;
    bool polling_emit_deletes = false;
    std::optional<std::string> oss_endpoint;
    std::optional<std::string> oss_region;
    std::optional<std::string> region;
    std::optional<std::string> oss_bucket;
    bool v4 = false;
    std::optional<std::string> path;
    std::optional<std::string> metadata_list;
    bool presign = false;
    std::chrono::milliseconds presign_ttl{0};
    std::uint64_t fetch_max_bytes = 0;
    bool fetch_ignore_errors = false;
    std::chrono::milliseconds fetch_timeout{0};
    std::chrono::milliseconds request_timeout{0};
};

/// Every option, declared and bound to its member of OssOptions.
const config::OptionBindings<OssOptions>& option_bindings();
config::ConnectorOptionsSpec option_specs();
void validate(const config::ValidatedOptions& o, const config::ConnectorDef& def,
              config::Diagnostics& d);
OssSettings settings_from(const config::ValidatedOptions& o);

/// "host" / "http://host:port" → "scheme://host[:port]" (https when no scheme is given).
std::string normalize_endpoint(const std::string& endpoint);
/// The MNS VPC endpoint for a public one: {account}.mns.{region}.aliyuncs.com →
/// {account}.mns.{region}-vpc.aliyuncs.com (unchanged when the host is not of that form).
std::string mns_vpc_endpoint(const std::string& endpoint);

}  // namespace cdcd::oss
