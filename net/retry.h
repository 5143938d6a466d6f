#pragma once
// The retry policy shared by HTTP connectors: exponential backoff with full jitter, Retry-After
// honoured up to a cap, permanent errors never retried. The caller classifies each response.
//
//   auto result = co_await net::send_with_retry(client, make_request, classify, policy, limiter);
//   if (result.outcome != net::Outcome::Success) ... inspect result.response ...
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <functional>
#include <optional>
#include <string_view>

#include "net/http_client.h"
#include "net/rate_limiter.h"

namespace cdcd::net {

enum class Outcome { Success, Retryable, Permanent };

struct Classification {
    Outcome outcome = Outcome::Success;
    /// Least wait before the next attempt (e.g. 1 s after a QPS throttle), Retry-After aside.
    std::chrono::milliseconds min_delay{0};
};

using Classifier = std::function<Classification(const HttpResponse&)>;

struct RetryPolicy {
    int max_retries = 3;  // attempts = max_retries + 1
    std::chrono::milliseconds initial_backoff{200};
    std::chrono::milliseconds max_backoff{30'000};
    /// A Retry-After longer than this is not waited for: the response is returned as failed.
    std::chrono::milliseconds retry_after_cap{60'000};
    /// Polled while waiting; true stops retrying (the last failure is returned or rethrown).
    std::function<bool()> cancelled;

    /// Observers for metrics (pipeline/metrics/http_observer.h: observe_retries()), all optional
    /// and called on the event loop. on_retry: before each retry (after its backoff).
    /// on_failure: each attempt whose response was classified Retryable or Permanent (transport
    /// failures go to HttpClientOptions::observer instead). on_limiter_wait: after each token
    /// taken from the `limiter` argument, with the time waited for it (zero when none was).
    std::function<void()> on_retry;
    std::function<void(const HttpResponse&)> on_failure;
    std::function<void(std::chrono::nanoseconds)> on_limiter_wait;

    /// Backoff before retry number `retry` (0-based), jittered into [d/2, d].
    std::chrono::milliseconds backoff(int retry) const;
};

/// Retry-After as a delay: delta-seconds or an HTTP-date (IMF-fixdate); nullopt if unparsable.
std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value);

struct RetryResult {
    HttpResponse response;
    Outcome outcome = Outcome::Success;  // the last response's classification
    int attempts = 0;
    bool retry_after_too_long = false;  // gave up because Retry-After exceeded the cap
};

/// Sends make_request() until classify() says Success or Permanent, retries are exhausted, or
/// a Retry-After exceeds the cap. Each attempt first acquires a token from `limiter` (if any).
/// Transport errors (HttpError) are retried too and rethrown when retries run out.
boost::asio::awaitable<RetryResult> send_with_retry(
    HttpClient& client, const std::function<HttpRequest()>& make_request,
    const Classifier& classify, const RetryPolicy& policy, RateLimiter* limiter = nullptr);

/// Waits `delay` on the event loop in short slices, returning early when cancelled() is true.
boost::asio::awaitable<void> sleep_for(std::chrono::milliseconds delay,
                                       const std::function<bool()>& cancelled);
boost::asio::awaitable<void> sleep_for(std::chrono::milliseconds delay);

}  // namespace cdcd::net
