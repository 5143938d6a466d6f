#pragma once
// The runtime's own series: records through the source and sinks (per batch), checkpoints,
// restores, readiness and channel occupancy. Connector-reported series share the same
// {role, connector} families (metrics/connector_metrics.h).
#include <chrono>
#include <cstdint>

#include "metrics/connector_metrics.h"
#include "metrics/registry.h"

namespace cdcd {

struct RuntimeMetrics {
    RuntimeMetrics(metrics::Registry& registry, const std::string& source_type,
                   const std::string& sink_type);

    metrics::ConnectorMetrics source;  // runtime fills records_out
    metrics::ConnectorMetrics sink;    // runtime fills records_in
    metrics::Counter& source_batches;
    metrics::Counter& sink_batches;
    metrics::Counter& checkpoints;
    metrics::Counter& checkpoints_failed;
    metrics::Counter& restores;
    metrics::Counter& failures;
    metrics::Histogram& checkpoint_duration;
    metrics::Gauge& last_id;
    metrics::Gauge& last_duration;
    metrics::Gauge& last_size;
    metrics::Gauge& last_timestamp;
    metrics::Gauge& ready;

    /// Records a completed (or restored: duration < 0) checkpoint.
    void checkpoint_completed(std::uint64_t id, std::chrono::steady_clock::duration took,
                              std::size_t bytes, std::int64_t created_ms);
};

}  // namespace cdcd
