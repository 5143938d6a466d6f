#pragma once
// The sink connector interface: a metadata applier for schema changes (one per sink) and
// `pipeline.parallelism` writers, each fed the events of its primary-key hash partition.
#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pipeline/connector/event_selection.h"
#include "pipeline/connector/stream.h"

namespace cdcd {

/// Thrown by a MetadataApplier that cannot apply a schema change; TRY_EVOLVE tolerates it.
struct UnsupportedSchemaChange : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class MetadataApplier {
  public:
    virtual ~MetadataApplier() = default;
    /// Applies a schema change to the target system, after every writer has flushed the events
    /// before it. Throws UnsupportedSchemaChange (tolerated under TRY_EVOLVE) or anything else
    /// (fails the pipeline).
    virtual boost::asio::awaitable<void> apply(const SchemaChangeEvent& event) = 0;
};

/// A writer's part of a checkpoint (SinkWriter::flush_for_checkpoint): its state, and, when its
/// output is not durable yet, what makes it so.
struct CheckpointFlush {
    std::string state;
    /// Set: completes once everything written before the barrier is durable (or throws, which
    /// fails the pipeline). The runtime awaits it on the writer's executor and acknowledges the
    /// checkpoint after it, while the writer goes on with what follows the barrier.
    std::optional<boost::asio::awaitable<void>> until_durable;
};

class SinkWriter {
  public:
    virtual ~SinkWriter() = default;
    /// Called once, before the first write, on a fresh start (no checkpoint restored). A writer
    /// that must record durably which output it owns before writing to it (a file it creates or
    /// appends to, see pipeline/output/append_only_file.h) opens it and returns its state; the
    /// runtime stores the states as a checkpoint without source state, so that a crash before
    /// the first regular checkpoint resumes into that output (from the source's startup mode)
    /// instead of starting fresh onto what the crashed run half wrote. Throws when the output
    /// cannot be claimed (the start fails). nullopt: nothing to claim.
    /// Also called after restore() when the checkpoint was taken at another parallelism
    /// (Sink::rescale_writer_states), where restore() may not have been called at all: the
    /// answer, the output the writer now owns, replaces its state in the checkpoint the runtime
    /// then stores at this parallelism (nullopt: the state it was restored from stays).
    virtual std::optional<std::string> fresh_start_state() { return std::nullopt; }
    /// Called once, before the first write, when the pipeline resumes from a checkpoint (with
    /// this writer's state in the checkpoint chosen, see recoverable_checkpoint()).
    virtual void restore(std::string_view state) { (void)state; }
    /// Also on resume: the sink tables' schemas as of the checkpoint. Their CreateTableEvents are
    /// not sent again, so a writer that needs schemas to write data takes them from here.
    virtual void restore_schemas(const std::vector<std::pair<TableId, Schema>>& schemas) {
        (void)schemas;
    }
    /// Writes events in order. Schema change events (broadcast to every writer) arrive already
    /// evolved and filtered; data is coerced to the sink table's schema. The events stay valid
    /// until the write completes, and are shared with the other writers: read, never changed.
    virtual boost::asio::awaitable<void> write(EventSelection events) = 0;
    /// Called after a write when nothing more is queued for this writer. A writer that holds
    /// records back to send them in larger batches (a producer's linger, a print buffer) sends
    /// them now, so a record does not wait for a batch to fill or for the next checkpoint when
    /// the pipeline is not under load. Must not wait for acknowledgements: the writer's next
    /// input may be arriving.
    virtual boost::asio::awaitable<void> input_drained() { co_return; }
    /// Makes everything written so far acknowledged by the target (checkpoint barrier, schema
    /// change, end of input) and returns the writer's state for checkpoint `checkpoint_id`
    /// (0 when flushing for another reason).
    virtual boost::asio::awaitable<std::string> flush(std::uint64_t checkpoint_id) = 0;
    /// A checkpoint barrier's flush (checkpoint_id above 0). A writer whose output takes long to
    /// become durable once handed over (a file's fdatasync) returns its state at once with
    /// CheckpointFlush::until_durable set, so that it goes on writing meanwhile; by default,
    /// flush(). Called again only after the last until_durable has completed.
    virtual boost::asio::awaitable<CheckpointFlush> flush_for_checkpoint(
        std::uint64_t checkpoint_id) {
        CheckpointFlush done;
        done.state = co_await flush(checkpoint_id);
        co_return done;
    }
    /// Checkpoint `id` is durable (exactly-once sinks commit here). Writers are notified before
    /// the source acknowledges the checkpoint upstream.
    virtual boost::asio::awaitable<void> notify_checkpoint_complete(std::uint64_t id) {
        (void)id;
        co_return;
    }

