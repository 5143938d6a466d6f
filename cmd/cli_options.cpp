#include "cmd/cli_options.h"

#include <array>
#include <charconv>
#include <stdexcept>
#include <string_view>

#include "config/units.h"
#include "text/ascii.h"

namespace cdcd::cli {

const char* usage() {
    return R"(cdcd — a standalone change-data-capture daemon for Flink-CDC-style YAML pipelines.

Usage:
  cdcd run PIPELINE.yaml [--state-dir DIR] [--secrets FILE]
           [--reset-state | --from-checkpoint ID] [--admin-address HOST:PORT]
  cdcd validate PIPELINE.yaml [--secrets FILE]
  cdcd test PIPELINE.yaml [--tests FILE] [--secrets FILE]
  cdcd checkpoints list|show|export --state-dir DIR [--pipeline NAME]
           [--pipeline-file PIPELINE.yaml [--secrets FILE]] [--id N]
  cdcd describe [CONNECTOR|pipeline] [--format text|markdown]
  cdcd top [ADDRESS ...] [--interval DURATION] [--once]
  cdcd tap [ADDRESS] [--point source|transform|sink] [--table SELECTOR] [--rate N] [--limit N]
  cdcd version
  cdcd --help

Options (before or after the file):
  --state-dir DIR      checkpoint directory (overrides pipeline.state.dir, default ./cdcd-state)
  --secrets FILE       values for ${secret_values.NAME}: a YAML map or KEY=VALUE lines
                       (CDCD_SECRET_<NAME> environment variables are used too)
  --reset-state        discard this pipeline's checkpoints and start from the startup mode;
                       a state directory too damaged to open is moved aside to
                       DIR.corrupt-<time> (nothing is deleted) and a fresh one started
  --from-checkpoint ID restore exactly stored checkpoint ID (see cdcd checkpoints list) instead
                       of the latest; the newer ones are discarded once it is restored
  --log-format FORMAT  text (default) or json; logs go to stderr, stdout is for sink output
  --log-level LEVEL    trace, debug, info (default), warn, error, critical or off (any case;
                       warning for warn)
  --log-file FILE      write logs to FILE instead of stderr (reopened on SIGHUP)
  --admin-address A    serve /metrics, /healthz and /readyz on A (HOST:PORT, or PORT for
                       loopback); overrides pipeline.admin.address; off when neither is set

cdcd checkpoints (docs/operations.md):
  list                 every stored checkpoint: id, time, size, parts
  show                 one checkpoint as JSON (the latest, or --id N), each source state
                       decoded when --pipeline-file is given, else as size and hex
  export               every checkpoint of the pipeline as a JSON array, for bug reports
  --pipeline NAME      the pipeline (default: its name in --pipeline-file, else every one)

cdcd test (docs/operations.md): runs test cases (input events and the events expected out)
  through the pipeline's transform, route and schema evolution, in process; exit status 1
  when one fails
  --tests FILE         the cases (default: the pipeline file's `tests:` list, else
                       PIPELINE.tests.yaml beside it)

cdcd top (docs/operations.md): a live view of running daemons, from their admin endpoints
  ADDRESS              an --admin-address (PORT, HOST:PORT) or http:// URL; default
                       127.0.0.1:8081; several for several daemons
  --interval D         refresh every D (default 1s); q quits
  --once               print one frame (rates over one interval) and exit, as without a
                       terminal; exit status 1 when no daemon could be read

cdcd tap (docs/operations.md): a running daemon's events at one point, as JSON lines
  ADDRESS              as for cdcd top; default 127.0.0.1:8081
  --point P            source (as emitted), transform (after transform and route, the
                       default) or sink (as handed to each sink writer)
  --table SELECTOR     only these tables (a selector as in transform source-table)
  --rate N             at most N events a second (default 100, at most 1000)
  --limit N            exit after N lines (default: until interrupted or the daemon stops)

Signals: SIGTERM/SIGINT drain (final checkpoint, exit 0); a second one exits at once (130);
SIGHUP reopens --log-file.
)";
}

namespace {

std::uint64_t checkpoint_id_of(const std::string& flag, const std::string& v) {
    std::uint64_t id = 0;
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), id);
    if (v.empty() || ec != std::errc() || ptr != v.data() + v.size())
        throw std::invalid_argument(flag + " must be a checkpoint id (a number), not '" + v + "'");
    return id;
}

