#include "cmd/service.h"

#include <spdlog/spdlog.h>

#include <csignal>

#include "cmd/systemd_notify.h"

namespace cdcd::service {

Service::Service(PipelineRuntime& runtime, ServiceOptions options)
    : runtime_(runtime),
      options_(std::move(options)),
      hangup_(runtime.io(), SIGHUP),
      watchdog_(runtime.io()) {
    if (options_.admin) {
        admin::Routes routes;
        routes.metrics = [this] { return runtime_.metrics().expose(); };
        routes.ready = [this] { return runtime_.phase() == RuntimePhase::Running; };
        routes.state = [this] { return std::string(to_string(runtime_.phase())); };
        routes.tap = [this](std::string_view query) {
            TapHub& hub = runtime_.taps();
            TapHub::Opened opened = hub.open(query);
            admin::StreamAnswer answer{opened.status, std::move(opened.message), {}};
            if (!opened.tap) return answer;
            answer.lines.take = [&hub, tap = opened.tap](std::string& out) {
                // complete() before take(): lines queued after it are still taken this time.
                bool complete = tap->complete();
                hub.take(*tap, out);
                return !complete;
            };
            answer.lines.close = [&hub, tap = opened.tap] { hub.close(tap); };
            return answer;
        };
        admin_ =
            std::make_unique<admin::AdminServer>(runtime.io(), *options_.admin, std::move(routes));
        admin::Address bound = *options_.admin;
        bound.port = admin_->port();
        spdlog::info("admin endpoint listening on http://{} (/metrics, /healthz, /readyz, /tap)",
                     bound.to_string());
    }
    wait_for_sighup();
    auto timeout = watchdog_timeout();
    if (timeout.count() > 0) {
        watchdog_interval_ = timeout / 2;
        spdlog::info("systemd watchdog: pinging every {} ms", watchdog_interval_.count() / 1000);
        notify("WATCHDOG=1");
        schedule_watchdog();
    }
}

Service::~Service() = default;

void Service::wait_for_sighup() {
    hangup_.async_wait([this](boost::system::error_code ec, int) {
        if (ec || stopped_) return;
        if (options_.reopen_logs) {
            options_.reopen_logs();
            spdlog::info("SIGHUP: log file reopened");
        } else {
            spdlog::info("SIGHUP: logs go to stderr, nothing to reopen");
        }
        wait_for_sighup();
    });
}

void Service::schedule_watchdog() {
    watchdog_.expires_after(watchdog_interval_);
    watchdog_.async_wait([this](boost::system::error_code ec) {
        if (ec || stopped_) return;
        notify("WATCHDOG=1");
        schedule_watchdog();
    });
}

void Service::on_phase(RuntimePhase phase) {
    switch (phase) {
        case RuntimePhase::Starting:
            break;
        case RuntimePhase::Running:
            notify("READY=1\nSTATUS=pipeline '" + options_.pipeline_name + "' running");
            break;
        case RuntimePhase::Draining:
            notify("STOPPING=1\nSTATUS=draining: final checkpoint");
            break;
        case RuntimePhase::Stopped:
            stopped_ = true;
            if (admin_) admin_->stop();
            boost::system::error_code ignored;
            hangup_.cancel(ignored);
            watchdog_.cancel();
            break;
    }
}

}  // namespace cdcd::service
