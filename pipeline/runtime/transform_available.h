#pragma once
// Temporary bridge while pipeline/transform/ lands: the runtime builds without it and refuses
// pipelines that have a transform block. Removed once transform_operator.h exists.
#if __has_include("pipeline/transform/transform_operator.h")
#include "pipeline/transform/transform_operator.h"
#define CDCD_HAS_TRANSFORM 1
#else
#include <string>
#include <string_view>

#include "pipeline/connector/stream.h"
namespace cdcd::transform {
class TransformOperator {
public:
    void process(EventBatch&, EventBatch&) {}
    std::string snapshot_state() const { return {}; }
    void restore(std::string_view) {}
};
}  // namespace cdcd::transform
#endif
