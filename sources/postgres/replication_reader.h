#pragma once
// The postgres source's reader thread: owns the libpq connections and does all the blocking work
// (catalog, publication, slot, snapshot, then the replication stream), turning it into chunks of
// events with the position after them, handed to the event loop through a small bounded queue
// (the event loop never blocks; `wake` is posted when a chunk is ready). It answers the server's
// keepalives and sends standby status updates whose flushed LSN is only what confirm() was given:
// the LSN of a durable checkpoint.
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "pipeline/connector/bad_records.h"
#include "pipeline/connector/stream.h"
#include "sources/postgres/catalog.h"
#include "sources/postgres/options.h"
#include "sources/postgres/state_codec.h"

namespace cdcd::postgres {

class PgConnection;
class ChangeDecoder;
class BackfillFilter;

struct Chunk {
    EventBatch events;
    std::vector<BadRecord> bad_records;
    /// The position after these events.
    Phase phase = Phase::Snapshot;
    Lsn lsn = 0;
    std::uint64_t txn_events = 0;
    bool end = false;  // scan.startup.mode snapshot: the snapshot is complete
    std::exception_ptr error;
    SnapshotProgress progress;         // phase snapshot: how far the snapshot went
    std::vector<ResumedRead> resumed;  // the reads of a restarted snapshot still filtered
    /// Non-zero: no events; the state's creating_slot_after becomes `creating_slot_after`, and
    /// the reader waits until a checkpoint holding it is durable (intent_durable(intent)).
    std::uint64_t intent = 0;
    std::optional<Lsn> creating_slot_after;
    std::int64_t rows_estimate = -1;  // SnapshotBatch::rows_estimate
};

class ReplicationReader {
  public:
    ReplicationReader(PostgresSettings settings, std::optional<SourceState> restored,
                      std::function<void()> wake);
    ~ReplicationReader();  // stops and joins the thread

    void start();
    /// Takes the next chunk if one is ready; otherwise `wake` is posted when one is.
    bool try_pop(Chunk& chunk);
    /// Everything up to `lsn` is in a durable checkpoint: the slot may forget it.
    void confirm(Lsn lsn);
    /// A checkpoint holding the state of intent chunk `intent` (and those before) is durable.
    void intent_durable(std::uint64_t intent);

  private:
    void run();
    void read();
    /// Queues a chunk, waiting while the queue is full (answering the server meanwhile); false
    /// when stopping.
    bool push(Chunk chunk);
    /// Streams from `start` (skipping `skip` changes of the first transaction), reconnecting
    /// when the connection is lost: connect.max-retries times in a row, each resuming after the
    /// last chunk handed over.
    void stream(std::unique_ptr<PgConnection> replication, ChangeDecoder& decoder, Lsn start,
                std::uint64_t skip);
    struct Position {
        Lsn lsn = 0;
        std::uint64_t txn_events = 0;
    };
    /// One replication session; returns when stopping, throws PgError when the connection
    /// fails. `handed_over` follows the chunks pushed.
    void stream_session(PgConnection& replication, ChangeDecoder& decoder, Position from,
                        Position& handed_over);
    /// Sends a standby status update when one is due (interval, a new confirmed LSN, or asked).
    void send_status(bool now);
    /// Records durably that slot.name is about to be created with the WAL insert position at
    /// `after` (nullopt: that no slot is being created); false when stopping first.
    bool record_intent(std::optional<Lsn> after);
    /// scan.startup.mode initial without a position: creates the slot (dropping `existing` when
    /// the restored state says this source made it) and returns its consistent point and
    /// exported snapshot; nullopt when stopping.
    std::optional<std::pair<Lsn, std::string>> create_slot(PgConnection& catalog,
                                                           PgConnection& replication,
                                                           const std::optional<SlotInfo>& existing);

    PostgresSettings settings_;
    std::optional<SourceState> restored_;
    std::function<void()> wake_;
    std::thread thread_;
    std::atomic<bool> stopping_{false};
    std::atomic<Lsn> confirmed_{0};

    std::mutex mutex_;
    std::condition_variable space_;
    std::deque<Chunk> queue_;
    bool wake_armed_ = false;            // mutex_: the event loop waits for a chunk
    std::uint64_t intents_ = 0;          // reader thread: the last intent chunk pushed
    std::uint64_t intents_durable_ = 0;  // mutex_: the last one in a durable checkpoint

    // Reader thread only.
    std::unique_ptr<BackfillFilter> backfill_;  // set while a restarted snapshot's reads matter
    PgConnection* streaming_ = nullptr;         // set while START_REPLICATION runs
    Lsn received_ = 0;
    Lsn reported_flush_ = 0;
    std::chrono::steady_clock::time_point last_status_{};
};

}  // namespace cdcd::postgres
