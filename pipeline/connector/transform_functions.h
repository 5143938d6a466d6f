#pragma once
// Functions a connector adds to the transform expressions of its own pipeline (oss-cdc's
// FETCH_CONTENT): its factory declares them (SourceFactory::transform_functions), the pipeline's
// TransformOperator is created with them, and nothing process-wide holds them, so that two
// pipelines (or a validate beside a run) never see each other's. Declared here, below the
// transform library, with the transform types it names only forward-declared.
#include <memory>
#include <string>
#include <vector>

namespace cdcd::transform {
struct CallSite;
struct Node;
}  // namespace cdcd::transform

namespace cdcd {

struct TransformFunction {
    std::string name;  // upper-case, as expressions call it
    /// Checks the call's arguments and returns its node (transform/functions.h, Builder).
    std::unique_ptr<transform::Node> (*build)(transform::CallSite&) = nullptr;
    /// Its value changes between calls with equal arguments: never constant-folded.
    bool is_volatile = false;
    /// What the function works with in this pipeline (e.g. the source's downloader), handed to
    /// `build` as CallSite::context; null when the pipeline is only validated (never evaluated).
    std::shared_ptr<void> context;
};

using TransformFunctions = std::vector<TransformFunction>;

}  // namespace cdcd