    // ---- two-phase commits that a crash can lose ------------------------------------------
    // A writer that commits in notify_checkpoint_complete and cannot finish that commit after a
    // restart (a Kafka transaction cannot be resumed by a new producer) loses the output of a
    // checkpoint that became durable just before a crash. Such a writer tells the runtime, on
    // resume, which checkpoint its committed output ends at; the runtime then resumes the whole
    // pipeline from that older checkpoint, so the source replays what was lost.

    /// How many checkpoints the runtime must keep (at least; state.checkpoints.num-retained may
    /// ask for more) so that the checkpoint recoverable_checkpoint() names is still stored.
    virtual int checkpoints_to_retain() const { return 1; }
    /// On resume, before restore(): `state` is this writer's state in checkpoint `id`, the newest
    /// durable one. Returns the newest checkpoint id up to which (and after which nothing of) the
    /// writer's output is committed: `id` when all of it is. The runtime restores every part of
    /// the pipeline from the newest stored checkpoint at or below the smallest answer of all
    /// writers, and discards the newer checkpoints. A writer that answers less than `id` must
    /// have made sure that nothing it wrote after that checkpoint is or will become visible.
    virtual std::uint64_t recoverable_checkpoint(std::string_view state, std::uint64_t id) {
        (void)state;
        return id;
    }
    /// The pipeline ends; release connections.
    virtual boost::asio::awaitable<void> close() { co_return; }
};

class Sink {
  public:
    virtual ~Sink() = default;
    virtual std::unique_ptr<SinkWriter> create_writer(int index, int parallelism) = 0;
    virtual MetadataApplier& metadata_applier() = 0;
    /// True when each writer may run on a thread of its own (pipeline.parallelism above 1): a
    /// writer shares nothing mutable with the other writers or the sink except metrics and its
    /// BadRecordSink, and does its I/O and timers on the executor its calls run on
    /// (co_await this_coro::executor), never on ConnectorContext::io. Every call on a writer is
    /// made from that one thread.
    virtual bool writers_are_independent() const { return false; }

    /// Resuming from a checkpoint taken at another `pipeline.parallelism`: `states[j]` is what
    /// writer j stored there (empty when it stored nothing). Returns what each of this sink's
    /// `parallelism` writers restores from, by index; nullopt: that writer starts as on a fresh
    /// start (fresh_start_state()), with the rest of the pipeline resuming. Pure: it is called
    /// before the checkpoint to restore is chosen, and what the states say is done by the
    /// writers' restore(). Throws, saying why, for states the sink cannot redistribute: the
    /// restore is then refused. By default a sink whose writers stored nothing can.
    virtual std::vector<std::optional<std::string>> rescale_writer_states(
        const std::vector<std::string>& states, int parallelism) const {
        for (const auto& s : states)
            if (!s.empty())
                throw std::runtime_error(
                    "its writers keep a state of their own, which it cannot hand to another "
                    "number of writers");
        return std::vector<std::optional<std::string>>(static_cast<std::size_t>(parallelism));
    }
};

}  // namespace cdcd
