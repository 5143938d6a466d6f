#include "sources/kafka/kafka_source.h"

#include <spdlog/spdlog.h>

#include "pipeline/schema/schema_change_apply.h"
#include "sources/kafka/record_rate_limit.h"

namespace cdcd::kafka {

namespace asio = boost::asio;

KafkaSource::KafkaSource(ConsumerSettings settings, asio::io_context& io,
                         metrics::Registry& metrics, BadRecordSink& bad_records)
    : settings_(std::move(settings)),
      io_(io),
      metrics_(metrics, metrics::Role::Source, "kafka"),
      bad_records_(bad_records),
      wake_timer_(std::make_shared<asio::steady_timer>(io)) {
    settings_.bad_records_go_on = bad_records.policy() != BadRecordPolicy::Fail;
    if (settings_.rate_limit)
        limiter_ = std::make_unique<net::RateLimiter>(*settings_.rate_limit,
                                                      std::max(1.0, *settings_.rate_limit));
}

KafkaSource::~KafkaSource() {
    consumer_.reset();  // joins the consumer thread
}

void KafkaSource::restore(std::string_view state) {
    state_ = decode_state(state);
    schema_at_.clear();
    for (std::size_t i = 0; i < state_.schemas.size(); ++i)
        schema_at_.emplace(state_.schemas[i].first, i);
}

std::string KafkaSource::snapshot_state() {
    PendingCommit pending{state_.offsets, false};
    if (hand_over_ && !hand_over_->snapshotted) {
        hand_over_->snapshotted = true;
        pending.hands_over = true;
    }
    pending_commits_.push_back(std::move(pending));
    return encode_state(state_);
}

std::string KafkaSource::describe_state(std::string_view state) const {
    return describe_state_json(decode_state(state));
}

asio::awaitable<void> KafkaSource::notify_checkpoint_complete(std::uint64_t) {
    // Checkpoints complete in the order they were taken; commit that checkpoint's offsets.
    if (!pending_commits_.empty()) {
        PendingCommit pending = std::move(pending_commits_.front());
        pending_commits_.pop_front();
        if (consumer_) consumer_->commit(pending.offsets);
        if (split_) split_->commit(pending.offsets);
        if (pending.hands_over) finish_hand_over(pending.offsets);
    }
    // A checkpoint taken before the hand-over began does not cover it: ask for the next one.
    if (hand_over_ && !hand_over_->snapshotted && output_) output_->request_checkpoint();
    co_return;
}

void KafkaSource::begin_hand_over(std::vector<PartitionKey> partitions) {
    bool read_any = false;
    for (const auto& key : partitions) read_any = read_any || state_.offsets.count(key);
    if (!read_any || !consumer_) {
        // Nothing read from them, nothing to commit: the next owner starts as this one did.
        if (consumer_) consumer_->hand_over({});
        return;
    }
    hand_over_ = HandOver{std::move(partitions), false};
    if (output_) output_->request_checkpoint();
}

void KafkaSource::finish_hand_over(const Offsets& checkpointed) {
    if (!hand_over_) return;
    Offsets offsets;
    for (const auto& key : hand_over_->partitions) {
        if (auto it = checkpointed.find(key); it != checkpointed.end()) offsets.insert(*it);
        // No longer ours: neither in our later checkpoints nor in their commits.
        state_.offsets.erase(key);
        for (auto& pending : pending_commits_) pending.offsets.erase(key);
    }
    hand_over_.reset();
    consumer_->hand_over(std::move(offsets));
}

void KafkaSource::track_schemas(const EventBatch& events) {
    for (const Event& e : events) {
        if (is_data_change(e)) continue;
        auto change = *as_schema_change(e);
        TableId id = table_of(e);
        // Looked up by hash: a source may track thousands of tables (scan.max-tables).
        auto [at, fresh] = schema_at_.emplace(id, state_.schemas.size());
        if (fresh) {
            state_.schemas.emplace_back(id, apply_schema_change(Schema{}, change));
        } else {
            Schema& schema = state_.schemas[at->second].second;
            schema = apply_schema_change(schema, change);
        }
    }
}

asio::awaitable<void> KafkaSource::run(SourceOutput& output) {
    output_ = &output;
    struct Forget {
        SourceOutput*& output;
        ~Forget() { output = nullptr; }
    } forget{output_};
    std::weak_ptr<asio::steady_timer> timer = wake_timer_;
    consumer_ = std::make_unique<KafkaConsumer>(
        settings_, state_, io_.get_executor(),
        [timer] {
            if (auto t = timer.lock()) t->cancel();
        },
        metrics_, row_buffers_);
    consumer_->start();
    Chunk chunk;
    while (co_await consumer_->next_chunk(chunk, *wake_timer_, output)) {
        if (!chunk.revoked.empty()) {
            begin_hand_over(std::move(chunk.revoked));
            chunk = Chunk{};
            continue;
        }
        // Before the state advances: a checkpoint taken while waiting must not cover them.
        if (!co_await wait_for_record_rate(limiter_.get(), chunk.events, output, metrics_))
            co_return;
        // Advance the state past these events before emitting them.
        for (const auto& [key, offset] : chunk.offsets) state_.offsets[key] = offset;
        // With the offsets past them: their dead-letter lines join the next checkpoint.
        for (auto& bad : chunk.bad_records) bad_records_.handle(std::move(bad));
        track_schemas(chunk.events);
        if (chunk.end) {
            if (consumer_->skipped() > 0)
                spdlog::warn("kafka source: {} unparsable messages were skipped",
                             consumer_->skipped());
            co_return;
        }
        if (!chunk.events.empty()) co_await output.emit(std::move(chunk.events));
        chunk = Chunk{};
    }
}

std::vector<std::unique_ptr<SourceReader>> KafkaSource::split_readers(std::size_t count) {
    std::vector<std::unique_ptr<SourceReader>> readers;
    if (count < 2) return readers;
    if (settings_.consumer_group) {
        spdlog::info(
            "kafka source: one consumer in this replica; scan.consumer-group.enabled shares the "
            "partitions among replicas");
        return readers;
    }
    auto gate = std::make_shared<SchemaChangeGate>(count, state_.schemas);
    split_ = std::make_shared<SplitHandOff>();
    for (std::size_t i = 0; i < count; ++i) {
        ConsumerSettings settings = settings_;
        settings.share = i;
        settings.shares = count;
        settings.gate = gate;
        readers.push_back(std::make_unique<KafkaSplitReader>(std::move(settings), state_, metrics_,
                                                             row_buffers_, split_));
    }
    spdlog::info("kafka source: {} consumers, each reading its share of the partitions", count);
    return readers;
}

std::string KafkaSource::merge_reader_states(const std::vector<std::string>& states) {
    // Each reader has the offsets of its partitions; a partition no reader has read keeps the
    // restored one. Each table takes the schema of its latest change, whichever reader made it.
    // The readers' bad records up to this barrier: handled here, they join its checkpoint.
    if (split_)
        for (BadRecord& bad : split_->take_bad_records()) bad_records_.handle(std::move(bad));
    std::map<TableId, ChangedSchema> latest;
    for (const std::string& blob : states) {
        ReaderState reader = decode_reader_state(blob);
        for (const auto& [key, offset] : reader.offsets) state_.offsets[key] = offset;
        for (ChangedSchema& c : reader.changed) {
            auto it = latest.find(c.table);
            if (it == latest.end())
                latest.emplace(c.table, std::move(c));
            else if (c.change > it->second.change)
                it->second = std::move(c);
        }
    }
    std::vector<ChangedSchema> in_order;  // new tables are listed in the order they came
    in_order.reserve(latest.size());
    for (auto& [table, c] : latest) in_order.push_back(std::move(c));
    std::sort(in_order.begin(), in_order.end(),
              [](const ChangedSchema& a, const ChangedSchema& b) { return a.change < b.change; });
    for (ChangedSchema& c : in_order) {
        auto [at, fresh] = schema_at_.emplace(c.table, state_.schemas.size());
        if (fresh)
            state_.schemas.emplace_back(c.table, std::move(c.schema));
        else
            state_.schemas[at->second].second = std::move(c.schema);
    }
    pending_commits_.push_back(PendingCommit{state_.offsets, false});
    return encode_state(state_);
}

}  // namespace cdcd::kafka
