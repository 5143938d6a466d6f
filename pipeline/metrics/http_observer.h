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
// Header-only so that cdcd_pipeline does not depend on cdcd_net; include it from connectors that
// link both. Failed requests are counted with the transport error as status ("timeout", ...).
#include <chrono>
#include <functional>
#include <string>

#include "net/http_client.h"
#include "pipeline/metrics/connector_metrics.h"

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

}  // namespace cdcd::metrics
