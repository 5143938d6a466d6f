#pragma once
// The `postgres` source: a snapshot of the captured tables consistent with a logical replication
// slot, then the slot's changes decoded from pgoutput. The reader thread (replication_reader.h)
// does the blocking libpq work; this class, on the event loop, emits its chunks, keeps the
// position (state_codec.h) and, when a checkpoint is durable, lets the slot advance to the LSN of
// the checkpoint scan.lsn-commit.checkpoints-num-delay checkpoints back.
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <deque>
#include <memory>

#include "metrics/connector_metrics.h"
#include "metrics/progress.h"
#include "pipeline/connector/bad_records.h"
#include "pipeline/connector/source.h"
#include "sources/postgres/options.h"
#include "sources/postgres/replication_reader.h"
#include "sources/postgres/state_codec.h"

namespace cdcd::postgres {

class PostgresSource final : public Source {
  public:
    PostgresSource(PostgresSettings settings, boost::asio::io_context& io,
                   metrics::Registry& metrics = metrics::Registry::detached(),
                   BadRecordSink& bad_records = BadRecordHandlers::detached().source());
    ~PostgresSource() override;

    void restore(std::string_view state) override;
    boost::asio::awaitable<void> run(SourceOutput& output) override;
    std::string snapshot_state() override;
    boost::asio::awaitable<void> notify_checkpoint_complete(std::uint64_t id) override;
    std::string describe_state(std::string_view state) const override;

  private:
    void track_schemas(const EventBatch& events);

    PostgresSettings settings_;
    boost::asio::io_context& io_;
    metrics::Registry& registry_;
    metrics::ConnectorMetrics metrics_;
    /// The snapshot's rows read, logged every 10 s and in /metrics while it lasts.
    std::unique_ptr<metrics::ProgressReporter> snapshot_progress_;
    BadRecordSink& bad_records_;
    SourceState state_;  // as of the last emitted event
    bool restored_ = false;
    struct Taken {
        Lsn lsn = 0;               // the streaming LSN (0: none yet)
        std::uint64_t intent = 0;  // the reader's last intent chunk it holds
    };
    std::deque<Taken> snapshotted_;  // each checkpoint taken, not yet complete
    std::uint64_t intent_ = 0;       // the last intent chunk emitted
    bool intent_waits_ = false;      // the reader waits for a checkpoint holding intent_
    std::deque<Lsn> completed_;      // the LSNs of the last completed checkpoints, oldest first
    std::shared_ptr<boost::asio::steady_timer> wake_timer_;
    std::unique_ptr<ReplicationReader> reader_;
};

}  // namespace cdcd::postgres
