#include "pipeline/runtime/runtime_metrics.h"

#include <cmath>

namespace cdcd {

RuntimeMetrics::RuntimeMetrics(metrics::Registry& r, const std::string& source_type,
                               const std::string& sink_type)
    : source(r, metrics::Role::Source, source_type),
      sink(r, metrics::Role::Sink, sink_type),
      source_batches(r.counter("cdcd_batches_total",
                               "Event batches handed over by the source / to the sinks",
                               {{"role", "source"}, {"connector", source_type}})),
      sink_batches(r.counter("cdcd_batches_total",
                             "Event batches handed over by the source / to the sinks",
                             {{"role", "sink"}, {"connector", sink_type}})),
      checkpoints(r.counter("cdcd_checkpoints_total",
                            "Checkpoints completed (written to the state store)")),
      checkpoints_failed(
          r.counter("cdcd_checkpoints_failed_total",
                    "Checkpoint writes to the state store that failed (each retry counts)")),
      restores(r.counter("cdcd_restores_total", "Checkpoints restored at start")),
      failures(r.counter("cdcd_pipeline_failures_total", "Tasks of the pipeline that failed")),
      checkpoint_duration(
          r.histogram("cdcd_checkpoint_duration_seconds",
                      "Time from barrier injection to the checkpoint being durable")),
      last_id(r.gauge("cdcd_checkpoint_last_id", "Id of the last completed checkpoint, 0 if none")),
      last_duration(r.gauge("cdcd_checkpoint_last_duration_seconds",
                            "Duration of the last completed checkpoint")),
      last_size(
          r.gauge("cdcd_checkpoint_last_size_bytes", "Size of the last completed checkpoint")),
      last_timestamp(
          r.gauge("cdcd_checkpoint_last_timestamp_seconds",
                  "When the last completed checkpoint was written, Unix seconds (0 if none)")),
      ready(r.gauge("cdcd_ready", "1 while state is restored and every source runs, else 0")) {
    r.gauge_fn("cdcd_checkpoint_last_age_seconds",
               "Seconds since the last completed checkpoint (NaN if none)", {}, [this] {
                   double at = last_timestamp.value();
                   if (at <= 0) return std::nan("");
                   double now = std::chrono::duration<double>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count();
                   return now - at;
               });
}

void RuntimeMetrics::checkpoint_completed(std::uint64_t id,
                                          std::chrono::steady_clock::duration took,
                                          std::size_t bytes, std::int64_t created_ms) {
    last_id.set(static_cast<double>(id));
    last_size.set(static_cast<double>(bytes));
    last_timestamp.set(static_cast<double>(created_ms) / 1000.0);
    if (took.count() >= 0) {
        double seconds = std::chrono::duration<double>(took).count();
        last_duration.set(seconds);
        checkpoint_duration.observe(seconds);
        checkpoints.inc();
    }
}

}  // namespace cdcd
