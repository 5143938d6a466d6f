#include "sinks/kafka/kafka_sink.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <stdexcept>
#include <unordered_map>

#include "formats/csv/csv_key.h"
#include "formats/json/change_key.h"
#include "metrics/connector_metrics.h"
#include "pipeline/schema/schema_change_apply.h"
#include "pipeline/schema/schema_json.h"
#include "pipeline/util/blocking_calls.h"
#include "sinks/kafka/producer_config.h"
#include "sinks/kafka/prompt_send.h"
#include "sinks/kafka/record_rejection.h"
#include "sinks/kafka/topic_selector.h"
#include "sinks/kafka/transactions.h"
#include "sinks/kafka/writer_state.h"

namespace cdcd::kafka {

namespace asio = boost::asio;
using asio::awaitable;

namespace {

// Schema changes are accepted and not written (Flink's KafkaMetaDataApplier does nothing).
class AcceptAll final : public MetadataApplier {
  public:
    awaitable<void> apply(const SchemaChangeEvent&) override { co_return; }
};

constexpr int kFlushSliceMs = 1'000;

awaitable<void> sleep_ms(int ms) {
    asio::steady_timer timer(co_await asio::this_coro::executor, std::chrono::milliseconds(ms));
    co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
}

ProducerSettings producer_settings(const KafkaSinkSettings& settings) {
    ProducerSettings ps;
    ps.config = producer_config(settings);
    ps.hash_by_key = settings.hash_by_key;
    return ps;
}

/// Without exactly-once: what a restore does with the transactions an exactly-once run listed in
/// the checkpoint (KafkaSink::settle_leftover_transactions).
using SettleLeftovers = std::function<std::uint64_t(const TransactionsState&, std::uint64_t)>;

class KafkaWriter final : public SinkWriter {
  public:
    /// `transactions`: the sink's, shared by its writers (exactly-once), else null.
    KafkaWriter(const KafkaSinkSettings& settings, Transactions* transactions,
                SettleLeftovers settle_leftovers, metrics::Registry& registry,
                BadRecordSink& bad_records)
        : settings_(settings),
          bad_records_(bad_records),
          selector_(settings.topic, settings.topic_mapping),
          txn_(transactions),
          settle_leftovers_(std::move(settle_leftovers)),
          metrics_(registry, metrics::Role::Sink, "kafka") {
        if (txn_) {
            producers_ = txn_->producers();
            reported_ = &txn_->reported_deliveries();  // the producers are the sink's
            active_ = kNone;  // a slot is taken at the first write of each checkpoint
        } else {
            own_producer_ = std::make_unique<Producer>(producer_settings(settings));
            producers_.push_back(own_producer_.get());
            if (sends_promptly_when_idle(settings))
                prompt_send_ = std::make_unique<PromptSend>(own_producer_->handle());
        }
    }

    // The writer's checkpoint state is the schemas of its tables: after a restore the schema
    // registry does not replay CreateTableEvents, yet the writer must serialize full rows. With
    // exactly-once, it also lists the transactions not yet known committed (transactions.h).
    void restore(std::string_view state) override {
        DecodedWriterState decoded = decode_writer_state(state);
        if (txn_ && decoded.transactions) txn_->restore(*decoded.transactions);
        if (decoded.schemas_json.empty()) return;
        for (auto& [id, schema] : table_schemas_from_json(decoded.schemas_json))
            set_schema(id, std::move(schema));
    }

    // Transactions prepared at a checkpoint may be lost by a crash before their commit: up to
    // kSlots are pending, so the checkpoint before the oldest of them must still be stored.
    int checkpoints_to_retain() const override {
        return txn_ ? static_cast<int>(Transactions::kSlots) + 1 : 1;
    }

    std::uint64_t recoverable_checkpoint(std::string_view state, std::uint64_t id) override {
        DecodedWriterState decoded = decode_writer_state(state);
        if (!decoded.transactions) return id;
        return settle_leftovers_(*decoded.transactions, id);
    }

