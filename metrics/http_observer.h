#pragma once
// Counts a connector's HTTP requests by endpoint and status (cdcd_http_requests_total) and their
// latency (cdcd_http_request_duration_seconds), through the shared client's observer hook:
//
//   metrics::ConnectorMetrics m(*ctx.metrics, metrics::Role::Source, "dingtalk");
//   net::HttpClientOptions options;
//   options.observer = metrics::http_observer(m);   // m must outlive the client
//   net::HttpClient client(ctx.io, options);
//   HttpRequest req{.url = ..., .endpoint = "ListNodes"};   // a stable label, not the URL
//
// Header-only so that cdcd_metrics does not depend on cdcd_net; include it from connectors that
// link both. Failed requests are counted with the transport error as status ("timeout", ...).
#include <chrono>
#include <functional>
#include <string>
#include <utility>

#include "metrics/connector_metrics.h"
#include "net/http_client.h"
#include "net/retry.h"

namespace cdcd::metrics {

inline const char* http_error_label(net::HttpError::Kind kind) {
    switch (kind) {
        case net::HttpError::Kind::InvalidUrl:
            return "invalid_url";
        case net::HttpError::Kind::Resolve:
            return "resolve";
        case net::HttpError::Kind::Connect:
            return "connect";
        case net::HttpError::Kind::Tls:
            return "tls";
        case net::HttpError::Kind::Timeout:
            return "timeout";
        case net::HttpError::Kind::Reset:
            return "reset";
        case net::HttpError::Kind::Protocol:
            return "protocol";
        case net::HttpError::Kind::TooLarge:
            return "too_large";
    }
    return "error";
}

inline std::function<void(const net::HttpObservation&)> http_observer(ConnectorMetrics& metrics) {
    return [&metrics](const net::HttpObservation& o) {
        if (o.error) {
            metrics.requests(o.endpoint, http_error_label(*o.error)).inc();
            metrics.errors.inc();
        } else {
            metrics.requests(o.endpoint, o.status).inc();
        }
        metrics.request_duration(o.endpoint)
            .observe(std::chrono::duration<double>(o.elapsed).count());
    };
}

/// Counts what net::send_with_retry does with `policy` on `metrics`: each retry
/// (cdcd_retries_total), each response classified as a failure (cdcd_errors_total; transport
/// failures are counted by http_observer) unless `expected` says the connector handles it as a
/// normal answer (e.g. a 404 telling that a collection does not exist yet), and, when `limiter`
/// is not empty, each wait for the rate limiter passed to send_with_retry
/// (cdcd_rate_limiter_wait_seconds{limiter}; waits of zero are not observed).
inline void observe_retries(net::RetryPolicy& policy, ConnectorMetrics& metrics,
                            std::string limiter = {},
                            std::function<bool(const net::HttpResponse&)> expected = nullptr) {
    policy.on_retry = [&metrics] { metrics.retries.inc(); };
    policy.on_failure = [&metrics, expected = std::move(expected)](const net::HttpResponse& r) {
        if (!expected || !expected(r)) metrics.errors.inc();
    };
    if (limiter.empty()) {
        policy.on_limiter_wait = nullptr;
    } else {
        policy.on_limiter_wait = [&metrics,
                                  limiter = std::move(limiter)](std::chrono::nanoseconds waited) {
            if (waited.count() > 0) metrics.observe_rate_limiter_wait(limiter, waited);
        };
    }
}

}  // namespace cdcd::metrics
