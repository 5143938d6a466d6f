#pragma once
// Runs a planned pipeline on one Boost.Asio event loop (the transform and, at parallelism above 1,
// independent sink writers on threads of their own: transform_stage.h, writer_loops.h):
//
//   source ──channel──► transform → schema operator (route, evolution) ──► partition ──channels──►
//   writers
//
// with Flink's aligned checkpoints: the coordinator captures the source's state and injects
// barrier N into its stream; operators snapshot their state when N passes; each writer flushes
// and acks N; with every ack, checkpoint N is written to RocksDB in one synced batch and the
// source and writers are told it is durable. SIGTERM/SIGINT drain: the source stops, a final
// checkpoint is taken, writers close, exit 0. A second signal exits at once.
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "metrics/registry.h"
#include "pipeline/runtime/pipeline_plan.h"
#include "pipeline/runtime/tap_hub.h"

namespace cdcd {

/// Starting: restoring state; Running: restored and the source runs (ready); Draining: a stop
/// was requested (signal) and the final checkpoint is on its way; Stopped: finished or failed.
enum class RuntimePhase { Starting, Running, Draining, Stopped };
const char* to_string(RuntimePhase phase);

struct RunOptions {
    std::string state_dir;  // overrides pipeline.state.dir when non-empty
    /// Discards the pipeline's checkpoints first; a directory too damaged to open is moved aside
    /// to `<dir>.corrupt-<time>` and a fresh one started.
    bool reset_state = false;
    /// Restores exactly this stored checkpoint (`--from-checkpoint`); the newer ones are discarded
    /// once it has been restored.
    std::optional<std::uint64_t> from_checkpoint;
    bool handle_signals = true;
    /// Called on the event loop at every phase change (admin endpoint, systemd notifications).
    std::function<void(RuntimePhase)> on_phase;
};

class PipelineRuntime {
  public:
    PipelineRuntime(PipelinePlan plan, RunOptions options);
    ~PipelineRuntime();
    /// Runs to completion; returns the process exit code (0 finished or drained, 1 failed).
    int run();

    /// The pipeline's event loop, for services that share it (admin endpoint, watchdog).
    boost::asio::io_context& io();
    /// The pipeline's metrics (constant label pipeline=<name>); connectors get it too.
    metrics::Registry& metrics();
    RuntimePhase phase() const;
    /// After run(): when the stop must be over, pipeline.shutdown.timeout after the drain began
    /// (SIGTERM, SIGINT); empty when the run ended otherwise (a bounded source, a failure).
    std::optional<std::chrono::steady_clock::time_point> stop_deadline() const;
    /// The taps of `GET /tap` (used on the event loop).
    TapHub& taps();

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace cdcd
