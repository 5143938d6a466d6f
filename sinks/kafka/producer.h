#pragma once
// A librdkafka producer for the Kafka sink: topic handles cached by name, records copied into
// librdkafka (RD_KAFKA_MSG_F_COPY, so callers reuse their buffers), delivery reports counted and
// the first error kept, hash-by-key partitioning by Java's murmur2 (a librdkafka partitioner
// callback, so librdkafka supplies the partition count), and Kafka transactions.
//
// Non-blocking calls (produce, poll, counters) run on the event loop; the blocking ones
// (flush, init/commit/abort transactions) are meant for a helper thread (see
// pipeline/util/blocking_calls.h).
#include <librdkafka/rdkafka.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kafka_client/bootstrap_again.h"

namespace cdcd::kafka {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct ProducerSettings {
    std::vector<std::pair<std::string, std::string>> config;  // librdkafka keys
    std::optional<std::string> transactional_id;
    bool hash_by_key = false;  // murmur2 partitioner for records produced with partition -1
};

class Producer {
  public:
    explicit Producer(const ProducerSettings& settings);
    ~Producer();
    Producer(const Producer&) = delete;
    Producer& operator=(const Producer&) = delete;

    rd_kafka_topic_t* topic(const std::string& name);

    /// Enqueues one record; partition -1 = the partitioner decides. Returns QUEUE_FULL when the
    /// local queue is full (poll, wait, retry); other errors are returned as they are.
    rd_kafka_resp_err_t produce(rd_kafka_topic_t* topic, std::int32_t partition,
                                std::string_view key, std::string_view value,
                                const Headers* headers);

    /// Enqueues `count` records without headers to `topic` (partition -1: the partitioner
    /// decides each), in order, reading the clock twice and locking the topic once for all of
    /// them instead of for each (rd_kafka_produce_batch). Sets each record's `err`: once the local
    /// queue is full, that record and every later one get QUEUE_FULL and are not enqueued; a record
    /// refused for itself (too large) is skipped and the later ones still go.
    void produce_batch(rd_kafka_topic_t* topic, std::int32_t partition, rd_kafka_message_t* records,
                       std::size_t count);

    /// The most value bytes librdkafka's local queue holds (queue.buffering.max.kbytes, which
    /// counts values only): a larger value could never be enqueued, and librdkafka would answer
    /// "queue full" for it however long the caller waited.
    std::size_t max_queued_value_bytes() const { return max_queued_value_bytes_; }

    /// Serves delivery reports without waiting.
    void poll() { rd_kafka_poll(rk_, 0); }
    /// Records produced and not yet reported.
    int in_flight() const { return rd_kafka_outq_len(rk_); }
    std::uint64_t delivered() const { return delivered_.load(); }
    /// Records whose delivery failed (each failed report).
    std::uint64_t failed() const { return failed_count_.load(); }
    /// The first delivery error ("topic [partition]: reason"), or a connection error that
    /// retrying cannot cure (see connection_error.h), if any.
    std::optional<std::string> delivery_error() const;

    // Blocking (helper thread).
    /// Waits until every record is reported. Throws on timeout.
    void flush(int timeout_ms);
    /// Waits (at most timeout_ms) until a broker answers; throws at once on a lasting
    /// connection error (connection_error.h).
    void await_connection(int timeout_ms);
    void init_transactions(int timeout_ms);
    void begin_transaction();
    void commit_transaction(int timeout_ms);
    void abort_transaction(int timeout_ms);

    rd_kafka_t* handle() { return rk_; }

    /// For a writer waiting on acknowledgements: start_waiting() when it begins, then
    /// unacknowledged_for() after each wait, which says how long no record has been
    /// acknowledged. From 5 s of that on it adds bootstrap.servers back every 5 s
    /// (kafka_client/bootstrap_again.h says why).
    void start_waiting();
    std::chrono::steady_clock::duration unacknowledged_for();

  private:
    static void on_delivery(rd_kafka_t* rk, const rd_kafka_message_t* msg, void* opaque);
    static void on_error(rd_kafka_t* rk, int err, const char* reason, void* opaque);
    static std::int32_t partition_by_murmur2(const rd_kafka_topic_t* topic, const void* key,
                                             size_t keylen, std::int32_t partition_count,
                                             void* topic_opaque, void* msg_opaque);
    void check_error(rd_kafka_error_t* error, const char* what);

    rd_kafka_t* rk_ = nullptr;
    BootstrapAgain bootstrap_again_{std::string()};
    std::uint64_t acknowledged_ = 0;
    std::chrono::steady_clock::time_point acknowledged_at_;
    bool hash_by_key_ = false;
    std::size_t max_queued_value_bytes_ = 0;
    std::unordered_map<std::string, rd_kafka_topic_t*> topics_;
    std::atomic<std::uint64_t> delivered_{0};
    std::atomic<bool> failed_{false};
    std::atomic<std::uint64_t> failed_count_{0};
    mutable std::mutex error_mutex_;
    std::string first_error_;
};

}  // namespace cdcd::kafka
