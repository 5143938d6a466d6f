#pragma once
// The `kafka` source: consumes topics (a list or a pattern), decodes json / debezium-json /
// canal-json messages into change events with inferred schemas, and checkpoints offsets (next
// offset per partition, advanced before the events are emitted) plus the inferred schemas.
// Restored offsets override scan.startup.mode. When a checkpoint completes, its offsets are
// committed to the consumer group (properties.group.id).
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <deque>
#include <memory>
#include <unordered_map>

#include "net/rate_limiter.h"
#include "pipeline/connector/bad_records.h"
#include "pipeline/connector/source.h"
#include "pipeline/metrics/connector_metrics.h"
#include "sources/kafka/kafka_consumer.h"

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

  private:
    void track_schemas(const EventBatch& events);
    /// scan.rate-limit.records-per-second: waits until the chunk's change records may go;
    /// false when the pipeline stops meanwhile.
    boost::asio::awaitable<bool> throttle(const EventBatch& events, SourceOutput& output);

    ConsumerSettings settings_;
    boost::asio::io_context& io_;
    metrics::ConnectorMetrics metrics_;  // records_in, bytes_in, consumer lag
    BadRecordSink& bad_records_;
    SourceState state_;  // as of the last emitted event (event loop)
    std::unordered_map<TableId, std::size_t> schema_at_;  // state_.schemas' index of a table
    std::deque<Offsets> pending_commits_;  // snapshots awaiting their checkpoint, in order
    std::shared_ptr<boost::asio::steady_timer> wake_timer_;
    std::unique_ptr<KafkaConsumer> consumer_;
    std::unique_ptr<net::RateLimiter> limiter_;  // scan.rate-limit.records-per-second
};

}  // namespace cdcd::kafka
