#pragma once
// Progress of a long phase (a snapshot, a first scan, a backfill): logs at most every 10 s how
// far it is, and exports the same figures as metrics:
//
//   metrics::ProgressReporter progress(*ctx.metrics, "values", "generate", total);  // total or 0
//   ...  progress.advance(batch.size());   // one clock read per call; call it per batch
//   progress.finish();
//
//   cdcd_progress_items_done{connector,phase}       items done so far (this run)
//   cdcd_progress_items_total{connector,phase}      items in the phase, when known
//   cdcd_progress_items_per_second{connector,phase} rate over the last report interval
//
// Logged as: `values generate: 1200000 of 2000000 items (60.0%), 250000/s, about 3 s left`.
#include <chrono>
#include <cstdint>
#include <string>

#include "metrics/registry.h"

namespace cdcd::metrics {

class ProgressReporter {
  public:
    using Clock = std::chrono::steady_clock;

    /// `total` 0 means unknown. `done` starts the count (a phase resumed from a checkpoint).
    ProgressReporter(Registry& registry, std::string connector, std::string phase,
                     std::int64_t total = 0, std::int64_t done = 0,
                     Clock::duration interval = std::chrono::seconds(10));

    void set_total(std::int64_t total);
    void advance(std::int64_t items) { advance_at(items, Clock::now()); }
    /// As advance(), at a given time (tests).
    void advance_at(std::int64_t items, Clock::time_point now);
    /// Logs the final figures once.
    void finish();

    std::int64_t done() const { return done_; }
    std::int64_t total() const { return total_; }
    /// The line that would be logged now (without the connector/phase prefix's timestamp).
    std::string describe(double rate) const;
    /// Number of progress lines logged so far (tests).
    int reports() const { return reports_; }

  private:
    void report(Clock::time_point now);

    std::string name_;
    Gauge& done_gauge_;
    Gauge& total_gauge_;
    Gauge& rate_gauge_;
    Clock::duration interval_;
    std::int64_t total_;
    std::int64_t done_;
    std::int64_t done_at_last_report_;
    Clock::time_point started_;
    Clock::time_point last_report_;
    int reports_ = 0;
    bool finished_ = false;
};

}  // namespace cdcd::metrics
