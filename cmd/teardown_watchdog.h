#pragma once
// A bound on the teardown that follows a pipeline's run: closing its connectors can wait on a
// peer that no longer answers (librdkafka's consumer close waits for a paused broker for as long
// as it stays paused), which would keep a drained daemon from exiting until its supervisor kills
// it. Once armed, the watchdog ends the process with the run's exit code when the teardown has
// not finished within the bound. Nothing is lost by that: by then every checkpoint the run
// completed is durable (synced), as after kill -9.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

namespace cdcd::service {

/// What the teardown may take: what is left of the stop's deadline (pipeline.shutdown.timeout
/// after a drain began), so that a whole stop keeps to it, but at least kMinTeardown, for a drain
/// that used all of it; after a run that ended without a drain, `shutdown_timeout`.
std::chrono::milliseconds teardown_bound(
    std::chrono::milliseconds shutdown_timeout,
    std::optional<std::chrono::steady_clock::time_point> stop_deadline,
    std::chrono::steady_clock::time_point now);
inline constexpr std::chrono::milliseconds kMinTeardown{5'000};

class TeardownWatchdog {
  public:
    /// What happens when the bound passes: by default the reason is logged and the process
    /// exits at once (std::_Exit) with the run's exit code.
    using OnExpiry = std::function<void(int exit_code, std::chrono::milliseconds bound)>;

    TeardownWatchdog() = default;
    explicit TeardownWatchdog(OnExpiry on_expiry) : on_expiry_(std::move(on_expiry)) {}
    /// The teardown is over: disarms the watchdog and joins its thread.
    ~TeardownWatchdog();
    TeardownWatchdog(const TeardownWatchdog&) = delete;
    TeardownWatchdog& operator=(const TeardownWatchdog&) = delete;

    /// The run returned `exit_code`; the teardown starts now and may take `bound`. Once only.
    void arm(std::chrono::milliseconds bound, int exit_code);

  private:
    OnExpiry on_expiry_;
    std::mutex mutex_;
    std::condition_variable done_cv_;
    bool done_ = false;
    std::thread thread_;
};

}  // namespace cdcd::service
