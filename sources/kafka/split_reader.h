#pragma once
// A share of the Kafka source's partitions (partition_share()), read by a consumer of its own
// and emitted on one of the pipeline's threads (Source::split_readers), so that a topic's
// partitions are decoded on as many threads as the pipeline has writers. The readers infer
// one set of schemas together: a change made by one waits for the rows the others built
// before it, and theirs built after it follow it (pipeline/connector/schema_change_gate.h).
//
// A reader's state is the next offset of each of its partitions, and the schemas its own
// changes left, numbered so that KafkaSource::merge_reader_states keeps each table's latest.
#include <boost/asio/steady_timer.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/connector_metrics.h"
#include "net/rate_limiter.h"
#include "pipeline/connector/source.h"
#include "sources/kafka/kafka_consumer.h"

namespace cdcd::kafka {

/// What a source's readers hand to the source, on the event loop: their consumers, for the
/// offset commits of completed checkpoints, and their bad records, cut at each barrier.
class SplitHandOff {
  public:
    void add(KafkaConsumer* consumer);
    void remove(KafkaConsumer* consumer);
    /// Through any of them: the group takes any partition's offset from any consumer.
    void commit(const Offsets& offsets);
    /// A reader's bad records up to its barrier (its offsets in the checkpoint cover them).
    void cut_bad_records(std::vector<BadRecord> records);
    /// Those cut since the last call: KafkaSource::merge_reader_states hands them to the
    /// pipeline's bad-record policy, so that they join the checkpoint being merged.
    std::vector<BadRecord> take_bad_records();

  private:
    std::mutex mutex_;
    std::vector<KafkaConsumer*> consumers_;
    std::vector<BadRecord> bad_records_;
};

/// A reader's state (snapshot_state()).
struct ReaderState {
    Offsets offsets;
    std::vector<ChangedSchema> changed;
};
std::string encode_reader_state(const ReaderState& state);
/// Throws std::runtime_error on a malformed blob.
ReaderState decode_reader_state(std::string_view blob);

class KafkaSplitReader final : public SourceReader {
  public:
    /// `settings` name this reader's share and the readers' gate; `restored` is the source's
    /// state, of which the reader keeps its partitions' offsets.
    KafkaSplitReader(ConsumerSettings settings, const SourceState& restored,
                     metrics::ConnectorMetrics& metrics,
                     std::shared_ptr<RowBufferReturn> row_buffers,
                     std::shared_ptr<SplitHandOff> hand_off);
    ~KafkaSplitReader() override;

    boost::asio::awaitable<void> run(SourceOutput& output) override;
    std::string snapshot_state() override;

  private:
    ConsumerSettings settings_;
    ReaderState state_;                          // as of the last chunk emitted
    std::map<TableId, std::size_t> changed_at_;  // state_.changed's index of a table
    metrics::ConnectorMetrics& metrics_;
    std::shared_ptr<RowBufferReturn> row_buffers_;
    std::shared_ptr<SplitHandOff> hand_off_;
    std::unique_ptr<net::RateLimiter> limiter_;  // this reader's part of the source's rate
    std::vector<BadRecord> bad_records_;         // since the last barrier, with state_ past them
    std::shared_ptr<boost::asio::steady_timer> wake_timer_;
    std::unique_ptr<KafkaConsumer> consumer_;
};

}  // namespace cdcd::kafka