std::uint64_t count_of(const std::string& flag, const std::string& v, std::uint64_t min,
                       std::uint64_t max, const char* what) {
    std::uint64_t n = 0;
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (v.empty() || ec != std::errc() || ptr != v.data() + v.size() || n < min || n > max)
        throw std::invalid_argument(flag + " must be a number of " + what + " from " +
                                    std::to_string(min) + " to " + std::to_string(max) + ", not '" +
                                    v + "'");
    return n;
}

}  // namespace

std::string log_level_of(std::string_view text) {
    // spdlog::level::from_str answers "off" for any word it does not know: check first.
    static constexpr std::array<std::string_view, 7> kLevels = {"trace", "debug",    "info", "warn",
                                                                "error", "critical", "off"};
    std::string level = ascii::to_lower(text);
    if (level == "warning") level = "warn";
    for (auto known : kLevels)
        if (level == known) return level;
    throw std::invalid_argument(
        "--log-level must be one of trace, debug, info, warn (or warning), error, critical, off "
        "(in any case), not '" +
        std::string(text) + "'");
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
        } else if (flag == "--format") {
            o.describe_format = value_of(i, flag);
            if (o.describe_format != "text" && o.describe_format != "markdown")
                throw std::invalid_argument("--format must be text or markdown, not '" +
                                            o.describe_format + "'");
        } else if (flag == "--log-level") {
            o.log_level = log_level_of(value_of(i, flag));
        } else if (flag == "--log-file") {
            o.log_file = value_of(i, flag);
        } else if (flag == "--admin-address") {
            o.admin_address = value_of(i, flag);
        } else if (flag == "--pipeline") {
            o.pipeline_name = value_of(i, flag);
        } else if (flag == "--pipeline-file") {
            o.pipeline_file = value_of(i, flag);
        } else if (flag == "--id") {
            o.checkpoint_id = checkpoint_id_of(flag, value_of(i, flag));
        } else if (flag == "--from-checkpoint") {
            o.from_checkpoint = checkpoint_id_of(flag, value_of(i, flag));
        } else if (flag == "--interval") {
            std::string v = value_of(i, flag);
            auto d = config::parse_duration(v);
            if (!d || d->count() < 100 || d->count() > 3'600'000)
                throw std::invalid_argument(
                    "--interval must be a duration from 100ms to 1h (500ms, 2s), not '" + v + "'");
            o.interval = *d;
        } else if (flag == "--tests") {
            o.tests_file = value_of(i, flag);
        } else if (a == "--once") {
            o.once = true;
        } else if (flag == "--point") {
            o.tap_point = value_of(i, flag);
            if (o.tap_point != "source" && o.tap_point != "transform" && o.tap_point != "sink")
                throw std::invalid_argument("--point must be source, transform or sink, not '" +
                                            o.tap_point + "'");
        } else if (flag == "--table") {
            o.tap_table = value_of(i, flag);
            if (o.tap_table.empty()) throw std::invalid_argument("--table needs a table selector");
        } else if (flag == "--rate") {
            o.tap_rate = static_cast<std::uint32_t>(
                count_of(flag, value_of(i, flag), 1, 1000, "events a second"));
        } else if (flag == "--limit") {
            o.tap_limit = count_of(flag, value_of(i, flag), 1, 1'000'000'000, "lines");
        } else if (a.starts_with("-")) {
            throw std::invalid_argument("unknown option " + a + " (see cdcd --help)");
        } else if (o.command.empty()) {
            o.command = a;
        } else if (o.command == "top") {
            o.addresses.push_back(a);
        } else if (!o.argument) {
            o.argument = a;
        } else {
            throw std::invalid_argument("unexpected argument '" + a + "' (see cdcd --help)");
        }
    }
    if (o.reset_state && o.from_checkpoint)
        throw std::invalid_argument(
            "--reset-state and --from-checkpoint exclude each other: one discards every "
            "checkpoint, the other restores one");
    if (o.command.empty()) o.command = "help";
    if (o.command == "--version") o.command = "version";
    return o;
}

}  // namespace cdcd::cli
