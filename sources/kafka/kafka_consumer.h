#pragma once
// The Kafka source's consumer: a dedicated thread owns the librdkafka consumer, does the blocking
// work (metadata discovery, offset lookups, watermark queries, consume_batch), decodes messages
// into events (MessageDecoder) and hands them over as chunks through a small bounded queue; the
// event loop takes chunks without blocking and is woken by an asio::post when it waits.
// Partitions are assigned explicitly (no group membership, like Flink's KafkaSource), so a
// restarted cdcd resumes at once; the consumer group only receives offset commits.
//
// With scan.consumer-group.enabled the consumer instead subscribes as a member of the group
// (cooperative-sticky), so that several cdcd replicas share the partitions. A partition assigned
// to it starts at the newer of this replica's checkpointed offset and the group's committed one
// (else the startup mode). A partition revoked from it is handed over: the rebalance callback
// (consumer thread) queues a hand-over chunk and waits until the source reports a completed
// checkpoint taken after everything read from it (hand_over()), commits those offsets to the
// group synchronously, and only then gives the partition up. The next owner is another process
// with its own state directory: the group's committed offset is all it sees.
//
// A second thread keeps librdkafka fetching with a small prefetch queue (4 MB unless the user sets
// properties.queued.*; split readers' consumers share it) and measures the lag:
// librdkafka 2.0 stops fetching while its queue is over queued.min.messages or
// queued.max.messages.kbytes and looks again only when its broker thread next wakes up (up to a
// second later). When the queue has drained below half its limit while the partitions still have
// messages to read, the thread sends a ListOffsets request to their leaders
// (rd_kafka_offsets_for_times "latest"): the request wakes those broker threads, which then
// resume fetching at once, and its answer is the high watermark for the lag gauges.
#include <librdkafka/rdkafka.h>
#include <re2/re2.h>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "kafka_client/bootstrap_again.h"
#include "kafka_client/kafka_properties.h"
#include "metrics/connector_metrics.h"
#include "pipeline/connector/bad_records.h"
#include "pipeline/connector/schema_change_gate.h"
#include "pipeline/connector/source.h"
#include "pipeline/connector/stream.h"
#include "pipeline/data/row_buffer_return.h"
#include "sources/kafka/message_decoder.h"
#include "sources/kafka/offsets_state.h"

namespace cdcd::kafka {

enum class StartupMode { EarliestOffset, LatestOffset, GroupOffsets, Timestamp, SpecificOffsets };

struct ConsumerSettings {
    ClientConfig client;
    std::vector<std::string> topics;
    std::optional<std::string> topic_pattern;
    StartupMode startup = StartupMode::GroupOffsets;
    std::int64_t startup_timestamp_ms = 0;
    std::map<std::int32_t, std::int64_t> specific_offsets;  // partition → offset
    bool bounded = false;                                   // scan.bounded.mode: latest-offset
    bool consumer_group = false;                            // scan.consumer-group.enabled
    std::int64_t discovery_interval_ms = 300'000;
    std::size_t max_batch = 4096;
    bool ignore_parse_errors = false;
    std::optional<double> rate_limit;  // scan.rate-limit.records-per-second (KafkaSource)
    /// The pipeline's bad-record policy goes on past a bad message (skip, dead-letter): it is
    /// handed over in Chunk::bad_records instead of failing the source.
    bool bad_records_go_on = false;
    DecoderSettings decoder;
    /// A split reader's consumer (split_reader.h) reads the partitions of share `share` of
    /// `shares` (partition_share()), and changes the schemas it infers through `gate`, which
    /// the readers share.
    std::size_t share = 0, shares = 1;
    std::shared_ptr<SchemaChangeGate> gate;
};

/// Which of `shares` shares reads a topic's partition: the partitions of a topic in turn, each
/// topic starting at a share of its own, so that one topic's partitions spread over all.
std::size_t partition_share(const std::string& topic, std::int32_t partition, std::size_t shares);

/// A table's schema as a split reader's change left it (SchemaChangeGate::publish).
struct ChangedSchema {
    TableId table;
    std::uint64_t change = 0;  // orders it among all the readers' changes
    Schema schema;
};

struct Chunk {
    EventBatch events;
    std::vector<std::pair<PartitionKey, std::int64_t>> offsets;  // next offsets after this chunk
    bool end = false;                                            // bounded input finished
    std::exception_ptr error;
    /// Messages that could not be parsed (bad_records_go_on), for the source to hand to the
    /// bad-record policy on the event loop, with the offsets of this chunk.
    std::vector<BadRecord> bad_records;
    /// Consumer group: these partitions are being revoked. The consumer waits in the rebalance
    /// callback until hand_over() is called with their offsets from a completed checkpoint.
    std::vector<PartitionKey> revoked;

