#pragma once
// The `kafka` sink (Flink CDC's KafkaDataSink): data changes serialized as debezium-json or
// canal-json with a JSON or CSV key, to a topic chosen per table; schema changes are not written.
//
// Delivery (sink.delivery-guarantee):
//   none           records are handed to librdkafka; nothing is awaited at checkpoints.
//   at-least-once  each checkpoint's flush waits for every delivery report; any delivery error
//                  fails the pipeline (records are never dropped). A restart replays from the
//                  last checkpoint, so records after it may be written twice.
//   exactly-once   one Kafka transaction per checkpoint for the whole sink (its writers share
//                  the transactional ids `cdcd-P-0-0`..`cdcd-P-0-2`, a small pool because
//                  checkpoint N's transaction waits for its commit while N+1's records are
//                  already being written), flushed at the barrier with a commit marker (a
//                  transactional offset commit of group `cdcd-eos-P`) and committed in
//                  notify_checkpoint_complete. On start every id is initialised, which fences a
//                  previous (crashed) cdcd and completes or aborts its transactions; the markers
//                  then tell which of the transactions pending at the restored checkpoint
//                  committed, and the pipeline resumes from the checkpoint before the first one
//                  that did not, so its records are written again, once (see transactions.h).
//
// Records refused for themselves (record_rejection.h): one larger than the producer's
// message.max.bytes is refused by produce(), before it is queued, and goes to the bad-record
// policy under every guarantee (fail: the pipeline stops, naming topic, key and size; skip /
// dead-letter: the pipeline goes on). A refusal in a delivery report (the broker's topic-level
// max.message.bytes, INVALID_RECORD) fails the pipeline under every policy: the broker refuses
// the whole batch the record travelled in, so the report cannot tell the bad record from the
// good ones with it, and in a transaction the failure makes the transaction abortable (it is
// aborted and the checkpoint's records are replayed after a restart). The error names the topic,
// the first failed record's key and its size; set properties.max.request.size to at most the
// topic's max.message.bytes so such records are caught at produce().
#include <memory>
#include <optional>

#include "metrics/registry.h"
#include "pipeline/connector/bad_records.h"
#include "pipeline/connector/sink.h"
#include "sinks/kafka/kafka_sink_options.h"
#include "sinks/kafka/writer_state.h"

namespace cdcd::kafka {

class Transactions;

class KafkaSink final : public Sink {
  public:
    /// `metrics` receives records_out (acknowledged records), bytes_out and errors (failed
    /// deliveries and produce calls).
    /// Writer i hands records the producer refuses at produce() to bad_records.writer(i).
    explicit KafkaSink(KafkaSinkSettings settings,
                       metrics::Registry& metrics = metrics::Registry::detached(),
                       BadRecordHandlers& bad_records = BadRecordHandlers::detached());
    ~KafkaSink() override;
    std::unique_ptr<SinkWriter> create_writer(int index, int parallelism) override;
    MetadataApplier& metadata_applier() override { return *applier_; }
    /// Each writer has a producer of its own, except under exactly-once, where the writers share
    /// the sink's transactional producers.
    bool writers_are_independent() const override;
    /// Every writer of the new parallelism restores from the old writers' states merged
    /// (writer_state.h): the records go to topics and partitions whatever writer sends them, and
    /// the transactions are the sink's, not a writer's.
    std::vector<std::optional<std::string>> rescale_writer_states(
        const std::vector<std::string>& states, int parallelism) const override;

    /// Resuming from a checkpoint an exactly-once run took: its transactions not known committed
    /// are settled (the run's transactional ids fenced, which aborts what it left open; their
    /// commit markers read), and the answer is the checkpoint to resume from
    /// (SinkWriter::recoverable_checkpoint). Also without exactly-once now, and with other
    /// transactional ids now (sink.transactional-id-prefix or pipeline.name changed): left alone,
    /// an open transaction would hold read_committed consumers back until its timeout and then
    /// be aborted, its records lost. Asked by every writer; settled once.
    std::uint64_t settle_leftover_transactions(const TransactionsState& state, std::uint64_t id);

  private:
    struct Settled {
        TransactionsState state;
        std::uint64_t id = 0;
        std::uint64_t answer = 0;
    };
    KafkaSinkSettings settings_;
    metrics::Registry& metrics_;
    BadRecordHandlers& bad_records_;
    std::unique_ptr<MetadataApplier> applier_;
    std::unique_ptr<Transactions> transactions_;  // exactly-once, shared by the writers
    std::optional<Settled> settled_;              // settle_leftover_transactions' last answer
};

}  // namespace cdcd::kafka
