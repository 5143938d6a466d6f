#include "sinks/vikingdb/vikingdb_sink.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <functional>
#include <stdexcept>

#include "metrics/http_observer.h"
#include "net/adaptive_rate.h"
#include "sinks/vikingdb/throttle_log.h"
#include "sinks/vikingdb/writer.h"

namespace cdcd::vikingdb {

namespace {

net::HttpClientOptions client_options(const VikingdbSettings& s,
                                      metrics::ConnectorMetrics& metrics) {
    net::HttpClientOptions o;
    o.observer = metrics::http_observer(metrics);
    // Upsert, delete and collection answers are KiB; a fixed limit with room to spare.
    o.max_response_bytes = 4u << 20;
    o.response_limit_name = "the vikingdb sink's fixed limit on API answers";
    // The pool's settings mean what Apache HttpClient's do (the vendor connector's client).
    o.max_idle_per_origin =
        static_cast<std::size_t>(std::min(s.max_total_connections, s.max_per_route));
    o.max_connections = static_cast<std::size_t>(s.max_total_connections);
    o.max_connections_per_origin = static_cast<std::size_t>(s.max_per_route);
    o.pool_limit_name = "`connection.max-total` " + std::to_string(s.max_total_connections) +
                        ", `connection.max-per-route` " + std::to_string(s.max_per_route);
    o.connect_timeout = s.connect_timeout;
    o.max_connection_lifetime = s.connection_ttl;               // 0: no limit
    o.validate_after_inactivity = s.validate_after_inactivity;  // 0: never validated
    // A connection idle past idle-evict is not reused even between two evictor runs.
    if (s.idle_evict.count() > 0) o.idle_timeout = s.idle_evict;
    return o;
}

/// One plane's retry policy. Its throttled answers slow an AIMD rate shared by every request to
/// that plane (`limiter` names it in metrics and logs), are counted and logged at a bounded
/// rate, and are not failures. `expected`: answers the caller handles, not counted as errors.
net::RetryPolicy retry_policy(const VikingdbSettings& s, metrics::ConnectorMetrics& metrics,
                              const std::string& limiter, const std::function<bool()>& stopping,
                              std::function<bool(const net::HttpResponse&)> expected = nullptr) {
    net::RetryPolicy p;
    p.cancelled = stopping;
    p.max_retries = s.max_retries;
    p.initial_backoff = s.retry_initial_backoff;
    p.max_backoff = s.retry_max_backoff;
    p.retry_after_cap = s.retry_max_backoff;
    metrics::observe_retries(p, metrics, {}, std::move(expected));
    auto rate = std::make_shared<net::AdaptiveRate>();
    metrics::Gauge& gauge = metrics.request_rate_limit(limiter);
    rate->on_change([&gauge](double r) { gauge.set(r); });
    p.adaptive_rate = rate;
    auto log = std::make_shared<ThrottleLog>("VikingDB " + limiter);
    metrics::Counter& throttled = metrics.throttled(limiter);
    p.on_throttle = [rate, log, &throttled](const net::HttpResponse& r) {
        throttled.inc();
        std::string code = parse_error_body(r.body).first;
        std::string answer = "HTTP " + std::to_string(r.status);
        if (!code.empty()) answer += " " + code;
        if (auto line = log->note(answer, rate->rate())) spdlog::warn("{}", *line);
    };
    return p;
}

TimeZone zone_of(const std::string& id) {
    std::string error;
    auto z = TimeZone::of(id.empty() ? "UTC" : id, &error);
    if (!z) throw std::invalid_argument("VikingDB sink: pipeline.local-time-zone: " + error);
    return *z;
}

}  // namespace

VikingdbSink::VikingdbSink(VikingdbSettings settings, boost::asio::io_context& io,
                           const std::string& local_time_zone, metrics::Registry& registry,
                           BadRecordHandlers& bad_records, const std::function<bool()>& stopping)
    : settings_(std::move(settings)),
      io_(io),
      bad_records_(bad_records),
      metrics_(registry, metrics::Role::Sink, "vikingdb"),
      http_(io, client_options(settings_, metrics_)),
      auth_(settings_.credentials, settings_.region) {
    Endpoint control{settings_.control_scheme, settings_.control_host};
    Endpoint data{settings_.data_scheme, settings_.data_host};
    control_ = std::make_unique<ControlPlaneClient>(
        http_, auth_, control, settings_.read_timeout,
        // A 404 from the control plane is how the catalog learns that a collection does not
        // exist (yet): an answer, not an error.
        retry_policy(settings_, metrics_, "control-plane", stopping,
                     [](const net::HttpResponse& r) { return r.status == 404; }));
    WriteOptions wo;
    wo.ttl_seconds = settings_.ttl_seconds;
    wo.async_upsert = settings_.async_upsert;
    data_ = std::make_shared<DataPlaneClient>(
        http_, auth_, data, settings_.socket_timeout,
        retry_policy(settings_, metrics_, "data-plane", stopping), wo);
    data_->count_on(metrics_);
    catalog_ = std::make_shared<CollectionCatalog>(settings_, *control_, zone_of(local_time_zone));
    applier_ = std::make_unique<VikingdbMetadataApplier>(settings_, *catalog_, *control_, *data_);
}

std::unique_ptr<SinkWriter> VikingdbSink::create_writer(int index, int parallelism) {
    return std::make_unique<VikingdbWriter>(settings_, catalog_, data_, io_.get_executor(), index,
                                            parallelism, bad_records_.writer(index));
}

}  // namespace cdcd::vikingdb
