#pragma once
// What `cdcd run` adds around the pipeline to run as a service, all on the pipeline's event
// loop: the admin endpoint, systemd notifications (READY=1 once restored and running,
// STOPPING=1 on drain, WATCHDOG=1 pings when WatchdogSec= is set), and SIGHUP reopening the log
// file. Everything stops when the pipeline stops, so that the event loop can end.
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <functional>
#include <memory>
#include <optional>

#include "admin/address.h"
#include "admin/admin_server.h"
#include "pipeline/runtime/pipeline_runtime.h"

namespace cdcd::service {

struct ServiceOptions {
    std::optional<admin::Address> admin;
    std::string pipeline_name;
    /// Reopens the log file (SIGHUP); empty when logs go to stderr.
    std::function<void()> reopen_logs;
};

class Service {
  public:
    Service(PipelineRuntime& runtime, ServiceOptions options);
    ~Service();
    /// Wire to RunOptions::on_phase.
    void on_phase(RuntimePhase phase);

  private:
    void wait_for_sighup();
    void schedule_watchdog();

    PipelineRuntime& runtime_;
    ServiceOptions options_;
    std::unique_ptr<admin::AdminServer> admin_;
    boost::asio::signal_set hangup_;
    boost::asio::steady_timer watchdog_;
    std::chrono::microseconds watchdog_interval_{0};
    bool stopped_ = false;
};

}  // namespace cdcd::service
