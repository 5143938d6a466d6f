#pragma once
// Ordered batching of upserts and deletes per collection, with several batches in flight.
//
// Each collection has a queue of homogeneous batches (all upserts or all deletes) in arrival
// order. Only the last batch of a queue is open for appends; within it a later upsert (or delete)
// of the same key replaces the earlier one, which keeps "last write wins". An operation on a key
// of another kind, or on a key whose batch is sealed or in flight, opens a new batch behind it.
//
// A batch is ready when it is closed (full, sealed by the flush interval or a checkpoint flush,
// or followed by a later batch) and no earlier unacknowledged batch of its collection, in flight
// or queued, holds any of its keys. So a key's operations reach VikingDB in order, while batches
// with disjoint keys go out concurrently and may be acknowledged out of order. Each batch counts
// the earlier batches it waits for; an acknowledgement releases the batches waiting for it.
// At most `max_in_flight` batches are handed out at once.
#include <chrono>
#include <cstddef>
#include <list>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace cdcd::vikingdb {

enum class OpKind { Upsert, Delete };

struct Batch {
    std::string collection;
    OpKind kind = OpKind::Upsert;
    std::size_t limit = 100;
    std::vector<std::string> keys;      // primary keys as JSON values, in arrival order
    std::vector<std::string> payloads;  // upsert: record objects; delete: empty
    std::chrono::steady_clock::time_point opened;
    bool sealed = false;
    bool in_flight = false;
    std::size_t waits_for = 0;     // earlier unacknowledged batches sharing a key with this one
    std::vector<Batch*> released;  // later batches waiting for this one (each once)

    std::size_t size() const { return keys.size(); }
    bool full() const { return keys.size() >= limit; }
    /// `[record,...]` (upsert) or `[key,...]` (delete), the request's data/ids array.
    std::string items_json() const;
};

class Batcher {
  public:
    using Clock = std::chrono::steady_clock;

    /// At most `max_in_flight` batches are handed out by take_ready() and not yet completed
    /// (0 counts as 1).
    explicit Batcher(std::size_t max_in_flight)
        : max_in_flight_(max_in_flight == 0 ? 1 : max_in_flight) {}

    /// Adds one operation; `limit` is the collection's batch size (1..100).
    void add(const std::string& collection, std::size_t limit, OpKind kind, std::string key,
             std::string payload, Clock::time_point now = Clock::now());
    void seal_all();
    /// Seals the open batches opened at or before `deadline`.
    void seal_opened_before(Clock::time_point deadline);

    /// The next batch to send, marked in flight; nullptr when none is ready or `max_in_flight`
    /// batches are in flight. The pointer stays valid until complete() is called with it.
    Batch* take_ready();
    /// Whether take_ready() would hand out a batch now.
    bool has_ready() const { return find_ready() != nullptr; }
    /// Drops `batch`, a batch in flight, after it was acknowledged (in any order) and releases
    /// the batches that waited for it.
    void complete(const Batch& batch);

    bool empty() const { return total_batches_ == 0; }
    /// Unacknowledged batches and records (in flight, queued or open).
    std::size_t batches() const { return total_batches_; }
    std::size_t records() const { return total_records_; }
    std::size_t in_flight() const { return in_flight_; }
    std::size_t max_in_flight() const { return max_in_flight_; }
    /// Closed batches not yet handed out (ready, or waiting for an earlier batch to complete).
    std::size_t ready_batches() const;

  private:
    struct Slot {
        Batch* batch;
        std::size_t position;  // in batch->keys
    };
    struct Queue {
        std::list<Batch> batches;  // arrival order; a list so completing one moves no other
        // Each key of the queue → the last batch holding it (and where).
        std::unordered_map<std::string, Slot> last;
    };
    static bool closed(const Queue& q, const Batch& b);
    /// The batch take_ready() hands out next and the index of its queue, from `rotate_` on.
    Batch* find_ready(std::size_t* queue_index = nullptr) const;

    std::map<std::string, Queue> queues_;
    std::size_t max_in_flight_;
    std::size_t in_flight_ = 0;
    std::size_t total_batches_ = 0;
    std::size_t total_records_ = 0;
    std::size_t rotate_ = 0;
};

}  // namespace cdcd::vikingdb