    // Split readers (ConsumerSettings::gate).
    std::uint64_t number = 0;  // from 1, in the order the consumer hands chunks on
    /// It holds a schema change of this reader's: emitted once every other reader has emitted
    /// its chunks up to waits_for[j], then released (pipeline/connector/schema_change_gate.h).
    bool holds_change = false;
    std::vector<std::uint64_t> waits_for;
    std::vector<ChangedSchema> changed;  // the schemas its changes left
    /// The first chunk after this reader paused for another's change: its rows were built on
    /// that change (SourceOutput::emit_after_schema_changes).
    bool after_change = false;
};

class KafkaConsumer final : private SchemaChanges {
  public:
    /// `row_buffers` (optional): buffers of the rows it built, back from the pipeline once
    /// written, for the next rows it builds.
    /// `wake` is posted to `executor`.
    KafkaConsumer(ConsumerSettings settings, SourceState restored,
                  boost::asio::any_io_executor executor, std::function<void()> wake,
                  metrics::ConnectorMetrics& metrics,
                  std::shared_ptr<RowBufferReturn> row_buffers = nullptr);
    ~KafkaConsumer() override;

    void start();
    /// Takes the next chunk if one is ready; otherwise arranges for `wake` to be posted when one
    /// is.
    bool try_pop(Chunk& chunk);
    /// On the loop the chunks go to: the next chunk, waiting on `timer` (which `wake` cancels)
    /// while there is none; false once output.stopping(). Rethrows the error of a failed chunk.
    boost::asio::awaitable<bool> next_chunk(Chunk& chunk, boost::asio::steady_timer& timer,
                                            const SourceOutput& output);
    /// Commits offsets to the consumer group (asynchronously; thread-safe). No-op without group.id.
    /// With a consumer group, only the partitions this member owns are committed.
    void commit(const Offsets& offsets);
    /// Consumer group: the checkpoint covering the last hand-over chunk is durable; `offsets` are
    /// its revoked partitions' next offsets (thread-safe; releases the rebalance callback).
    void hand_over(Offsets offsets);
    std::uint64_t skipped() const { return skipped_.load(); }
    /// ListOffsets queries sent to wake the fetcher or refresh the lag (for tests and logs).
    std::uint64_t watermark_queries() const { return watermark_queries_.load(); }

  private:
    struct Assigned {
        std::int64_t start;     // librdkafka offset or logical (BEGINNING / STORED)
        std::int64_t end = -1;  // bounded: high watermark at assignment
        bool done = false;
        // reassign() restarted fetching at the partition's position: until a message at or
        // past it arrives, anything below it is one already passed on, delivered again.
        bool reassigned = false;
    };

    void run();
    // Split readers: schema changes (pipeline/connector/schema_change_gate.h).
    bool begin() override;
    void changed(TableId table, const Schema& schema) override;
    /// Pushes `chunk` with `moved`'s offsets, when it holds anything, and starts the next.
    void hand_on(Chunk& chunk, std::map<PartitionKey, std::int64_t>& moved);
    /// Another reader's change is in progress: hands on what was built so far, waits for the
    /// change and takes its schemas. False when stopping.
    bool pause_for_change(Chunk& chunk, std::map<PartitionKey, std::int64_t>& moved);
    /// Before a message or a poll: pauses when another reader's change began since the last
    /// look. False when stopping.
    bool follow_changes(Chunk& chunk, std::map<PartitionKey, std::int64_t>& moved);
    /// The first lasting connection error (connection_error.h) waiting in the consumer queue.
    std::optional<std::string> queued_connection_error();
    static void on_error(rd_kafka_t* rk, int err, const char* reason, void* opaque);
    void discover(bool initial);
    /// librdkafka could not fetch `key` at `offset` (retention or delete-records removed it, or
    /// it is past the end): without properties.auto.offset.reset, throws an error naming the
    /// partition, the offset and the earliest one available; with it, returns the offset the
    /// policy picks, logs the gap and counts it (cdcd_kafka_offset_resets_total, …).
    std::int64_t out_of_range(const PartitionKey& key, std::int64_t offset);
    /// ignore-parse-errors: true — counts the skipped message, logs at a bounded rate.
    void skip_unparsable(const PartitionKey& key, std::int64_t offset, const char* why);
    std::int64_t committed_or_reset(const std::string& topic, std::int32_t partition);
    std::int64_t start_offset(const std::string& topic, std::int32_t partition, bool initial);
    void reassign();
    void push(Chunk chunk);
    bool all_done() const;
    // Lag and fetcher wake-ups (see the top of this file).
    struct PartitionLag {
        metrics::Gauge* gauge = nullptr;
        std::int64_t position = -1;  // next offset to consume; -1 unknown
        std::int64_t high = -1;      // high watermark: the larger of the last fetch's and query's
        bool fetching = true;
    };
    void track_lag();   // consumer thread, after each batch
    void watermarks();  // the watermark thread
    void query_watermarks();
    void set_lag(PartitionLag& p);
    // A watermark query waits at most this long (it must not hold up shutdown while the broker is
    // away); also the timeout of the offset lookups of a timestamp startup.
    static constexpr int kWatermarkTimeoutMs = 2'000;

