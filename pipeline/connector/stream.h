#pragma once
// What flows between stages: batches of events, checkpoint barriers, and the end of input.
#include <cstdint>
#include <variant>
#include <vector>

#include "pipeline/event/events.h"

namespace cdcd {

using EventBatch = std::vector<Event>;

/// Checkpoint barrier N: everything before it belongs to checkpoint N.
struct Barrier {
    std::uint64_t checkpoint_id = 0;
};

/// A bounded source has emitted everything.
struct EndOfInput {};

using StreamElement = std::variant<EventBatch, Barrier, EndOfInput>;

}  // namespace cdcd
