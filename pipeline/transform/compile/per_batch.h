#pragma once
// Expressions of the clock and constants only (DATE_FORMAT(LOCALTIMESTAMP, 'yyyy-MM-dd'),
// CAST(CURRENT_DATE AS STRING), ...): the clock is read once per batch (EvalContext::now), so
// such an expression has one value for a whole batch. It is evaluated for the batch's first row
// that needs it and its value reused for the others.
#include "pipeline/transform/compile/node.h"

namespace cdcd::transform {

/// Wraps `n` (a node marked batch_constant) so that it is evaluated at most once per batch
/// (EvalContext::batch). A failing evaluation is not kept: each row that needs the value
/// evaluates it again and fails as it would have alone.
NodePtr evaluate_once_per_batch(NodePtr n);

/// True when wrapping `n` saves work: it is batch-constant and more than a clock read.
inline bool worth_evaluating_once_per_batch(const Node& n) {
    return n.batch_constant && !n.reads_clock;
}

}  // namespace cdcd::transform