    awaitable<void> write(EventSelection events) override {
        check_delivery();
        if (txn_ && active_ == kNone) active_ = co_await txn_->slot_for(epoch_);
        std::uint64_t bytes = 0;
        for (const Event& e : events) {
            const auto* data = std::get_if<DataChangeEvent>(&e);
            if (!data) {
                co_await send_pending();  // the records serialized under the schema before
                apply_schema(e);
                continue;
            }
            TableState& t = table(data->table);
            // Topic handles belong to one producer: one per transaction slot.
            if (t.topics.size() <= active_) t.topics.resize(producers_.size(), nullptr);
            if (!t.topics[active_])
                t.topics[active_] = producer().topic(selector_.topic_for(data->table));
            rd_kafka_topic_t* topic = t.topics[active_];
            // Records for one topic are enqueued together (send_pending()); a record with
            // headers goes alone, after those before it, as the batch call takes no headers.
            if (!pending_.empty() && (pending_topic_ != topic || !t.headers.empty() ||
                                      pending_.size() >= kPendingRecords))
                co_await send_pending();
            if (t.headers.empty()) {
                // Serialized straight into the batch's buffer, not copied there.
                const std::size_t offset = pending_bytes_.size();
                std::size_t key_size = 0;
                try {
                    serialize_key(pending_bytes_, *data, t);
                    key_size = pending_bytes_.size() - offset;
                    serialize_value(pending_bytes_, *data, t);
                } catch (...) {
                    pending_bytes_.resize(offset);
                    throw;
                }
                const std::size_t size = pending_bytes_.size() - offset;
                if (refused_as_larger_than_queue(
                        topic, std::string_view(pending_bytes_).substr(offset, key_size),
                        std::string_view(pending_bytes_).substr(offset + key_size), data->table)) {
                    pending_bytes_.resize(offset);
                    continue;
                }
                bytes += size;
                pending_topic_ = topic;
                pending_.push_back(PendingRecord{offset, key_size, size - key_size, &data->table});
                continue;
            }
            key_.clear();
            serialize_key(key_, *data, t);
            value_.clear();
            serialize_value(value_, *data, t);
            if (refused_as_larger_than_queue(topic, key_, value_, data->table)) continue;
            bytes += key_.size() + value_.size();
            // The common case needs no suspension (and no coroutine frame per record).
            if (!try_produce(t, data->table)) co_await produce_when_room(t, data->table);
        }
        co_await send_pending();
        metrics_.bytes_out.inc(bytes);
        producer().poll();
        check_delivery();
    }

    awaitable<void> input_drained() override {
        if (prompt_send_) prompt_send_->input_drained();
        co_return;
    }

    awaitable<std::string> flush(std::uint64_t checkpoint_id) override {
        if (txn_) {
            if (checkpoint_id == 0) {  // not a barrier: only make the records acknowledged
                if (active_ != kNone) co_await flush_producer(producer());
                co_return encode_writer_state(schemas_state());
            }
            co_await txn_->arrive(epoch_, checkpoint_id);
            ++epoch_;
            active_ = kNone;
            co_return encode_writer_state(schemas_state(), txn_->state());
        }
        if (settings_.delivery == DeliveryGuarantee::None) {
            producer().poll();
            co_return encode_writer_state(schemas_state());
        }
        co_await flush_producer(producer());
        co_return encode_writer_state(schemas_state());
    }

    awaitable<void> notify_checkpoint_complete(std::uint64_t id) override {
        if (txn_) co_await txn_->commit_through(id);
    }

    awaitable<void> close() override {
        if (txn_) {
            co_await txn_->close();
        } else {
            co_await flush_producer(producer());
        }
    }

  private:
    struct TableState {
        Schema schema;
        json::KeyColumns key;
        json::TableRendering rendering;
        std::string connect_schema;
        std::vector<rd_kafka_topic_t*> topics;  // by producer slot
        Headers headers;
    };
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

    Producer& producer() { return *producers_[active_]; }
    /// Where records go: partition 0 (all-to-zero), or -1 for the key's hash.
    std::int32_t partition() const { return settings_.hash_by_key ? -1 : 0; }

    TableState& table(TableId id) {
        if (last_ && last_id_ == id) return *last_;
        auto it = tables_.find(id);
        if (it == tables_.end())
            throw std::runtime_error("kafka sink: data change for " + id.str() +
                                     " before its CreateTableEvent");
        last_id_ = id;
        last_ = &it->second;
        return it->second;
    }

