#pragma once
// The retry policy shared by HTTP connectors: exponential backoff with jitter, Retry-After
// honoured up to a cap, permanent errors never retried. The caller classifies each response.
// With an adaptive rate (RetryPolicy::adaptive_rate), answers classified Throttled are no
// failures: the rate is halved and the request resent, without counting against max_retries.
//
//   auto result = co_await net::send_with_retry(client, make_request, classify, policy, limiter);
//   if (result.outcome != net::Outcome::Success) ... inspect result.response ...
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include "net/adaptive_rate.h"
#include "net/http_client.h"
#include "net/rate_limiter.h"

namespace cdcd::net {

/// Throttled: the server asks the client to slow down (HTTP 429, a throttling code). It is an
/// answer, not a failure, when the policy has an adaptive_rate; without one it is Retryable.
enum class Outcome { Success, Retryable, Permanent, Throttled };

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

    /// Observers for metrics (metrics/http_observer.h: observe_retries()), all optional
    /// and called on the event loop. on_retry: before each retry (after its backoff).
    /// on_failure: each attempt whose response was classified Retryable or Permanent (transport
    /// failures go to HttpClientOptions::observer instead). on_limiter_wait: after each token
    /// taken from the `limiter` argument, with the time waited for it (zero when none was).
    std::function<void()> on_retry;
    std::function<void(const HttpResponse&)> on_failure;
    std::function<void(std::chrono::nanoseconds)> on_limiter_wait;

    /// Paces every attempt and learns from Throttled answers (see adaptive_rate.h); shared by
    /// all the policies that hit one quota. Empty: Throttled counts as Retryable.
    std::shared_ptr<AdaptiveRate> adaptive_rate;
    /// Each Throttled answer, after adaptive_rate has taken it into account.
    std::function<void(const HttpResponse&)> on_throttle;
    /// Uniform in [0, 1), for the jitter; empty: a per-thread generator (tests inject one).
    std::function<double()> random;

    /// Backoff before retry number `retry` (0-based): d = min(max_backoff, initial_backoff *
    /// 2^retry), jittered uniformly into [d/2, d]. Half of d is fixed so that the time retries
    /// span has a floor (the longest outage always ridden out is the sum of the d/2).
    std::chrono::milliseconds backoff(int retry) const;
};

/// The wait before retry number `retry` after a Retryable answer: the backoff, at least
/// `min_delay`, at least the answer's Retry-After; nullopt when Retry-After exceeds the cap (the
/// caller gives up rather than wait that long).
std::optional<std::chrono::milliseconds> retry_delay(const RetryPolicy& policy, int retry,
                                                     std::chrono::milliseconds min_delay,
                                                     const HttpResponse& response);

/// The wait after a Throttled answer besides the adaptive rate's pacing: its Retry-After,
/// capped at retry_after_cap (a throttle is waited out, never given up on); zero without one.
std::chrono::milliseconds throttle_delay(const RetryPolicy& policy, const HttpResponse& response);

/// Retry-After as a delay: delta-seconds or an HTTP-date (IMF-fixdate); nullopt if unparsable.
std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value);

struct RetryResult {
    HttpResponse response;
    Outcome outcome = Outcome::Success;    // the last response's classification
    int attempts = 0;                      // requests sent, throttled ones included
    int throttled = 0;                     // of which answered Throttled (not counted as retries)
    bool retry_after_too_long = false;     // gave up because Retry-After exceeded the cap
    std::chrono::milliseconds elapsed{0};  // from the first attempt to the last answer
};

/// Sends make_request() until classify() says Success or Permanent, retries are exhausted, or
/// a Retry-After exceeds the cap. Each attempt first acquires a token from `limiter` (if any)
/// and its slot from policy.adaptive_rate (if any). Transport errors (HttpError) are retried
/// too and rethrown when retries run out; InvalidUrl and TooLarge are rethrown at once. With an
/// adaptive_rate, Throttled answers are resent for as long as they come (until policy.cancelled),
/// not counted against max_retries.
boost::asio::awaitable<RetryResult> send_with_retry(
    HttpClient& client, const std::function<HttpRequest()>& make_request,
    const Classifier& classify, const RetryPolicy& policy, RateLimiter* limiter = nullptr);

/// Waits `delay` on the event loop in short slices, returning early when cancelled() is true.
boost::asio::awaitable<void> sleep_for(std::chrono::milliseconds delay,
                                       const std::function<bool()>& cancelled);
boost::asio::awaitable<void> sleep_for(std::chrono::milliseconds delay);

}  // namespace cdcd::net
