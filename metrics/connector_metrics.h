#pragma once
// The standard metrics of one connector, labelled {pipeline, role, connector}. A connector builds
// one from ConnectorContext::metrics when it is created and counts on it:
//
//   metrics::ConnectorMetrics m(*ctx.metrics, metrics::Role::Source, "kafka");
//   m.records_in.inc(batch.size());  m.bytes_in.inc(bytes);        // per batch, not per record
//   m.requests("GetMessages", 200).inc();                          // HTTP connectors
//   m.consumer_lag("orders", 3).set(lag);                          // Kafka
//
// Which counters the runtime fills and which the connector fills: docs/operations.md.
#include <chrono>
#include <string>
#include <string_view>

#include "metrics/registry.h"

namespace cdcd::metrics {

enum class Role { Source, Sink };
const char* to_string(Role role);

class ConnectorMetrics {
  public:
    ConnectorMetrics(Registry& registry, Role role, std::string connector);

    /// Records received: a source's from the upstream system, a sink's from the pipeline.
    Counter& records_in;
    /// Records passed on: a source's into the pipeline, a sink's acknowledged by the target.
    Counter& records_out;
    /// Payload bytes read from (source) / written to (sink) the external system.
    Counter& bytes_in;
    Counter& bytes_out;
    /// Failed operations against the external system (each failed attempt), and retries.
    Counter& errors;
    Counter& retries;

    /// Requests to `endpoint` (a stable operation name or path template, never a URL with ids or
    /// a query) answered with `status` (an HTTP status, or a transport error such as "timeout").
    Counter& requests(std::string_view endpoint, std::string_view status);
    Counter& requests(std::string_view endpoint, int status);
    Histogram& request_duration(std::string_view endpoint);
    /// Time spent waiting for the rate limiter `limiter` (count = number of waits).
    Histogram& rate_limiter_wait(std::string_view limiter);
    void observe_rate_limiter_wait(std::string_view limiter, std::chrono::nanoseconds waited);
    /// Answers asking to slow down (HTTP 429, throttling codes) to requests paced by the
    /// adaptive limiter `limiter`; they are neither errors nor retries.
    Counter& throttled(std::string_view limiter);
    /// The request rate that adaptive limiter allows now (requests/s; 0 while unlimited).
    Gauge& request_rate_limit(std::string_view limiter);
    /// Messages between a partition's committed position and its high watermark.
    Gauge& consumer_lag(std::string_view topic, int partition);

    Registry& registry() { return registry_; }
    const Labels& labels() const { return labels_; }

  private:
    Registry& registry_;
    Labels labels_;
};

}  // namespace cdcd::metrics