    std::string schemas_state() const {
        TableSchemas all;
        for (const auto& [id, t] : tables_) all.emplace_back(id, t.schema);
        std::sort(all.begin(), all.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        return table_schemas_to_json(all);
    }

    void apply_schema(const Event& e) {
        auto change = *as_schema_change(e);
        TableId id = table_of(e);
        auto it = tables_.find(id);
        set_schema(id,
                   apply_schema_change(it == tables_.end() ? Schema{} : it->second.schema, change));
    }

    void set_schema(TableId id, Schema schema) {
        TableState& t = tables_[id];
        t.schema = std::move(schema);
        t.key = json::KeyColumns::of(t.schema, id);
        t.rendering = json::TableRendering::of(id, t.schema);
        if (settings_.debezium.include_schema)
            t.connect_schema = json::debezium_connect_schema(t.schema);
        t.headers = settings_.custom_headers;
        if (settings_.table_id_headers) {
            t.headers.emplace_back("namespace", id.namespace_name());
            t.headers.emplace_back("schemaName", id.schema_name());
            t.headers.emplace_back("tableName", id.table_name());
        }
        last_ = nullptr;  // rehashing may move entries
    }

    /// Appends the record's key to `out`.
    void serialize_key(std::string& out, const DataChangeEvent& data, const TableState& t) const {
        if (settings_.key_format == KeyFormat::Json) {
            json::write_json_key(out, data, t.key, settings_.key_json);
        } else {
            csv::write_csv_key(out, data, t.key);
        }
    }

    /// Appends the record's value to `out`.
    void serialize_value(std::string& out, const DataChangeEvent& data, const TableState& t) const {
        if (settings_.value_format == SinkValueFormat::DebeziumJson) {
            json::write_debezium_json(out, data, t.schema, settings_.debezium, t.connect_schema,
                                      &t.rendering);
        } else {
            json::write_canal_json(out, data, t.schema, settings_.canal, &t.rendering);
        }
    }

    /// False when librdkafka's queue is full; throws on other errors. A record librdkafka
    /// refuses for itself (larger than message.max.bytes) goes to the bad-record policy here,
    /// before it is queued: it never joins a transaction, so exactly-once is unaffected.
    bool try_produce(TableState& t, const TableId& table) {
        rd_kafka_topic_t* topic = t.topics[active_];
        if (txn_) txn_->begin_if_needed(active_, topic);
        rd_kafka_resp_err_t err = producer().produce(topic, partition(), key_, value_, &t.headers);
        if (err == RD_KAFKA_RESP_ERR_NO_ERROR) return true;
        if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) return false;
        refused(topic, key_, value_, table, err);
        return true;  // skipped or dead-lettered: go on
    }

    awaitable<void> produce_when_room(TableState& t, const TableId& table) {
        producer().start_waiting();
        do {
            co_await wait_for_room();
        } while (!try_produce(t, table));
    }

    /// Enqueues the pending records (all for pending_topic_, none with headers) with one
    /// call, waiting for room in librdkafka's queue as try_produce() does; a record refused for
    /// itself goes to the bad-record policy, and the others are enqueued in order.
    awaitable<void> send_pending() {
        if (pending_.empty()) co_return;
        const std::size_t n = pending_.size();
        records_.assign(n, rd_kafka_message_t{});
        for (std::size_t i = 0; i < n; ++i) {
            const PendingRecord& r = pending_[i];
            char* at = pending_bytes_.data() + r.offset;
            records_[i].key = at;
            records_[i].key_len = r.key_size;
            records_[i].payload = at + r.key_size;
            records_[i].len = r.value_size;
        }
        rd_kafka_topic_t* topic = pending_topic_;
        if (txn_) txn_->begin_if_needed(active_, topic);
        std::size_t from = 0;
        bool waiting = false;
        while (true) {
            producer().produce_batch(topic, partition(), records_.data() + from, n - from);
            std::size_t full_at = n;
            for (std::size_t i = from; i < n; ++i) {
                const rd_kafka_resp_err_t err = records_[i].err;
                if (err == RD_KAFKA_RESP_ERR_NO_ERROR) continue;
                if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
                    full_at = i;  // this one and every later one are not enqueued
                    break;
                }
                refused(topic,
                        std::string_view(static_cast<const char*>(records_[i].key),
                                         records_[i].key_len),
                        std::string_view(static_cast<const char*>(records_[i].payload),
                                         records_[i].len),
                        *pending_[i].table, err);
            }
            if (full_at == n) break;
            if (!waiting) producer().start_waiting();
            waiting = true;
            from = full_at;
            co_await wait_for_room();
        }
        pending_.clear();
        pending_bytes_.clear();
    }

