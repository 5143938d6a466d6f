#pragma once
// One attached `cdcd tap`: at its point, on the thread that runs that point, it copies at most
// `rate` events a second (a token bucket consulted once per batch) of the tables its selector
// names into a bounded line queue, which the admin endpoint drains on the event loop. The
// pipeline never waits for it: a full queue drops lines and counts them.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>

#include "metrics/registry.h"
#include "pipeline/connector/event_selection.h"
#include "pipeline/connector/stream.h"
#include "pipeline/route/selectors.h"
#include "pipeline/runtime/sensitive_columns.h"
#include "pipeline/runtime/tap_line_queue.h"
#include "pipeline/runtime/tap_request.h"
#include "pipeline/runtime/tap_token_bucket.h"

namespace cdcd {

/// A table's schema as the point sees it before the batch offered (source) or as of the events
/// offered (transform, sink); nullptr when unknown. Called on the point's thread.
using TapSchemaLookup = std::function<const Schema*(TableId)>;

class Tap {
  public:
    // A tap holds at most this much that the client has not read yet.
    static constexpr std::size_t kMaxQueuedLines = 1000;
    static constexpr std::size_t kMaxQueuedBytes = 1 << 20;

    /// `sensitive` must outlive the tap; `dropped` counts lines the full queue refused.
    Tap(TapRequest request, const SensitiveColumns& sensitive, metrics::Counter& dropped);

    const TapRequest& request() const { return request_; }
    /// On the point's thread: samples `batch` (writer: the sink writer's index at the sink point).
    void offer(EventSelection batch, const TapSchemaLookup& lookup, int writer,
               TapTokenBucket::Clock::time_point now);
    /// On the event loop: appends the queued lines to `out`; returns how many.
    std::size_t take(std::string& out);
    /// Whether every line of `limit` has been queued (and taking them ends the tap).
    bool complete() const { return complete_.load(std::memory_order_acquire); }

  private:
    bool wanted(TableId table);

    TapRequest request_;
    std::unique_ptr<Selectors> filter_;  // null: every table
    const SensitiveColumns& sensitive_;
    metrics::Counter& dropped_;
    TapTokenBucket bucket_;
    TapLineQueue queue_;
    std::minstd_rand random_;
    std::uint64_t queued_ = 0;
    std::atomic<bool> complete_ = false;
    // The last table the filter was asked about: batches mostly hold runs of one table.
    TableId last_table_;
    bool last_wanted_ = false;
    bool asked_ = false;
};

}  // namespace cdcd
