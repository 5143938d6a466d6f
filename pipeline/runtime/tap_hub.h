#pragma once
// The taps attached to a running pipeline (`GET /tap`, `cdcd tap`). The runtime offers every
// batch at three points (TapPoint); with no tap attached there, an offer is one relaxed atomic
// load per batch. Attached taps sample on the point's thread (tap.h) and never make it wait.
#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/registry.h"
#include "pipeline/runtime/sensitive_columns.h"
#include "pipeline/runtime/tap.h"

namespace cdcd {

struct TapSettings {
    bool enabled = true;         // pipeline.tap.enabled
    SensitiveColumns sensitive;  // pipeline.tap.sensitive-columns
    std::size_t max_taps = 8;    // attached at once, over every point
};

class TapHub {
  public:
    TapHub(TapSettings settings, metrics::Registry& registry);

    /// The answer to a tap request: 200 and the tap, or an HTTP status and why.
    struct Opened {
        int status = 200;
        std::string message;
        std::shared_ptr<Tap> tap;
    };
    /// On the event loop: parses the query (400 naming the parameter), refuses when tapping is
    /// switched off (403) or too many taps are attached (503), else attaches a tap.
    Opened open(std::string_view query);
    /// Detaches the tap (the client went, or its limit was sent).
    void close(const std::shared_ptr<Tap>& tap);
    /// On the event loop: the tap's queued lines appended to `out`, counted as sent.
    std::size_t take(Tap& tap, std::string& out);

    /// The runtime's hook at `point`; `lookup(TableId) -> const Schema*` is called only when a tap
    /// samples the batch.
    template <typename Lookup>
    void offer(TapPoint point, EventSelection batch, const Lookup& lookup, int writer = -1) {
        if (attached_[index(point)].load(std::memory_order_relaxed) == 0) return;
        offer_attached(point, batch, TapSchemaLookup(lookup), writer);
    }

    /// Whether a tap is attached at any point: batches that skip the loop's offers (a source's
    /// readers writing straight to their writers) take the loop's path while one is.
    bool any_attached() const {
        for (const auto& count : attached_)
            if (count.load(std::memory_order_relaxed) != 0) return true;
        return false;
    }

  private:
    static std::size_t index(TapPoint p) { return static_cast<std::size_t>(p); }
    void offer_attached(TapPoint point, EventSelection batch, const TapSchemaLookup& lookup,
                        int writer);

    TapSettings settings_;
    std::array<std::atomic<int>, kTapPointCount> attached_{};
    std::array<std::mutex, kTapPointCount> mutexes_;
    std::array<std::vector<std::shared_ptr<Tap>>, kTapPointCount> taps_;
    std::size_t open_taps_ = 0;  // on the event loop only
    std::array<metrics::Counter*, kTapPointCount> sent_{};
    std::array<metrics::Counter*, kTapPointCount> dropped_{};
    // What sampling cost the pipeline's threads, per point (cdcd_tap_sampling_seconds_total).
    std::array<std::atomic<std::uint64_t>, kTapPointCount> sampling_ns_{};
};

}  // namespace cdcd
