#pragma once
// What a call to OSS and a call to MNS have in common: the error it fails with, the retry policy
// it is sent with and the clock its signature reads.
#include <functional>
#include <stdexcept>
#include <string>

#include "net/retry.h"

namespace cdcd::oss {

/// An error response of the service, or a transport failure after the retries.
class ServiceError : public std::runtime_error {
  public:
    ServiceError(int status, std::string code, const std::string& what, bool transient)
        : std::runtime_error(what),
          status_(status),
          code_(std::move(code)),
          transient_(transient) {}
    int status() const { return status_; }
    const std::string& code() const { return code_; }
    /// Throttling, 5xx or transport: worth trying again later.
    bool transient() const { return transient_; }

  private:
    int status_;
    std::string code_;
    bool transient_;
};

/// 8 retries, backing off from 200 ms up to 10 s; stops when `cancelled` says so.
net::RetryPolicy service_retry_policy(std::function<bool()> cancelled);

/// Seconds since the epoch, the time a request is signed with.
long long now_seconds();

/// What to add to a refusal for the request's time (OSS's RequestTimeTooSkewed, MNS's
/// TimeExpired), whose own words do not say whose clock is wrong: `service` is "OSS" or "MNS".
std::string skewed_clock_note(const std::string& service);

}  // namespace cdcd::oss