    /// A value larger than librdkafka's whole local queue would be answered "queue full" however
    /// long the writer waited: it goes to the bad-record policy (as Java's producer refuses a
    /// record larger than buffer.memory), and true is returned.
    bool refused_as_larger_than_queue(rd_kafka_topic_t* topic, std::string_view key,
                                      std::string_view value, const TableId& table) {
        const std::size_t bound = producer().max_queued_value_bytes();
        if (value.size() <= bound) return false;
        reject(topic, key, value, table,
               "a record of " + std::to_string(value.size()) +
                   " bytes (value) is larger than the producer's queue, " + std::to_string(bound) +
                   " bytes (properties.buffer.memory / queue.buffering.max.kbytes)");
        return true;
    }

    /// A record librdkafka did not enqueue for a reason of its own: one it refuses (larger than
    /// message.max.bytes) goes to the bad-record policy, any other error fails the sink.
    void refused(rd_kafka_topic_t* topic, std::string_view key, std::string_view value,
                 const TableId& table, rd_kafka_resp_err_t err) {
        if (!rejects_record(err)) {
            metrics_.errors.inc();
            throw std::runtime_error(std::string("kafka sink: cannot produce to ") +
                                     rd_kafka_topic_name(topic) + ": " + rd_kafka_err2str(err));
        }
        reject(topic, key, value, table,
               "a record of " + std::to_string(key.size() + value.size()) +
                   " bytes (key and value): " + rd_kafka_err2str(err) +
                   " (the producer's message.max.bytes / max.request.size)");
    }

    /// A record the sink will not send goes to the bad-record policy (which may throw).
    void reject(rd_kafka_topic_t* topic, std::string_view key, std::string_view value,
                const TableId& table, std::string why) {
        metrics_.errors.inc();
        bad_records_.handle(BadRecord{"rejected",
                                      record_position(rd_kafka_topic_name(topic), key, table.str()),
                                      std::move(why), std::string(value)});
    }

    /// librdkafka's queue is full: one wait (after start_waiting()) that serves delivery
    /// reports, so that it has room again.
    awaitable<void> wait_for_room() {
        producer().poll();
        check_delivery();
        co_await sleep_ms(1);
        watch_stall(producer());
    }

    awaitable<void> flush_producer(Producer& p) {
        // Delivery reports are served by the helper thread while it waits; the pipeline fails on
        // the first delivery error, and waits as long as librdkafka retries (message.timeout.ms).
        p.start_waiting();
        while (p.in_flight() > 0) {
            check_delivery();
            Producer* ptr = &p;
            co_await blocking_calls_.run([ptr] { rd_kafka_flush(ptr->handle(), kFlushSliceMs); });
            watch_stall(p);
        }
        p.poll();
        check_delivery();
    }

    /// While waiting on `p`: adds the bootstrap servers back when it is stuck (producer.h); a
    /// transactional producer that stays stuck fails the sink at the stall limit, as every
    /// transactional wait does (its records would not time out before message.timeout.ms).
    void watch_stall(Producer& p) {
        if (txn_)
            txn_->check_stalled(p);
        else
            p.unacknowledged_for();
    }

    /// Also moves the delivery counts into the metrics (records_out: acknowledged records).
    void check_delivery() {
        std::uint64_t delivered = 0, failed = 0;
        for (auto& p : producers_) {
            delivered += p->delivered();
            failed += p->failed();
        }
        metrics_.records_out.inc(delivered - reported_->delivered);
        metrics_.errors.inc(failed - reported_->failed);
        reported_->delivered = delivered;
        reported_->failed = failed;
        for (auto& p : producers_)
            if (auto error = p->delivery_error())
                throw std::runtime_error("kafka sink: delivery failed: " + *error);
    }

