#include "cmd/cli_options.h"

#include <stdexcept>

namespace cdcd::cli {

const char* usage() {
    return R"(cdcd — a standalone change-data-capture daemon for Flink-CDC-style YAML pipelines.

Usage:
  cdcd run PIPELINE.yaml [--state-dir DIR] [--secrets FILE] [--reset-state]
  cdcd validate PIPELINE.yaml [--secrets FILE]
  cdcd describe [CONNECTOR]
  cdcd version
  cdcd --help

Options (before or after the file):
  --state-dir DIR      checkpoint directory (overrides pipeline.state.dir, default ./cdcd-state)
  --secrets FILE       values for ${secret_values.NAME}: a YAML map or KEY=VALUE lines
                       (CDCD_SECRET_<NAME> environment variables are used too)
  --reset-state        discard this pipeline's checkpoints and start from the startup mode
  --log-format FORMAT  text (default) or json; logs go to stderr, stdout is for sink output
  --log-level LEVEL    trace, debug, info (default), warn, error
  --log-file FILE      write logs to FILE instead of stderr
)";
}

CliOptions parse_cli(const std::vector<std::string>& args) {
    CliOptions o;
    auto value_of = [&](std::size_t& i, const std::string& flag) -> std::string {
        auto eq = args[i].find('=');
        if (eq != std::string::npos) return args[i].substr(eq + 1);
        if (i + 1 >= args.size()) throw std::invalid_argument(flag + " needs a value");
        return args[++i];
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        std::string flag = a.substr(0, a.find('='));
        if (a == "-h" || a == "--help") {
            o.command = "help";
        } else if (flag == "--state-dir") {
            o.state_dir = value_of(i, flag);
        } else if (flag == "--secrets") {
            o.secrets_file = value_of(i, flag);
        } else if (a == "--reset-state") {
            o.reset_state = true;
        } else if (flag == "--log-format") {
            o.log_format = value_of(i, flag);
            if (o.log_format != "text" && o.log_format != "json")
                throw std::invalid_argument("--log-format must be text or json, not '" + o.log_format + "'");
        } else if (flag == "--log-level") {
            o.log_level = value_of(i, flag);
        } else if (flag == "--log-file") {
            o.log_file = value_of(i, flag);
        } else if (a.starts_with("-")) {
            throw std::invalid_argument("unknown option " + a + " (see cdcd --help)");
        } else if (o.command.empty()) {
            o.command = a;
        } else if (!o.argument) {
            o.argument = a;
        } else {
            throw std::invalid_argument("unexpected argument '" + a + "' (see cdcd --help)");
        }
    }
    if (o.command.empty()) o.command = "help";
    if (o.command == "--version") o.command = "version";
    return o;
}

}  // namespace cdcd::cli