    static void on_commit(rd_kafka_t*, rd_kafka_resp_err_t err,
                          rd_kafka_topic_partition_list_t* offsets, void*);

    // Consumer group membership (scan.consumer-group.enabled).
    static void on_rebalance(rd_kafka_t*, rd_kafka_resp_err_t err,
                             rd_kafka_topic_partition_list_t* partitions, void* opaque);
    void subscribe();  // to the topics, or (topic-pattern) to the existing ones that match
    void assign_from_group(const rd_kafka_topic_partition_list_t* partitions);
    void revoke_from_group(const rd_kafka_topic_partition_list_t* partitions);
    /// The newer of this replica's restored offset and the group's committed one, else the
    /// startup mode.
    std::int64_t group_start_offset(const std::string& topic, std::int32_t partition);
    /// The group's committed offset (RD_KAFKA_OFFSET_INVALID when none), with retries.
    std::int64_t committed(const std::string& topic, std::int32_t partition);
    /// Restarts fetching `key` at `offset` after librdkafka stopped it (offset out of range).
    void resume_at(const PartitionKey& key, std::int64_t offset);
    void commit_sync(const Offsets& offsets, const char* why);

    ConsumerSettings settings_;
    SourceState restored_;
    boost::asio::any_io_executor executor_;
    std::function<void()> wake_;
    std::unique_ptr<RE2> pattern_;
    // properties.auto.offset.reset as the user gave it (librdkafka's own is always "error",
    // so that it never skips records by itself); empty when not set.
    std::string reset_policy_;
    std::int64_t last_skip_log_ms_ = 0;
    rd_kafka_t* rk_ = nullptr;
    BootstrapAgain bootstrap_again_{std::string()};  // served on the thread of on_commit
    BootstrapAgain bootstrap_again_on_watermarks_{std::string()};  // the watermark thread's
    // A lasting connection error (connection_error.h): set by on_error on the thread that serves
    // the consumer queue (the consumer thread, or the destructor after it is joined).
    std::optional<std::string> connection_error_;
    rd_kafka_queue_t* queue_ = nullptr;
    bool has_group_ = false;
    MessageDecoder decoder_;
    std::shared_ptr<RowBufferReturn> row_buffers_;

    std::map<PartitionKey, Assigned> assigned_;
    rd_kafka_topic_partition_list_t* assignment_ = nullptr;  // what is being fetched
    std::map<PartitionKey, std::int64_t> position_;  // next offset per partition, consumer thread
    std::set<std::string> warned_missing_;

    std::set<std::string> subscribed_;   // consumer thread
    Offsets handed_over_at_;             // consumer thread: where this replica gave partitions up
    std::exception_ptr callback_error_;  // thrown in the rebalance callback, rethrown after it
    std::mutex group_mutex_;
    std::condition_variable handed_over_cv_;
    std::set<PartitionKey> owned_;           // group_mutex_: assigned by the group
    Offsets last_committed_;                 // group_mutex_: of the last completed checkpoint
    std::optional<Offsets> handed_over_;     // group_mutex_: set by hand_over()
    std::int64_t hand_over_timeout_ms_ = 0;  // half of max.poll.interval.ms

    metrics::ConnectorMetrics& metrics_;
    std::int64_t queue_max_messages_ = 0;  // effective queued.min.messages
    std::int64_t queue_max_bytes_ = 0;     // effective queued.max.messages.kbytes * 1024
    std::uint64_t seen_messages_ = 0, seen_bytes_ = 0;  // for the average message size
    std::uint64_t redelivered_ = 0;  // messages below a partition's position, dropped
    std::mutex lag_mutex_;
    std::condition_variable lag_cv_;
    std::map<PartitionKey, PartitionLag> lag_;  // lag_mutex_
    bool wake_requested_ = false;               // lag_mutex_
    std::thread watermark_thread_;
    std::atomic<std::uint64_t> watermark_queries_{0};

    std::thread thread_;
    std::atomic<bool> stop_{false};
    std::atomic<std::uint64_t> skipped_{0};
    std::mutex mutex_;
    std::condition_variable not_full_;
    std::deque<Chunk> queue_chunks_;
    bool loop_waiting_ = false;

    // Split readers, on the consumer thread.
    std::uint64_t handed_on_ = 0;   // the number of the last chunk pushed
    std::uint64_t seen_epoch_ = 0;  // SchemaChangeGate::epoch() at the last look
    bool after_change_ = false;     // the next chunk pushed follows a pause, or a late join
    Chunk* building_ = nullptr;     // the chunk whose messages are being decoded
};

}  // namespace cdcd::kafka