    const KafkaSinkSettings& settings_;
    BadRecordSink& bad_records_;
    TopicSelector selector_;
    Transactions* txn_;
    SettleLeftovers settle_leftovers_;
    std::unique_ptr<Producer> own_producer_;   // at-least-once and none
    std::unique_ptr<PromptSend> prompt_send_;  // of own_producer_ (destroyed before it)
    std::vector<Producer*> producers_;         // exactly-once: the sink's, by transaction slot
    std::size_t active_ = 0;                   // index in producers_
    std::uint64_t epoch_ = 0;                  // barriers seen (exactly-once)
    std::unordered_map<TableId, TableState> tables_;
    TableId last_id_;
    TableState* last_ = nullptr;
    std::string key_, value_;
    // Records serialized and not yet enqueued (send_pending()): keys and values back to back
    // in pending_bytes_, all for pending_topic_.
    struct PendingRecord {
        std::size_t offset, key_size, value_size;
        const TableId* table;  // in the batch being written
    };
    static constexpr std::size_t kPendingRecords = 1024;
    std::vector<PendingRecord> pending_;
    std::string pending_bytes_;
    rd_kafka_topic_t* pending_topic_ = nullptr;
    std::vector<rd_kafka_message_t> records_;
    metrics::ConnectorMetrics metrics_;
    DeliveryCounts own_reported_;
    DeliveryCounts* reported_ = &own_reported_;  // the counts of producers_ already reported
    // Last: its flushes are joined before own_producer_ is destroyed (the sink's producers
    // outlive its writers).
    BlockingCalls blocking_calls_{"kafka sink writer"};
};

}  // namespace

KafkaSink::KafkaSink(KafkaSinkSettings settings, metrics::Registry& metrics,
                     BadRecordHandlers& bad_records)
    : settings_(std::move(settings)),
      metrics_(metrics),
      bad_records_(bad_records),
      applier_(std::make_unique<AcceptAll>()) {
    for (const auto& key : settings_.client.ignored)
        spdlog::warn("kafka sink: properties.{} has no effect (cdcd writes bytes itself)", key);
    if (auto why = idempotence_off_because(settings_.client);
        why && settings_.delivery != DeliveryGuarantee::ExactlyOnce)
        spdlog::warn(
            "kafka sink: the producer is not idempotent ({}): a batch librdkafka retries may land "
            "after a later one, reordering or duplicating a key's changes",
            *why);
}

KafkaSink::~KafkaSink() = default;

bool KafkaSink::writers_are_independent() const {
    return settings_.delivery != DeliveryGuarantee::ExactlyOnce;
}

std::vector<std::optional<std::string>> KafkaSink::rescale_writer_states(
    const std::vector<std::string>& states, int parallelism) const {
    return std::vector<std::optional<std::string>>(static_cast<std::size_t>(parallelism),
                                                   merge_writer_states(states));
}

std::unique_ptr<SinkWriter> KafkaSink::create_writer(int index, int parallelism) {
    if (settings_.delivery == DeliveryGuarantee::ExactlyOnce && !transactions_)
        transactions_ = std::make_unique<Transactions>(settings_, producer_settings(settings_),
                                                       static_cast<std::size_t>(parallelism));
    return std::make_unique<KafkaWriter>(
        settings_, transactions_.get(),
        [this](const TransactionsState& state, std::uint64_t id) {
            return settle_leftover_transactions(state, id);
        },
        metrics_, bad_records_.writer(index));
}

std::uint64_t KafkaSink::settle_leftover_transactions(const TransactionsState& state,
                                                      std::uint64_t id) {
    if (state.pending.empty()) return id;
    if (settled_ && settled_->state == state && settled_->id == id) return settled_->answer;
    // The ids of the run that listed them: in the state since 2026-12-07, else this sink's own.
    KafkaSinkSettings run = settings_;
    if (!state.ids.empty()) run.transactional_id_prefix = state.ids;
    std::string ids;
    try {
        ids = transactional_names(run).id_base;
    } catch (const std::invalid_argument&) {
        throw std::runtime_error(
            "kafka sink: the checkpoint lists transactions of an exactly-once run (marker group " +
            state.group +
            ") not known to be committed; settling them needs that run's transactional ids: set "
            "sink.transactional-id-prefix or pipeline.name as that run had them, or start over "
            "with --reset-state");
    }
    std::uint64_t answer = 0;
    if (transactions_ && ids == transactional_names(settings_).id_base) {
        answer = transactions_->recoverable(state, id);  // its ids were fenced when it was made
    } else {
        spdlog::info(
            "kafka sink: the checkpoint lists {} transaction(s) of an exactly-once run with the "
            "transactional ids {}-0-*, not known to be committed: settling them (those ids "
            "fenced, which aborts what is open)",
            state.pending.size(), ids);
        // Fences that run's transactional ids, which completes or aborts what it left.
        Transactions leftovers(run, producer_settings(run), 1);
        answer = leftovers.recoverable(state, id);
    }
    settled_ = Settled{state, id, answer};
    return answer;
}

}  // namespace cdcd::kafka
