#pragma once
// Ordered batching of upserts and deletes per collection. Each collection has a queue of
// homogeneous batches (all upserts or all deletes) sent front to back, one at a time, so a key's
// operations reach VikingDB in order: a delete of a key that sits in the open upsert batch
// starts a new batch behind it instead of overtaking it. Within the open batch a later upsert
// (or delete) of the same key replaces the earlier one, which keeps "last write wins".
//
// A front batch is ready when full, when a later batch exists behind it, or when sealed (by the
// flush interval or a checkpoint flush).
#include <chrono>
#include <cstddef>
#include <deque>
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
    std::unordered_map<std::string, std::size_t> index;  // key → position
    std::chrono::steady_clock::time_point opened;
    bool sealed = false;
    bool in_flight = false;

    std::size_t size() const { return keys.size(); }
    bool full() const { return keys.size() >= limit; }
    /// `[record,...]` (upsert) or `[key,...]` (delete), the request's data/ids array.
    std::string items_json() const;
};

class Batcher {
  public:
    using Clock = std::chrono::steady_clock;

    /// Adds one operation; `limit` is the collection's batch size (1..100).
    void add(const std::string& collection, std::size_t limit, OpKind kind, std::string key,
             std::string payload, Clock::time_point now = Clock::now());
    void seal_all();
    /// Seals the open batches opened at or before `deadline`.
    void seal_opened_before(Clock::time_point deadline);

    /// The next batch to send, marked in flight; nullptr when none is ready.
    Batch* take_ready();
    /// Drops the in-flight front batch of `collection` after it was acknowledged.
    void complete(const std::string& collection);

    bool empty() const { return total_batches_ == 0; }
    std::size_t batches() const { return total_batches_; }
    std::size_t records() const { return total_records_; }
    /// Batches that are full or sealed (waiting only for the sender).
    std::size_t ready_batches() const;

  private:
    static bool ready(const std::deque<Batch>& q);
    std::map<std::string, std::deque<Batch>> queues_;
    std::size_t total_batches_ = 0;
    std::size_t total_records_ = 0;
    std::size_t rotate_ = 0;
};

}  // namespace cdcd::vikingdb
