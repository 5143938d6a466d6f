#pragma once
// How the readers of one split source (Source::split_readers) that infer schemas from their
// input change them together (the Kafka source's: sources/kafka/split_reader.h). Each reader
// infers on a copy of its own and builds rows on it, in chunks it hands on to its thread in the
// pipeline; a record that does not fit the copy needs a change, which one reader makes at a time:
//   1. It asks the others to pause (begin_change). Each, at its next record or poll, hands on
//      the chunk it was building, whose rows have the schemas before, and waits (pause).
//   2. Once all have paused it changes the schemas (publish). Its chunk with the change waits,
//      on its reader's thread, until every other reader has sent the chunks it had handed on
//      when it paused (all_sent), so that no row of the old schemas follows the change.
//   3. Once that chunk is emitted (release), the others copy the new schemas and go on; their
//      first rows after it go through the loop, behind the change
//      (SourceOutput::emit_after_schema_changes). So do the first rows of a reader that starts
//      (join) after a change: that change may not have reached the writers yet either.
// Every wait ends when its caller stops. Changes are rare (a new table, field or wider type):
// between them a reader pays one atomic load per record (epoch()).
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "pipeline/schema/schema_json.h"

namespace cdcd {

class SchemaChangeGate {
  public:
    /// `schemas`: the inferred schemas the readers start from (the checkpoint's).
    SchemaChangeGate(std::size_t readers, TableSchemas schemas);

    // On the thread where reader i builds its rows (the Kafka source's: its consumer's). Chunks
    // are numbered from 1 in the order the reader hands them on; `handed_on` is the number of
    // the last one (0: none yet).

    /// Where a reader starts building (join).
    struct Start {
        TableSchemas schemas;     // to build on
        std::uint64_t epoch = 0;  // the epoch() they are of
        /// Other readers changed the schemas since the gate was made. Their changes may not have
        /// reached the writers yet, so the reader's first rows go through the loop, behind them
        /// (SourceOutput::emit_after_schema_changes), as after a pause.
        bool after_changes = false;
    };
    /// Reader i starts building (after a change in progress, if any). nullopt once `stop` is
    /// set.
    std::optional<Start> join(std::size_t i, const std::atomic<bool>& stop);
    /// Reader i builds nothing more.
    void leave(std::size_t i, std::uint64_t handed_on);
    /// Changes when a change begins or ends: a reader whose last look is older asks
    /// must_pause().
    std::uint64_t epoch() const { return epoch_.load(std::memory_order_acquire); }
    /// Whether another reader's change is in progress: reader i hands on what it built, then
    /// pause()s.
    bool must_pause(std::size_t i) const;
    /// Waits while another reader's change is in progress; the schemas after it, and in
    /// `epoch` the epoch() they are of. nullopt once `stop` is set.
    std::optional<TableSchemas> pause(std::size_t i, std::uint64_t handed_on,
                                      const std::atomic<bool>& stop, std::uint64_t& epoch);
    /// Reader i needs a change: true once it may make it (every other reader paused or not
    /// building), with `waits_for` set to each reader's last chunk handed on before its pause
    /// (what the chunk with the change waits for; 0 for reader i itself). False when another
    /// reader's change is in progress (reader i then pauses first) or `stop` is set. The change
    /// lasts until its chunks are released: those of every call made for a new chunk.
    bool begin_change(std::size_t i, std::uint64_t chunk, const std::atomic<bool>& stop,
                      std::vector<std::uint64_t>& waits_for);
    /// The change's schema of `table` (begin_change returned true); its number, which orders
    /// it among all changes.
    std::uint64_t publish(TableId table, const Schema& schema);

    // On reader i's own thread in the pipeline (SourceReader::run's).

    /// Reader i has emitted its chunks up to `chunk`.
    void sent(std::size_t i, std::uint64_t chunk);
    /// Whether every reader j has emitted its chunks up to waits_for[j].
    bool all_sent(const std::vector<std::uint64_t>& waits_for) const;
    /// Reader i's chunk `chunk`, holding its change, is emitted; the change ends with the last.
    void release(std::size_t i, std::uint64_t chunk);

  private:
    enum class State { Idle, Building, Paused };
    /// Waits on changed_ until `ready` or `stop` (looked at now and then: it is set elsewhere).
    template <typename Ready>
    bool wait(std::unique_lock<std::mutex>& lock, const std::atomic<bool>& stop, Ready ready);
    void end_change();  // mutex_ held

    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<State> states_;
    std::vector<std::uint64_t> handed_on_;  // at the reader's pause or leave
    std::unique_ptr<std::atomic<std::uint64_t>[]> sent_;
    std::optional<std::size_t> holder_;   // the reader whose change is in progress
    std::vector<std::uint64_t> holding_;  // its chunks with the change, not yet released
    std::atomic<std::uint64_t> epoch_{0};
    std::uint64_t changes_ = 0;
    TableSchemas schemas_;
    std::unordered_map<TableId, std::size_t> schema_at_;
};

}  // namespace cdcd
