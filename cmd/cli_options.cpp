#include "cmd/cli_options.h"

#include <charconv>
#include <stdexcept>

namespace cdcd::cli {

const char* usage() {
    return R"(cdcd — a standalone change-data-capture daemon for Flink-CDC-style YAML pipelines.

Usage:
  cdcd run PIPELINE.yaml [--state-dir DIR] [--secrets FILE] [--reset-state]
           [--admin-address HOST:PORT]
  cdcd validate PIPELINE.yaml [--secrets FILE]
  cdcd checkpoints list|show|export --state-dir DIR [--pipeline NAME]
           [--pipeline-file PIPELINE.yaml [--secrets FILE]] [--id N]
  cdcd describe [CONNECTOR|pipeline]
  cdcd version
  cdcd --help

Options (before or after the file):
  --state-dir DIR      checkpoint directory (overrides pipeline.state.dir, default ./cdcd-state)
  --secrets FILE       values for ${secret_values.NAME}: a YAML map or KEY=VALUE lines
                       (CDCD_SECRET_<NAME> environment variables are used too)
  --reset-state        discard this pipeline's checkpoints and start from the startup mode
  --log-format FORMAT  text (default) or json; logs go to stderr, stdout is for sink output
  --log-level LEVEL    trace, debug, info (default), warn, error
  --log-file FILE      write logs to FILE instead of stderr (reopened on SIGHUP)
  --admin-address A    serve /metrics, /healthz and /readyz on A (HOST:PORT, or PORT for
                       loopback); overrides pipeline.admin.address; off when neither is set

cdcd checkpoints (docs/operations.md):
  list                 every stored checkpoint: id, time, size, parts
  show                 one checkpoint as JSON (the latest, or --id N), each source state
                       decoded when --pipeline-file is given, else as size and hex
  export               every checkpoint of the pipeline as a JSON array, for bug reports
  --pipeline NAME      the pipeline (default: its name in --pipeline-file, else every one)

Signals: SIGTERM/SIGINT drain (final checkpoint, exit 0); a second one exits at once (130);
SIGHUP reopens --log-file.
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
                throw std::invalid_argument("--log-format must be text or json, not '" +
                                            o.log_format + "'");
        } else if (flag == "--log-level") {
            o.log_level = value_of(i, flag);
        } else if (flag == "--log-file") {
            o.log_file = value_of(i, flag);
        } else if (flag == "--admin-address") {
            o.admin_address = value_of(i, flag);
        } else if (flag == "--pipeline") {
            o.pipeline_name = value_of(i, flag);
        } else if (flag == "--pipeline-file") {
            o.pipeline_file = value_of(i, flag);
        } else if (flag == "--id") {
            std::string v = value_of(i, flag);
            std::uint64_t id = 0;
            auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), id);
            if (v.empty() || ec != std::errc() || ptr != v.data() + v.size())
                throw std::invalid_argument("--id must be a checkpoint id (a number), not '" + v +
                                            "'");
            o.checkpoint_id = id;
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
