#pragma once
// Exactly-once delivery of the Kafka sink: one Kafka transaction per checkpoint for the whole sink,
// shared by its writers, with a commit marker that tells a restarted cdcd whether it committed.
//
// Records between barriers N-1 and N of every writer go into one transaction (so the output of
// checkpoint N becomes visible all at once, whatever the parallelism). When the last writer
// reaches barrier N, the transaction is flushed and, still inside it, the consumer-group offset
// N is committed for the sink's marker group `cdcd-eos-<pipeline>` on partition 0 of a topic the
// transaction wrote to (TxnOffsetCommit; the group is never joined). The transaction is then
// prepared; notify_checkpoint_complete(N) commits it once checkpoint N is durable. Prepared
// transactions are committed strictly in checkpoint order, so after a crash the committed ones
// are a prefix of those that were pending.
//
// librdkafka cannot resume another producer's transaction (Flink's recommit), so a crash between
// checkpoint N becoming durable and its commit reaching the broker makes the next start abort it
// (init_transactions). The checkpoint records the transactions prepared and not yet known
// committed; on resume, after init_transactions has completed or aborted each of them, the
// marker group's committed offsets (read with isolation.level=read_committed) say which ones
// committed, and the runtime resumes from the checkpoint before the first that did not
// (SinkWriter::recoverable_checkpoint), so the source replays exactly the lost records.
//
// Offsets carry a random token as their metadata, kept in the checkpoints: offsets committed by
// an earlier history of the pipeline (before --reset-state) never count as markers.
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/util/blocking_calls.h"
#include "sinks/kafka/kafka_sink_options.h"
#include "sinks/kafka/producer.h"
#include "sinks/kafka/writer_state.h"

namespace cdcd::kafka {

/// Delivery reports of producers already counted in the metrics.
struct DeliveryCounts {
    std::uint64_t delivered = 0;
    std::uint64_t failed = 0;
};

class Transactions {
  public:
    static constexpr std::size_t kSlots = 3;

    /// Creates the transactional producers `cdcd-<pipeline>-0-<slot>` and initialises them,
    /// which fences a previous cdcd and completes or aborts its transactions (blocking).
    Transactions(const KafkaSinkSettings& settings, const ProducerSettings& producer_settings,
                 std::size_t writers);
    ~Transactions();

    std::vector<Producer*> producers() const;
    /// What the writers have counted of these producers' delivery reports (shared, so that
    /// writers sharing the producers count each report once).
    DeliveryCounts& reported_deliveries() { return reported_; }

    /// The slot whose transaction takes the records a writer writes after its `epoch`-th
    /// barrier; waits while every slot is busy (a commit frees one).
    boost::asio::awaitable<std::size_t> slot_for(std::uint64_t epoch);
    /// Before producing into `slot`: begins its transaction the first time; the topic of its
    /// first record becomes the transaction's marker topic.
    void begin_if_needed(std::size_t slot, rd_kafka_topic_t* topic);
    /// A writer reached barrier `checkpoint`, which ends its `epoch`. The last writer to arrive
    /// flushes the epoch's transaction, writes its commit marker and prepares it; every writer
    /// returns once that is done. Throws on delivery errors.
    boost::asio::awaitable<void> arrive(std::uint64_t epoch, std::uint64_t checkpoint);
    /// Commits, in order, the prepared transactions of checkpoints up to `checkpoint`.
    boost::asio::awaitable<void> commit_through(std::uint64_t checkpoint);
    /// A writer closes; the last one aborts the transactions no checkpoint covers.
    boost::asio::awaitable<void> close();
    /// Throws when `producer`, waited on since its start_waiting(), has acknowledged no record
    /// for the stall limit (transaction_stall_limit): every wait on a transactional producer
    /// ends there, whether for room in its queue, a flush or a checkpoint.
    void check_stalled(Producer& producer) const;

    /// For the checkpoint being taken.
    TransactionsState state() const;
    /// Resuming: the token of the checkpoint restored (its history continues).
    void restore(const TransactionsState& state);
    /// Resuming from a checkpoint `id` with this state: the newest checkpoint whose
    /// transactions all committed (`id` when none is missing). Blocking (reads the markers, once
    /// for all the writers that share these transactions and ask with the same state).
    std::uint64_t recoverable(const TransactionsState& state, std::uint64_t id) const;

  private:
    enum class Slot { Free, Reserved, Open, Prepared };
    struct Prepared {
        std::size_t slot = 0;
        std::string topic;
    };
    boost::asio::awaitable<void> flush(Producer& producer);
    /// recoverable(), reading the markers.
    std::uint64_t recoverable_from_markers(const TransactionsState& state, std::uint64_t id) const;

    const KafkaSinkSettings& settings_;
    std::size_t writers_;
    std::string group_;
    std::string token_;
    std::vector<std::unique_ptr<Producer>> producers_;
    std::vector<Slot> slots_;
    std::vector<std::string> marker_topic_;            // by slot, for its open transaction
    std::map<std::uint64_t, std::size_t> epoch_slot_;  // writer epoch → slot
    std::map<std::uint64_t, std::size_t> arrivals_;    // writer epoch → writers at its barrier
    std::uint64_t epochs_prepared_ = 0;                // epochs below this are prepared
    std::map<std::uint64_t, Prepared> prepared_;       // checkpoint → transaction awaiting commit
    bool committing_ = false;
    // The last answer of recoverable(): the writers ask in turn, on resume, with states that
    // are the same unless a commit came between their barriers.
    struct RecoverableAnswer {
        TransactionsState state;
        std::uint64_t id = 0;
        std::uint64_t answer = 0;
    };
    mutable std::optional<RecoverableAnswer> recoverable_answer_;
    DeliveryCounts reported_;
    std::size_t closed_ = 0;
    // Last: joined before the producers are destroyed. A call still running 10 s into the
    // teardown (one that outran its limit: transactions.cpp) ends the process instead.
    BlockingCalls blocking_calls_{"kafka sink transactions",
                                  "(librdkafka cannot cancel them; a transaction commit or abort "
                                  "may take up to its timeout)",
                                  std::chrono::seconds(10)};
};

}  // namespace cdcd::kafka
