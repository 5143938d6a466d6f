// cdcd: parse the command line, set up logging, and hand over to the libraries.
#include <spdlog/spdlog.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <optional>

#include "admin/address.h"
#include "cmd/checkpoints_command.h"
#include "cmd/cli_options.h"
#include "cmd/json_log_formatter.h"
#include "cmd/log_file_sink.h"
#include "cmd/service.h"
#include "cmd/standard_streams.h"
#include "cmd/stderr_log_sink.h"
#include "cmd/tap/tap_command.h"
#include "cmd/teardown_watchdog.h"
#include "cmd/test/test_command.h"
#include "cmd/top/top_command.h"
#include "config/diagnostics.h"
#include "config/option_docs.h"
#include "config/option_spec.h"
#include "config/pipeline_def.h"
#include "config/pipeline_options.h"
#include "config/secrets.h"
#include "metrics/process_metrics.h"
#include "pipeline/connector/registry.h"
#include "pipeline/runtime/held_signals.h"
#include "pipeline/runtime/pipeline_runtime.h"

#ifndef CDCD_VERSION
#define CDCD_VERSION "0.1.0"
#endif

namespace {

using namespace cdcd;

// The log file's sink, reopened on SIGHUP; null when logs go to stderr.
std::shared_ptr<cli::ReopenableFileSink> log_file_sink;

// Stderr, as the logger writes it (cmd/stderr_log_sink.h).
std::shared_ptr<cli::StderrLogSink> stderr_sink;

// The error that ends the process: on stderr as log lines go there, so that a reader that stopped
// does not keep the process from exiting.
void say_on_stderr(const std::string& text) {
    if (!stderr_sink) stderr_sink = std::make_shared<cli::StderrLogSink>();
    stderr_sink->write_text(text);
}

void setup_logging(const cli::CliOptions& o) {
    std::shared_ptr<spdlog::sinks::sink> base;
    if (o.log_file.empty()) {
        stderr_sink = std::make_shared<cli::StderrLogSink>();
        base = stderr_sink;
    } else {
        log_file_sink = std::make_shared<cli::ReopenableFileSink>(o.log_file);
        base = log_file_sink;
    }
    auto logger = std::make_shared<spdlog::logger>("cdcd", config::make_redacting_sink(base));
    if (o.log_format == "json") {
        logger->set_formatter(std::make_unique<cli::JsonLogFormatter>());
    } else {
        logger->set_pattern("%Y-%m-%d %H:%M:%S.%e %^%l%$ %v");
    }
    logger->set_level(spdlog::level::from_str(o.log_level));
    logger->flush_on(spdlog::level::info);
    spdlog::set_default_logger(logger);
}

config::Secrets load_secrets(const cli::CliOptions& o) {
    return o.secrets_file.empty() ? config::Secrets() : config::Secrets::from_file(o.secrets_file);
}

int describe(const cli::CliOptions& o) {
    auto& registry = ConnectorRegistry::builtin();
    if (!o.argument) {
        std::printf("Sources:\n");
        for (const auto& n : registry.source_names())
            std::printf("  %-14s %s\n", n.c_str(), registry.source(n)->description.c_str());
        std::printf("Sinks:\n");
        for (const auto& n : registry.sink_names())
            std::printf("  %-14s %s\n", n.c_str(), registry.sink(n)->description.c_str());
        std::printf(
            "\ncdcd describe CONNECTOR prints a connector's options; cdcd describe pipeline, the "
            "`pipeline` block's (checkpoints, bad-record policy, ...).\n");
        return 0;
    }
    // Text for a terminal; Markdown as in docs/*.md (cmd/option_tables.h).
    auto print = [&o](const config::ConnectorOptionsSpec& spec, const std::string& what) {
        if (o.describe_format == "markdown")
            std::printf("Options of %s:\n\n%s\n", what.c_str(),
                        config::markdown_table(spec).c_str());
        else
            std::printf("%s\n", config::describe(spec, what).c_str());
    };
    if (*o.argument == "pipeline") {
        print(config::pipeline_options_spec(), "pipeline");
        return 0;
    }
    const auto* source = registry.source(*o.argument);
    const auto* sink = registry.sink(*o.argument);
    if (!source && !sink) {
        std::fprintf(stderr, "unknown connector '%s' (cdcd describe lists them)\n",
                     o.argument->c_str());
        return 1;
    }
    if (source) print(source->options, "source " + *o.argument);
    if (sink) print(sink->options, "sink " + *o.argument);
    return 0;
}

PipelinePlan load_plan(const cli::CliOptions& o) {
    if (!o.argument)
        throw std::invalid_argument("cdcd " + o.command +
                                    " needs a pipeline file (see cdcd --help)");
    auto& registry = ConnectorRegistry::builtin();
    auto templates = [&registry](const std::string& block, const std::string& type,
                                 const std::string& key) {
        return registry.is_template_option(block, type, key);
    };
    auto def = config::load_pipeline(*o.argument, load_secrets(o), config::process_env, templates);
    return plan_pipeline(std::move(def), ConnectorRegistry::builtin());
}

/// The admin endpoint's address: --admin-address, else pipeline.admin.address, else none.
std::optional<admin::Address> admin_address(const cli::CliOptions& o, const PipelinePlan& plan) {
    std::string text = o.admin_address;
    if (text.empty())
        text = config::pipeline_option_bindings()
                   .read(plan.pipeline_options)
                   ->admin_address.value_or("");
    if (text.empty()) return std::nullopt;
    return admin::parse_address(text);
}

int run_command(const cli::CliOptions& o) {
    if (o.command == "help") {
        std::fputs(cli::usage(), stdout);
        return 0;
    }
    if (o.command == "version") {
        std::printf("cdcd %s\n", CDCD_VERSION);
        return 0;
    }
    if (o.command == "describe") return describe(o);
    if (o.command == "validate") {
        auto plan = load_plan(o);
        admin_address(o, plan);  // throws for a malformed address
        std::printf("%s: ok (%s → %s)\n", o.argument->c_str(), plan.definition.source.type.c_str(),
                    plan.definition.sink.type.c_str());
        return 0;
    }
    if (o.command == "checkpoints") return cli::checkpoints_command(o);
    if (o.command == "test") {
        auto plan = load_plan(o);
        return cmd_test::test_command(plan, cmd_test::find_tests_file(*o.argument, o.tests_file),
                                      stdout);
    }
    if (o.command == "top") return top::top_command({o.addresses, o.interval, o.once});
    if (o.command == "tap")
        return tap::tap_command(
            {o.argument.value_or(""), o.tap_point, o.tap_table, o.tap_rate, o.tap_limit});
    if (o.command == "run") {
        auto plan = load_plan(o);
        service::ServiceOptions service_options;
        service_options.pipeline_name = plan.settings.name;
        service_options.admin = admin_address(o, plan);
        if (log_file_sink) service_options.reopen_logs = [] { log_file_sink->reopen(); };

        service::Service* active = nullptr;
        RunOptions run_options;
        run_options.state_dir = o.state_dir;
        run_options.reset_state = o.reset_state;
        run_options.from_checkpoint = o.from_checkpoint;
        run_options.on_phase = [&active](RuntimePhase phase) {
            if (active) active->on_phase(phase);
        };
        const std::chrono::milliseconds shutdown_timeout(plan.shutdown_timeout_ms);
        // Declared before the runtime, so that it watches the runtime's teardown.
        service::TeardownWatchdog teardown;
        PipelineRuntime runtime(std::move(plan), std::move(run_options));
        metrics::register_process_metrics(runtime.metrics(), CDCD_VERSION);
        // Declared after the runtime, so destroyed before the event loop it uses.
        service::Service service(runtime, std::move(service_options));
        active = &service;
        const int exit_code = runtime.run();
        teardown.arm(service::teardown_bound(shutdown_timeout, runtime.stop_deadline(),
                                             std::chrono::steady_clock::now()),
                     exit_code);
        return exit_code;
    }
    throw std::invalid_argument("unknown command '" + o.command + "' (see cdcd --help)");
}

}  // namespace

int main(int argc, char** argv) {
    cli::open_closed_standard_streams();
    cli::CliOptions options;
    try {
        options = cli::parse_cli(std::vector<std::string>(argv + 1, argv + argc));
        if (options.command == "run") {
            // Before the logger or anything else starts a thread; the runtime takes them from here.
            hold_signals();
            // A closed pipe is a write's error (EPIPE), which the writer reports and the pipeline
            // fails on, not a kill without a word (stdout read by a process that went away).
            std::signal(SIGPIPE, SIG_IGN);
        }
        setup_logging(options);
        return run_command(options);
    } catch (const config::ConfigError& e) {
        std::string text = config::SecretRegistry::instance().redact(e.what());
        if (text.empty() || text.back() != '\n') text += '\n';
        say_on_stderr(text);
        return 1;
    } catch (const std::exception& e) {
        say_on_stderr("cdcd: " + config::SecretRegistry::instance().redact(e.what()) + "\n");
        return options.command == "help" ? 0 : 1;
    }
}
