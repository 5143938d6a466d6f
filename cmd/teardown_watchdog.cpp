#include "cmd/teardown_watchdog.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>

#include "config/units.h"

namespace cdcd::service {

namespace {

void exit_now(int exit_code, std::chrono::milliseconds bound) {
    spdlog::error(
        "the teardown did not finish within pipeline.shutdown.timeout (what was left of it: {}): "
        "a connector waits on a peer that does not answer; exiting now (exit code {}). Nothing "
        "is lost: the checkpoints written are durable, and a restart resumes from the last one",
        config::format_duration(bound), exit_code);
    spdlog::shutdown();  // flushes every logger
    std::_Exit(exit_code);
}

}  // namespace

std::chrono::milliseconds teardown_bound(
    std::chrono::milliseconds shutdown_timeout,
    std::optional<std::chrono::steady_clock::time_point> stop_deadline,
    std::chrono::steady_clock::time_point now) {
    if (!stop_deadline) return shutdown_timeout;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*stop_deadline - now);
    return std::max(left, std::min(kMinTeardown, shutdown_timeout));
}

TeardownWatchdog::~TeardownWatchdog() {
    {
        std::lock_guard lock(mutex_);
        done_ = true;
    }
    done_cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void TeardownWatchdog::arm(std::chrono::milliseconds bound, int exit_code) {
    if (thread_.joinable()) return;
    OnExpiry on_expiry = on_expiry_ ? on_expiry_ : OnExpiry(exit_now);
    thread_ = std::thread([this, bound, exit_code, on_expiry = std::move(on_expiry)] {
        std::unique_lock lock(mutex_);
        if (done_cv_.wait_for(lock, bound, [this] { return done_; })) return;
        lock.unlock();
        on_expiry(exit_code, bound);
    });
}

}  // namespace cdcd::service
