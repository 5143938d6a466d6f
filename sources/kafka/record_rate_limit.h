#pragma once
// scan.rate-limit.records-per-second: a batch's change records wait for their turn.
#include <boost/asio/awaitable.hpp>

#include "metrics/connector_metrics.h"
#include "net/rate_limiter.h"
#include "pipeline/connector/source.h"

namespace cdcd::kafka {

/// Waits until the change records of `events` may go under `limiter` (null: no limit); false
/// when the pipeline stops meanwhile. The wait is recorded in `metrics`.
boost::asio::awaitable<bool> wait_for_record_rate(net::RateLimiter* limiter,
                                                  const EventBatch& events, SourceOutput& output,
                                                  metrics::ConnectorMetrics& metrics);

}  // namespace cdcd::kafka
