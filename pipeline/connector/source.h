#pragma once
// The source connector interface. A source is a coroutine on the pipeline's event loop that emits
// events; the runtime injects checkpoint barriers between its emits.
#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/connector/stream.h"
#include "pipeline/data/row_buffer_return.h"

namespace cdcd {

/// Implemented by the runtime; handed to Source::run.
class SourceOutput {
  public:
    virtual ~SourceOutput() = default;
    /// Hands events downstream, waiting while downstream is full (back-pressure). The source must
    /// have advanced its state past these events *before* calling emit: a barrier the runtime
    /// injects while emit waits is ordered after them.
    virtual boost::asio::awaitable<void> emit(EventBatch events) = 0;
    /// As emit(), for a reader (SourceReader) whose rows were built on schemas another reader of
    /// the same source changed: the batch reaches the writers after every schema change any
    /// reader had emitted when this is called, routed where the pipeline routes those. emit()
    /// may hand a reader's rows straight to the writers, ahead of another reader's schema change
    /// still on its way. A source read on the event loop has one order, so this is emit().
    virtual boost::asio::awaitable<void> emit_after_schema_changes(EventBatch events) {
        return emit(std::move(events));
    }
    /// True once the runtime asked the source to stop (drain on SIGTERM, or failure elsewhere).
    virtual bool stopping() const = 0;
    /// Waits up to `millis` or until stopping(); for poll intervals and back-offs.
    virtual boost::asio::awaitable<void> sleep(std::int64_t millis) = 0;
    /// Asks for a checkpoint now rather than at the next interval (a Kafka consumer group member
    /// handing partitions over); taken as soon as none is in flight.
    virtual void request_checkpoint() {}
};

/// One share of a source's input, read on a thread of its own (Source::split_readers).
class SourceReader {
  public:
    virtual ~SourceReader() = default;
    /// Emits its share until it ends or output.stopping(); on the reader's own thread.
    virtual boost::asio::awaitable<void> run(SourceOutput& output) = 0;
    /// State as of the last event handed to emit(), called on the reader's thread between emits
    /// (and after run() has returned); Source::merge_reader_states combines the readers'.
    virtual std::string snapshot_state() = 0;
};

class Source {
  public:
    virtual ~Source() = default;

    /// Called once, before run(), when the pipeline resumes from a checkpoint.
    virtual void restore(std::string_view state) = 0;
    /// Emits until the input ends (bounded sources return) or output.stopping().
    virtual boost::asio::awaitable<void> run(SourceOutput& output) = 0;
    /// State as of the last event handed to emit(). Called between emits on the event loop.
    virtual std::string snapshot_state() = 0;
    /// Checkpoint `id` (which holds the state last snapshotted for it) is durable: ack upstream.
    virtual boost::asio::awaitable<void> notify_checkpoint_complete(std::uint64_t id) {
        (void)id;
        co_return;
    }
    /// A source whose input divides into shares that each hold all of a key's changes (the
    /// ids of GENERATED, a topic's partitions) may read them on several threads: called once,
    /// after restore(), with the number of threads the pipeline offers (its writers' threads).
    /// Returns that many readers, each positioned where this source's state left its share,
    /// or none to read on the event loop with run(), which is then the only way it reads.
    /// A reader's rows reach the writers after the schema changes that reader emitted, not
    /// necessarily after another reader's: each reader emits the schema events of the tables it
    /// reads (GENERATED's each announce its one table) before rows that need them.
    virtual std::vector<std::unique_ptr<SourceReader>> split_readers(std::size_t count) {
        (void)count;
        return {};
    }
    /// The source's state from its readers' snapshot_state()s at one barrier (index i: reader
    /// i), as snapshot_state() would write it: what the checkpoint stores and restore() reads.
    /// On the event loop: bad records handed to the source's BadRecordSink here join this
    /// checkpoint's dead letters.
    virtual std::string merge_reader_states(const std::vector<std::string>& states);
    /// Where the buffers of rows this source built go back to once written, when it builds them
    /// on a thread of its own; nullptr when it builds them on the event loop.
    virtual std::shared_ptr<RowBufferReturn> row_buffer_return() const { return nullptr; }
    /// Human-readable JSON of a state blob, for `cdcd checkpoints show` (no secrets in it).
    virtual std::string describe_state(std::string_view state) const;
};

}  // namespace cdcd
