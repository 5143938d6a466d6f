#pragma once
// Command-line parsing for `cdcd`: a subcommand, one positional argument at most, and flags that
// may come before or after it.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cdcd::cli {

struct CliOptions {
    std::string command;  // run, validate, test, describe, checkpoints, top, tap, version, help
    std::optional<std::string> argument;
    std::string state_dir;
    std::string secrets_file;
    bool reset_state = false;
    std::optional<std::uint64_t> from_checkpoint;  // cdcd run --from-checkpoint ID
    std::string log_format = "text";               // text | json
    std::string log_level = "info";                // a level of log_level_of()
    std::string log_file;
    std::string admin_address;             // overrides pipeline.admin.address
    std::string describe_format = "text";  // cdcd describe: text | markdown (docs/*.md tables)
    // cdcd checkpoints
    std::string pipeline_name;
    std::string pipeline_file;
    std::optional<std::uint64_t> checkpoint_id;
    // cdcd test
    std::string tests_file;
    // cdcd top
    std::vector<std::string> addresses;  // every positional argument
    std::chrono::milliseconds interval{1000};
    bool once = false;
    // cdcd tap (its address is `argument`)
    std::string tap_point = "transform";
    std::string tap_table;
    std::uint32_t tap_rate = 0;   // 0: the daemon's default
    std::uint64_t tap_limit = 0;  // 0: no limit
};

/// The spdlog name (trace, debug, info, warn, error, critical, off) of a --log-level value, read
/// case-insensitively, "warning" meaning warn. Throws std::invalid_argument listing the levels.
std::string log_level_of(std::string_view text);

/// Throws std::invalid_argument with a message naming the bad flag.
CliOptions parse_cli(const std::vector<std::string>& args);
const char* usage();

}  // namespace cdcd::cli
