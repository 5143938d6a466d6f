#pragma once
// A batch that every sink writer writes its part of, when the writers share the pipeline's
// thread (parallelism above 1 on one CPU, or a sink whose writers are not independent): its
// events stay where they are, and each writer takes its own by position (EventSelection). The
// writer that finishes last hands the batch back for its rows to be recycled.
//
// Writers on threads of their own get parts of their own instead (partition_events): reading a
// shared batch's events from another core cost them more than the moves save (GENERATED ->
// transform -> file at parallelism 2 on 2 cores: +4 % wall; with the source's readers on the
// writers' threads, +7-8 %).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "pipeline/connector/event_selection.h"
#include "pipeline/connector/stream.h"
#include "pipeline/runtime/partitioner.h"

namespace cdcd {

struct SharedBatch {
    EventBatch events;
    std::vector<std::vector<std::uint32_t>> parts;  // each writer's positions (partition_positions)
    std::atomic<std::size_t> unwritten{0};          // parts sent and not yet written

    EventSelection part(std::size_t writer) const { return {events, parts[writer]}; }
    /// Called by each writer sent a part once it has written it: true for the last of them.
    bool written() { return unwritten.fetch_sub(1, std::memory_order_acq_rel) == 1; }
};

/// `events` partitioned among `writers` writers (`events` is left empty); unwritten counts the
/// parts that are not empty, each of which the caller sends to its writer.
template <typename SinkSchema>
std::shared_ptr<SharedBatch> share_among_writers(EventBatch& events, std::size_t writers,
                                                 PartitioningStrategy strategy,
                                                 const SinkSchema& sink_schema) {
    auto shared = std::make_shared<SharedBatch>();
    shared->parts.resize(writers);
    partition_positions(events, shared->parts, strategy, sink_schema);
    shared->events.swap(events);
    std::size_t sent = 0;
    for (const auto& part : shared->parts) sent += part.empty() ? 0 : 1;
    shared->unwritten.store(sent, std::memory_order_relaxed);
    return shared;
}

}  // namespace cdcd
