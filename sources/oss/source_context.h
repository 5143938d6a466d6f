#pragma once
// What the snapshot, POLLING and MNS readers share: settings, clients, the record builder, the
// rate limiter, and the output they emit to.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <memory>

#include "metrics/connector_metrics.h"
#include "net/http_client.h"
#include "net/rate_limiter.h"
#include "pipeline/connector/source.h"
#include "sources/oss/bad_event.h"
#include "sources/oss/mns_client.h"
#include "sources/oss/options.h"
#include "sources/oss/oss_client.h"
#include "sources/oss/records.h"

namespace cdcd::oss {

class FetchContent;

struct SourceContext {
    SourceContext(boost::asio::io_context& io, OssSettings settings,
                  metrics::Registry& registry = metrics::Registry::detached());

    OssSettings settings;
    metrics::ConnectorMetrics metrics;  // before http: its observer counts on it
    net::HttpClient http;
    std::unique_ptr<OssClient> oss;         // when oss-endpoint is set
    std::unique_ptr<MnsClient> mns;         // when MNS is consumed
    std::unique_ptr<MnsClient> mns_delete;  // deletes, retried mns.delete-max-retries times
    RecordBuilder records;
    std::shared_ptr<net::RateLimiter> limiter;  // scan.rate-limit.records-per-second
    SourceOutput* output = nullptr;
    /// What happens to an MNS event that cannot be decoded (see bad_event.h): policy `fail`.
    BadEventHandler on_bad_event = fail_on_bad_event;
    /// FETCH_CONTENT's downloader, which ready() prefetches with (null: none).
    std::shared_ptr<FetchContent> fetch_content;

    bool stopping() const { return output && output->stopping(); }
    /// Waits for `records` tokens of the rate limit (no-op when unlimited). Call it BEFORE
    /// advancing state for those records.
    boost::asio::awaitable<void> throttle(std::size_t records);
    /// Before advancing state for `batch` (of `records` data changes): emits its CreateTableEvents
    /// (another receiver's batch may reach the output first, with that table's data), then waits
    /// for the rate limit and FETCH_CONTENT's downloads of its objects (without blocking the
    /// event loop).
    boost::asio::awaitable<void> ready(EventBatch& batch, std::size_t records);
    /// Emits `batch` to the output, counting its data changes as records read (records_in).
    boost::asio::awaitable<void> emit(EventBatch batch);
    /// Sleeps on the output (returns early when stopping).
    boost::asio::awaitable<void> sleep_ms(std::int64_t ms);
};

/// Epoch milliseconds now.
std::int64_t now_ms();

}  // namespace cdcd::oss
