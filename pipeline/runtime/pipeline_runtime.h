#pragma once
// Runs a planned pipeline on one Boost.Asio event loop:
//
//   source ──channel──► transform → schema operator (route, evolution) ──► partition ──channels──► writers
//
// with Flink's aligned checkpoints: the coordinator captures the source's state and injects
// barrier N into its stream; operators snapshot their state when N passes; each writer flushes
// and acks N; with every ack, checkpoint N is written to RocksDB in one synced batch and the
// source and writers are told it is durable. SIGTERM/SIGINT drain: the source stops, a final
// checkpoint is taken, writers close, exit 0. A second signal exits at once.
#include <memory>
#include <string>

#include "pipeline/runtime/pipeline_plan.h"

namespace cdcd {

struct RunOptions {
    std::string state_dir;  // overrides pipeline.state.dir when non-empty
    bool reset_state = false;
    bool handle_signals = true;
};

class PipelineRuntime {
public:
    PipelineRuntime(PipelinePlan plan, RunOptions options);
    ~PipelineRuntime();
    /// Runs to completion; returns the process exit code (0 finished or drained, 1 failed).
    int run();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace cdcd
