#pragma once
// The data-plane calls (upsert, delete by ids, delete all) with the common envelope, API-key or
// AK/SK authentication, retries with backoff on 5xx and transport failures, throttling waited
// out at an adaptive rate (not counted as retries), and no retry on 4xx. A rejected upsert batch is
// split in halves until the offending record is found, so the error names that record's primary key
// and the server's message (upserts are idempotent and a batch is all-or-nothing, so resending the
// accepted halves is harmless).
#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <optional>
#include <string>
#include <vector>

#include "metrics/connector_metrics.h"
#include "net/http_client.h"
#include "net/retry.h"
#include "sinks/vikingdb/auth.h"
#include "sinks/vikingdb/batcher.h"
#include "sinks/vikingdb/control_plane_client.h"
#include "sinks/vikingdb/record_isolation.h"

namespace cdcd::vikingdb {

struct WriteTarget {
    std::string collection;
    std::optional<std::string> resource_id;  // addresses the collection instead of its name
    std::string project = "default";
};

struct WriteOptions {
    std::optional<std::int64_t> ttl_seconds;
    bool async_upsert = false;
};

/// Request counters of one client (for logs and tests).
struct DataPlaneStats {
    std::atomic<std::uint64_t> requests{0};
    std::atomic<std::uint64_t> retries{0};
    std::atomic<std::uint64_t> rows_upserted{0};
    std::atomic<std::uint64_t> ids_deleted{0};
};

class DataPlaneClient {
  public:
    DataPlaneClient(net::HttpClient& http, const Authenticator& auth, Endpoint endpoint,
                    std::chrono::milliseconds timeout, net::RetryPolicy policy,
                    WriteOptions options);

    /// Sends one batch (upsert or delete); throws ApiError (or net::HttpError after retries).
    /// A record refused for its data goes to `rejected` when given (the rest of the batch is
    /// delivered); without it, its ApiError is thrown.
    boost::asio::awaitable<void> send(WriteTarget target, const Batch& batch,
                                      OnRejected rejected = {});
    /// `del_all: true` (TRUNCATE TABLE).
    boost::asio::awaitable<void> delete_all(WriteTarget target);

    /// The JSON bodies (exposed for tests).
    std::string upsert_body(const WriteTarget& target, std::string_view items_json) const;
    std::string delete_body(const WriteTarget& target, std::string_view ids_json) const;

    DataPlaneStats& stats() { return stats_; }
    /// Closes the shared HTTP client's pooled connections idle for `idle` or longer.
    void close_idle(std::chrono::milliseconds idle) { http_.close_idle(idle); }
    /// Counts request body bytes accepted (bytes_out) and rows upserted or ids deleted
    /// (records_out) on `metrics` too.
    void count_on(metrics::ConnectorMetrics& metrics) { metrics_ = &metrics; }

  private:
    boost::asio::awaitable<net::RetryResult> post(const std::string& path, std::string body);
    ApiError api_error(const std::string& what, const net::RetryResult& r) const;
    /// Records [begin, end) of `batch` in one request (see SendRange).
    boost::asio::awaitable<std::optional<ApiError>> send_range(const WriteTarget& target,
                                                               const Batch& batch,
                                                               std::size_t begin, std::size_t end);

    net::HttpClient& http_;
    const Authenticator& auth_;
    Endpoint endpoint_;
    std::chrono::milliseconds timeout_;
    net::RetryPolicy policy_;
    WriteOptions options_;
    DataPlaneStats stats_;
    metrics::ConnectorMetrics* metrics_ = nullptr;
};

}  // namespace cdcd::vikingdb
