#pragma once
// The `dingtalk-cdc` source's options (the spec's 数据摄入 YAML table), declared as data, their
// cross-option rules, and the typed settings the reader uses.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "config/diagnostics.h"
#include "config/option_binding.h"
#include "config/option_spec.h"
#include "config/option_validator.h"

namespace cdcd::dingtalk {

// Timestamp is declared (Flink CDC has it) and refused by validate().
enum class StartupMode { Initial, Snapshot, LatestOffset, Timestamp };

struct DingTalkOptions {
    std::string app_key;
    std::string app_secret;
    std::string operator_id;
    std::string endpoint = "https://api.dingtalk.com";
    std::vector<std::string> workspace_ids;  // empty: discover every visible workspace
    std::vector<std::string> exclude_node_ids;
    int max_depth = 100;
    int max_nodes = 100'000;
    StartupMode startup_mode = StartupMode::Initial;
    std::chrono::milliseconds discovery_interval{60'000};
    std::chrono::milliseconds poll_interval{10'000};
    int prefix_size = 100;
    int consistency_max_retries = 3;
    std::chrono::milliseconds fetch_max_duration{600'000};
    std::int64_t document_max_bytes = 52'428'800;
    int block_fetch_size = 10;
    int block_max_pages = 1000;
    bool include_raw_json = false;
    bool emit_deletes = false;
    std::chrono::milliseconds request_timeout{30'000};
    int request_max_retries = 3;
    std::chrono::milliseconds retry_after_max_delay{60'000};
    double discovery_rps = 5;
    double metadata_rps = 20;
    double content_rps = 10;
    double fetch_rps = 10;
};

/// Every option, declared and bound to its member of DingTalkOptions.
const config::OptionBindings<DingTalkOptions>& option_bindings();
/// The declaration of every option.
config::ConnectorOptionsSpec option_spec();
/// Rules beyond single values (startup mode `timestamp`, object-type, endpoint URL).
void validate(const config::ValidatedOptions& options, config::Diagnostics& diags);
/// Typed settings; `options` must have passed validate().
DingTalkOptions read_options(const config::ValidatedOptions& options);

}  // namespace cdcd::dingtalk
