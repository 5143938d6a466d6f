#pragma once
// systemd service notifications (sd_notify(3)): READY=1, STOPPING=1, WATCHDOG=1, STATUS=...
// Without NOTIFY_SOCKET in the environment (not started by systemd) they do nothing.
#include <chrono>
#include <string>

namespace cdcd::service {

/// Sends `state` (newline-separated KEY=VALUE assignments) to the service manager; returns
/// whether it was sent.
bool notify(const std::string& state);
/// The watchdog timeout systemd set for this process (WatchdogSec=), or 0 when it is off.
std::chrono::microseconds watchdog_timeout();

}  // namespace cdcd::service
