#pragma once
// The `kafka` source: consumes topics (a list or a pattern), decodes json / debezium-json /
// canal-json messages into change events with inferred schemas, and checkpoints offsets (next
// offset per partition, advanced before the events are emitted) plus the inferred schemas.
// Restored offsets override scan.startup.mode. When a checkpoint completes, its offsets are
// committed to the consumer group (properties.group.id).
//
// With scan.consumer-group.enabled, a hand-over chunk (partitions the group revokes) asks the
// runtime for a checkpoint at once; when the first checkpoint taken after it completes, the
// partitions' offsets in it go back to the consumer, which commits them to the group before
// giving the partitions up, and they leave this replica's state.
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <deque>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "metrics/connector_metrics.h"
#include "net/rate_limiter.h"
#include "pipeline/connector/bad_records.h"
#include "pipeline/connector/source.h"
#include "sources/kafka/kafka_consumer.h"
#include "sources/kafka/split_reader.h"

namespace cdcd::kafka {

class KafkaSource final : public Source {
  public:
    KafkaSource(ConsumerSettings settings, boost::asio::io_context& io,
                metrics::Registry& metrics = metrics::Registry::detached(),
                BadRecordSink& bad_records = BadRecordHandlers::detached().source());
    ~KafkaSource() override;

    void restore(std::string_view state) override;
    boost::asio::awaitable<void> run(SourceOutput& output) override;
    std::string snapshot_state() override;
    boost::asio::awaitable<void> notify_checkpoint_complete(std::uint64_t id) override;
    std::string describe_state(std::string_view state) const override;
    /// A share of the partitions per reader (split_reader.h), unless the consumer group shares
    /// them among replicas.
    std::vector<std::unique_ptr<SourceReader>> split_readers(std::size_t count) override;
    /// Also hands the readers' bad records up to this barrier to the bad-record policy.
    std::string merge_reader_states(const std::vector<std::string>& states) override;
    /// Rows are built on the consumer thread.
    std::shared_ptr<RowBufferReturn> row_buffer_return() const override { return row_buffers_; }

  private:
    void track_schemas(const EventBatch& events);

    /// Consumer group: `partitions` are being revoked; hands them over once a checkpoint covers
    /// everything read from them.
    void begin_hand_over(std::vector<PartitionKey> partitions);
    void finish_hand_over(const Offsets& checkpointed);

    struct PendingCommit {
        Offsets offsets;
        bool hands_over = false;  // the first snapshot taken after the pending hand-over
    };
    struct HandOver {
        std::vector<PartitionKey> partitions;
        bool snapshotted = false;
    };

    ConsumerSettings settings_;
    boost::asio::io_context& io_;
    metrics::ConnectorMetrics metrics_;  // records_in, bytes_in, consumer lag
    BadRecordSink& bad_records_;
    SourceState state_;  // as of the last emitted event (event loop)
    std::unordered_map<TableId, std::size_t> schema_at_;  // state_.schemas' index of a table
    std::deque<PendingCommit> pending_commits_;  // snapshots awaiting their checkpoint, in order
    std::optional<HandOver> hand_over_;          // revoked partitions awaiting a checkpoint
    SourceOutput* output_ = nullptr;             // while run() runs: to ask for a checkpoint
    std::shared_ptr<boost::asio::steady_timer> wake_timer_;
    std::shared_ptr<RowBufferReturn> row_buffers_ = std::make_shared<RowBufferReturn>();
    std::unique_ptr<KafkaConsumer> consumer_;
    std::unique_ptr<net::RateLimiter> limiter_;  // scan.rate-limit.records-per-second
    std::shared_ptr<SplitHandOff> split_;        // when read by split readers
};

}  // namespace cdcd::kafka
