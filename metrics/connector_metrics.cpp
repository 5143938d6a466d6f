#include "metrics/connector_metrics.h"

namespace cdcd::metrics {

const char* to_string(Role role) {
    return role == Role::Source ? "source" : "sink";
}

namespace {
Labels base_labels(Role role, std::string connector) {
    return {{"role", to_string(role)}, {"connector", std::move(connector)}};
}
Labels with(Labels labels, std::initializer_list<std::pair<std::string, std::string>> more) {
    labels.insert(labels.end(), more.begin(), more.end());
    return labels;
}
}  // namespace

ConnectorMetrics::ConnectorMetrics(Registry& registry, Role role, std::string connector)
    : records_in(registry.counter(
          "cdcd_records_in_total",
          "Records received: by a source from upstream, by a sink from the pipeline",
          base_labels(role, connector))),
      records_out(registry.counter(
          "cdcd_records_out_total",
          "Records passed on: by a source into the pipeline, by a sink to the target",
          base_labels(role, connector))),
      bytes_in(registry.counter("cdcd_bytes_in_total",
                                "Payload bytes read from the external system",
                                base_labels(role, connector))),
      bytes_out(registry.counter("cdcd_bytes_out_total",
                                 "Payload bytes written to the external system",
                                 base_labels(role, connector))),
      errors(registry.counter("cdcd_errors_total", "Failed operations against the external system",
                              base_labels(role, connector))),
      retries(registry.counter("cdcd_retries_total", "Operations retried after a retryable failure",
                               base_labels(role, connector))),
      registry_(registry),
      labels_(base_labels(role, std::move(connector))) {}

Counter& ConnectorMetrics::requests(std::string_view endpoint, std::string_view status) {
    return registry_.counter(
        "cdcd_http_requests_total", "HTTP requests by endpoint and response status",
        with(labels_, {{"endpoint", std::string(endpoint)}, {"status", std::string(status)}}));
}

Counter& ConnectorMetrics::requests(std::string_view endpoint, int status) {
    return requests(endpoint, std::to_string(status));
}

Histogram& ConnectorMetrics::request_duration(std::string_view endpoint) {
    return registry_.histogram("cdcd_http_request_duration_seconds",
                               "HTTP request latency by endpoint",
                               with(labels_, {{"endpoint", std::string(endpoint)}}));
}

Histogram& ConnectorMetrics::rate_limiter_wait(std::string_view limiter) {
    return registry_.histogram("cdcd_rate_limiter_wait_seconds",
                               "Time spent waiting for a rate-limiter token (count: waits)",
                               with(labels_, {{"limiter", std::string(limiter)}}));
}

void ConnectorMetrics::observe_rate_limiter_wait(std::string_view limiter,
                                                 std::chrono::nanoseconds waited) {
    rate_limiter_wait(limiter).observe(std::chrono::duration<double>(waited).count());
}

Counter& ConnectorMetrics::throttled(std::string_view limiter) {
    return registry_.counter("cdcd_throttled_requests_total",
                             "Answers asking to slow down (HTTP 429, throttling codes)",
                             with(labels_, {{"limiter", std::string(limiter)}}));
}

Gauge& ConnectorMetrics::request_rate_limit(std::string_view limiter) {
    return registry_.gauge("cdcd_request_rate_limit",
                           "Requests per second an adaptive limiter allows now (0: unlimited)",
                           with(labels_, {{"limiter", std::string(limiter)}}));
}

Gauge& ConnectorMetrics::consumer_lag(std::string_view topic, int partition) {
    return registry_.gauge(
        "cdcd_kafka_consumer_lag", "Messages between the consumed offset and the high watermark",
        with(labels_, {{"topic", std::string(topic)}, {"partition", std::to_string(partition)}}));
}

}  // namespace cdcd::metrics
