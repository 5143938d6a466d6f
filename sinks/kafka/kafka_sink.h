#pragma once
// The `kafka` sink (Flink CDC's KafkaDataSink): data changes serialized as debezium-json or
// canal-json with a JSON or CSV key, to a topic chosen per table; schema changes are not written.
//
// Delivery (sink.delivery-guarantee):
//   none           records are handed to librdkafka; nothing is awaited at checkpoints.
//   at-least-once  each checkpoint's flush waits for every delivery report; any delivery error
//                  fails the pipeline (records are never dropped). A restart replays from the
//                  last checkpoint, so records after it may be written twice.
//   exactly-once   writer i of pipeline P owns transactional ids `cdcd-P-i-0`, `cdcd-P-i-1`,
//                  `cdcd-P-i-2` (a small pool, because checkpoint N's transaction waits for its
//                  commit while N+1's records are already being written). Records between two
//                  barriers go into one transaction, flushed at the barrier and committed in
//                  notify_checkpoint_complete. On start every id is initialised, which fences a
//                  previous (crashed) cdcd and aborts its open transactions, so uncommitted
//                  records are never visible to read_committed consumers and the replay from the
//                  checkpoint writes them once. Window: a crash after a checkpoint is durable but
//                  before its commit reaches the broker aborts that checkpoint's records
//                  (librdkafka cannot resume another producer's transaction, unlike Flink's
//                  recommit).
#include <memory>

#include "pipeline/connector/sink.h"
#include "pipeline/metrics/registry.h"
#include "sinks/kafka/kafka_sink_options.h"

namespace cdcd::kafka {

class KafkaSink final : public Sink {
  public:
    /// `metrics` receives records_out (acknowledged records), bytes_out and errors (failed
    /// deliveries and produce calls).
    explicit KafkaSink(KafkaSinkSettings settings,
                       metrics::Registry& metrics = metrics::Registry::detached());
    std::unique_ptr<SinkWriter> create_writer(int index, int parallelism) override;
    MetadataApplier& metadata_applier() override { return *applier_; }

  private:
    KafkaSinkSettings settings_;
    metrics::Registry& metrics_;
    std::unique_ptr<MetadataApplier> applier_;
};

}  // namespace cdcd::kafka
