#include "sources/kafka/split_reader.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/this_coro.hpp>
#include <charconv>
#include <stdexcept>
#include <utility>

#include "sources/kafka/record_rate_limit.h"

namespace cdcd::kafka {

namespace asio = boost::asio;

void SplitHandOff::add(KafkaConsumer* consumer) {
    std::lock_guard lock(mutex_);
    consumers_.push_back(consumer);
}

void SplitHandOff::remove(KafkaConsumer* consumer) {
    std::lock_guard lock(mutex_);
    consumers_.erase(std::remove(consumers_.begin(), consumers_.end(), consumer), consumers_.end());
}

void SplitHandOff::commit(const Offsets& offsets) {
    std::lock_guard lock(mutex_);
    if (!consumers_.empty()) consumers_.front()->commit(offsets);
}

void SplitHandOff::cut_bad_records(std::vector<BadRecord> records) {
    if (records.empty()) return;
    std::lock_guard lock(mutex_);
    for (BadRecord& r : records) bad_records_.push_back(std::move(r));
}

std::vector<BadRecord> SplitHandOff::take_bad_records() {
    std::lock_guard lock(mutex_);
    return std::exchange(bad_records_, {});
}

// The change numbers on a line of their own, in the order of the schemas, then the source's own
// state format with the offsets and the changed schemas.
std::string encode_reader_state(const ReaderState& state) {
    SourceState source;
    source.offsets = state.offsets;
    std::string numbers;
    for (const ChangedSchema& c : state.changed) {
        numbers += (numbers.empty() ? "" : " ") + std::to_string(c.change);
        source.schemas.emplace_back(c.table, c.schema);
    }
    return numbers + "\n" + encode_state(source);
}

ReaderState decode_reader_state(std::string_view blob) {
    const std::size_t end = blob.find('\n');
    if (end == std::string_view::npos)
        throw std::runtime_error("kafka source: a split reader's state has no change numbers");
    std::vector<std::uint64_t> numbers;
    for (std::size_t pos = 0; pos < end;) {
        std::uint64_t n = 0;
        auto [ptr, ec] = std::from_chars(blob.data() + pos, blob.data() + end, n);
        if (ec != std::errc())
            throw std::runtime_error("kafka source: a split reader's change numbers are malformed");
        numbers.push_back(n);
        pos = static_cast<std::size_t>(ptr - blob.data()) + 1;
    }
    SourceState source = decode_state(blob.substr(end + 1));
    if (source.schemas.size() != numbers.size())
        throw std::runtime_error("kafka source: a split reader's state has " +
                                 std::to_string(numbers.size()) + " change numbers for " +
                                 std::to_string(source.schemas.size()) + " schemas");
    ReaderState state;
    state.offsets = std::move(source.offsets);
    for (std::size_t i = 0; i < numbers.size(); ++i)
        state.changed.push_back(ChangedSchema{source.schemas[i].first, numbers[i],
                                              std::move(source.schemas[i].second)});
    return state;
}

KafkaSplitReader::KafkaSplitReader(ConsumerSettings settings, const SourceState& restored,
                                   metrics::ConnectorMetrics& metrics,
                                   std::shared_ptr<RowBufferReturn> row_buffers,
                                   std::shared_ptr<SplitHandOff> hand_off)
    : settings_(std::move(settings)),
      metrics_(metrics),
      row_buffers_(std::move(row_buffers)),
      hand_off_(std::move(hand_off)) {
    // The reader's partitions only: its state must not carry another reader's offsets back.
    for (const auto& [key, offset] : restored.offsets)
        if (partition_share(key.first, key.second, settings_.shares) == settings_.share)
            state_.offsets.emplace(key, offset);
    if (settings_.rate_limit) {
        // The source's rate, shared among its readers.
        const double rate = *settings_.rate_limit / static_cast<double>(settings_.shares);
        limiter_ = std::make_unique<net::RateLimiter>(rate, std::max(1.0, rate));
    }
}

KafkaSplitReader::~KafkaSplitReader() {
    if (consumer_) hand_off_->remove(consumer_.get());
    consumer_.reset();  // joins the consumer's threads
}

std::string KafkaSplitReader::snapshot_state() {
    hand_off_->cut_bad_records(std::exchange(bad_records_, {}));
    return encode_reader_state(state_);
}

asio::awaitable<void> KafkaSplitReader::run(SourceOutput& output) {
    auto executor = co_await asio::this_coro::executor;
    wake_timer_ = std::make_shared<asio::steady_timer>(executor);
    std::weak_ptr<asio::steady_timer> timer = wake_timer_;
    // Its partitions' restored offsets; the schemas come from the gate (SchemaChangeGate::join).
    consumer_ = std::make_unique<KafkaConsumer>(
        settings_, SourceState{state_.offsets, {}}, executor,
        [timer] {
            if (auto t = timer.lock()) t->cancel();
        },
        metrics_, row_buffers_);
    hand_off_->add(consumer_.get());
    consumer_->start();
    SchemaChangeGate& gate = *settings_.gate;
    const std::size_t share = settings_.share;
    bool after_change = false;  // the next rows emitted were built on another reader's change
    Chunk chunk;
    while (co_await consumer_->next_chunk(chunk, *wake_timer_, output)) {
        // A change of this reader's goes after the rows the others built before it. Waited for
        // here, not in emit(): a barrier asked of this reader meanwhile goes out at once.
        while (chunk.holds_change && !gate.all_sent(chunk.waits_for)) {
            if (output.stopping()) co_return;
            co_await output.sleep(1);
        }
        if (!co_await wait_for_record_rate(limiter_.get(), chunk.events, output, metrics_))
            co_return;
        // Advance the state past these events before emitting them.
        for (const auto& [key, offset] : chunk.offsets) state_.offsets[key] = offset;
        // With the offsets past them: they join the checkpoint that has those offsets.
        for (BadRecord& bad : chunk.bad_records) bad_records_.push_back(std::move(bad));
        for (ChangedSchema& c : chunk.changed) {
            auto [at, fresh] = changed_at_.emplace(c.table, state_.changed.size());
            if (fresh)
                state_.changed.push_back(std::move(c));
            else
                state_.changed[at->second] = std::move(c);
        }
        after_change = after_change || chunk.after_change;
        if (chunk.end) {
            gate.sent(share, chunk.number);
            if (consumer_->skipped() > 0)
                spdlog::warn("kafka source: {} unparsable messages were skipped",
                             consumer_->skipped());
            co_return;
        }
        if (!chunk.events.empty()) {
            // A change of this reader's goes through the loop too: it has schema events.
            if (after_change || chunk.holds_change)
                co_await output.emit_after_schema_changes(std::move(chunk.events));
            else
                co_await output.emit(std::move(chunk.events));
            after_change = false;
        }
        gate.sent(share, chunk.number);
        if (chunk.holds_change) gate.release(share, chunk.number);
        chunk = Chunk{};
    }
}

}  // namespace cdcd::kafka
