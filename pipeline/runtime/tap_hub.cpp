#include "pipeline/runtime/tap_hub.h"

#include <algorithm>

namespace cdcd {

TapHub::TapHub(TapSettings settings, metrics::Registry& registry) : settings_(std::move(settings)) {
    for (std::size_t i = 0; i < kTapPointCount; ++i) {
        metrics::Labels labels{{"point", to_string(static_cast<TapPoint>(i))}};
        sent_[i] = &registry.counter("cdcd_tap_lines_sent_total", "Lines sent to cdcd tap clients",
                                     labels);
        dropped_[i] = &registry.counter(
            "cdcd_tap_events_dropped_total",
            "Sampled events a tap dropped because its client read too slowly", labels);
        registry.counter_fn(
            "cdcd_tap_sampling_seconds_total",
            "Time the pipeline's threads spent sampling events for cdcd tap", labels,
            [this, i] { return static_cast<double>(sampling_ns_[i].load()) / 1e9; });
        registry.gauge_fn("cdcd_taps_attached", "cdcd tap clients attached now", labels,
                          [this, i] { return static_cast<double>(attached_[i].load()); });
    }
}

TapHub::Opened TapHub::open(std::string_view query) {
    if (!settings_.enabled)
        return {403, "tapping is switched off for this pipeline (pipeline.tap.enabled: false)\n",
                nullptr};
    std::shared_ptr<Tap> tap;
    try {
        TapRequest request = parse_tap_request(query);
        std::size_t i = index(request.point);
        tap = std::make_shared<Tap>(std::move(request), settings_.sensitive, *dropped_[i]);
    } catch (const TapRequestError& e) {
        return {400, std::string(e.what()) + "\n", nullptr};
    }
    if (open_taps_ >= settings_.max_taps)
        return {503,
                "too many taps: " + std::to_string(settings_.max_taps) +
                    " are attached; try again when one ends\n",
                nullptr};
    std::size_t i = index(tap->request().point);
    {
        std::lock_guard lock(mutexes_[i]);
        taps_[i].push_back(tap);
    }
    ++open_taps_;
    attached_[i].fetch_add(1, std::memory_order_relaxed);
    return {200, {}, std::move(tap)};
}

void TapHub::close(const std::shared_ptr<Tap>& tap) {
    std::size_t i = index(tap->request().point);
    std::lock_guard lock(mutexes_[i]);
    auto& taps = taps_[i];
    auto it = std::find(taps.begin(), taps.end(), tap);
    if (it == taps.end()) return;
    taps.erase(it);
    --open_taps_;
    attached_[i].fetch_sub(1, std::memory_order_relaxed);
}

std::size_t TapHub::take(Tap& tap, std::string& out) {
    std::size_t n = tap.take(out);
    sent_[index(tap.request().point)]->inc(n);
    return n;
}

void TapHub::offer_attached(TapPoint point, EventSelection batch, const TapSchemaLookup& lookup,
                            int writer) {
    auto now = TapTokenBucket::Clock::now();
    std::size_t i = index(point);
    {
        std::lock_guard lock(mutexes_[i]);
        for (const auto& tap : taps_[i]) tap->offer(batch, lookup, writer, now);
    }
    auto spent = TapTokenBucket::Clock::now() - now;
    sampling_ns_[i].fetch_add(
        static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(spent).count()),
        std::memory_order_relaxed);
}

}  // namespace cdcd
