// The Kafka source's consumer thread: the client's construction, the consume loop and the queue
// of chunks to the event loop. Partitions and offsets: consumer_assignment.cpp; lag and the
// watermark thread: consumer_lag.cpp.
#include "sources/kafka/kafka_consumer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>

#include "kafka_client/client_log.h"
#include "kafka_client/connection_error.h"
#include "regex/java_regex.h"

namespace cdcd::kafka {

namespace {

// Chunks waiting for the event loop (split readers' consumers: for their reader, 2 each).
constexpr std::size_t kQueueCapacity = 4;
constexpr int kPollMs = 100;
// librdkafka's prefetch queue (defaults a user may override with properties.*): bounded in bytes
// rather than by librdkafka's 100000 messages, which for ~300-byte messages held 32 MB. The
// watermark thread keeps the fetcher going (see kafka_consumer.h). A fetch brings at most
// max.partition.fetch.bytes per partition, and the fetcher is woken when the queue is below half
// its size.
constexpr const char* kQueuedMinMessages = "100000";
// The source's: split readers' consumers (ConsumerSettings::shares) take a share each.
constexpr std::int64_t kQueuedMaxKbytes = 4096;
constexpr const char* kMaxPartitionFetchBytes = "524288";
// After a fetch finds the queue above those bounds, librdkafka (2.1 and later) waits this long
// before the partition's next fetch; its default, 1 s, stalls a consumer whose queue is small
// next to its throughput for a second at every refill.
constexpr const char* kFetchQueueBackoffMs = "10";

std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace

KafkaConsumer::KafkaConsumer(ConsumerSettings settings, SourceState restored,
                             boost::asio::any_io_executor executor, std::function<void()> wake,
                             metrics::ConnectorMetrics& metrics,
                             std::shared_ptr<RowBufferReturn> row_buffers)
    : settings_(std::move(settings)),
      restored_(std::move(restored)),
      executor_(std::move(executor)),
      wake_(std::move(wake)),
      decoder_(settings_.decoder),
      row_buffers_(std::move(row_buffers)),
      metrics_(metrics) {
    decoder_.restore(restored_.schemas);
    if (settings_.gate) decoder_.share_schemas(this);
    if (settings_.topic_pattern) {
        regex::Error error;
        pattern_ = regex::compile_java(*settings_.topic_pattern, &error);
        if (!pattern_)
            throw std::invalid_argument("kafka source: `topic-pattern`: " +
                                        regex::refusal(*settings_.topic_pattern, error));
    }
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    char err[512];
    auto set = [&](const std::string& k, const std::string& v) {
        set_or_throw(conf, k, v, "kafka source");
    };
    // Defaults a user may override, then the user's settings, then what cdcd relies on.
    set("fetch.wait.max.ms", "100");
    if (settings_.consumer_group) set("auto.commit.interval.ms", "1000");
    set("queued.min.messages", kQueuedMinMessages);
    set("queued.max.messages.kbytes",
        std::to_string(kQueuedMaxKbytes / static_cast<std::int64_t>(settings_.shares)));
    set("max.partition.fetch.bytes", kMaxPartitionFetchBytes);
    set("fetch.queue.backoff.ms", kFetchQueueBackoffMs);
    for (const auto& [k, v] : settings_.client.librdkafka) {
        set(k, v);
        if (k == "group.id" && !v.empty()) has_group_ = true;
        if (BootstrapAgain::names_servers(k))
            bootstrap_again_ = bootstrap_again_on_watermarks_ = BootstrapAgain(v);
    }
    // librdkafka's assign() needs a group even when nothing is committed; offsets are committed
    // only to a group the user named.
    if (!has_group_) set("group.id", "cdcd-kafka-source-uncommitted");
    if (settings_.consumer_group) {
        // Revoked partitions move one by one while the others keep being read.
        set("partition.assignment.strategy", "cooperative-sticky");
        rd_kafka_conf_set_rebalance_cb(conf, &KafkaConsumer::on_rebalance);  // opaque: below
    }
    // An offset out of range comes back as an error event, which out_of_range() handles: left to
    // itself librdkafka would jump to the end of the log, silently skipping what lies between.
    if (const std::string* reset = find_setting(settings_.client, "auto.offset.reset"))
        reset_policy_ = *reset;
    set("auto.offset.reset", "error");
    // A consumer group member commits what its checkpoints stored, through librdkafka's
    // auto-commit (see commit()); otherwise cdcd commits itself.
    set("enable.auto.commit", settings_.consumer_group ? "true" : "false");
    set("enable.auto.offset.store", "false");
    set("enable.partition.eof", settings_.bounded ? "true" : "false");
    rd_kafka_conf_set_offset_commit_cb(conf, &KafkaConsumer::on_commit);
    rd_kafka_conf_set_error_cb(conf, &KafkaConsumer::on_error);
    rd_kafka_conf_set_opaque(conf, this);
    log_through_spdlog(conf);
    auto get = [&](const char* k) -> std::int64_t {
        char value[64];
        size_t size = sizeof value;
        if (rd_kafka_conf_get(conf, k, value, &size) != RD_KAFKA_CONF_OK) return 0;
        return std::strtoll(value, nullptr, 10);
    };
    queue_max_messages_ = get("queued.min.messages");
    queue_max_bytes_ = get("queued.max.messages.kbytes") * 1024;
    // A member that does not come back from its rebalance callback within max.poll.interval.ms
    // is removed from the group: a hand-over waits at most half of it.
    hand_over_timeout_ms_ = std::max<std::int64_t>(1'000, get("max.poll.interval.ms") / 2);
    rk_ = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (!rk_) {
        rd_kafka_conf_destroy(conf);
        throw std::runtime_error(std::string("kafka source: ") + err);
    }
    rd_kafka_poll_set_consumer(rk_);
    queue_ = rd_kafka_queue_get_consumer(rk_);
}

KafkaConsumer::~KafkaConsumer() {
    stop_ = true;
    not_full_.notify_all();
    {
        std::lock_guard lock(group_mutex_);
        handed_over_cv_.notify_all();  // a rebalance callback waiting for a hand-over
    }
    if (thread_.joinable()) thread_.join();
    {
        std::lock_guard lock(lag_mutex_);
        lag_cv_.notify_all();
    }
    if (watermark_thread_.joinable()) watermark_thread_.join();
    if (queue_) rd_kafka_queue_destroy(queue_);
    if (assignment_) rd_kafka_topic_partition_list_destroy(assignment_);
    if (rk_) {
        rd_kafka_consumer_close(rk_);
        rd_kafka_destroy(rk_);
    }
}

void KafkaConsumer::start() {
    thread_ = std::thread([this] { run(); });
    watermark_thread_ = std::thread([this] { watermarks(); });
}

bool KafkaConsumer::try_pop(Chunk& chunk) {
    std::lock_guard lock(mutex_);
    if (queue_chunks_.empty()) {
        loop_waiting_ = true;
        return false;
    }
    chunk = std::move(queue_chunks_.front());
    queue_chunks_.pop_front();
    not_full_.notify_one();
    return true;
}

boost::asio::awaitable<bool> KafkaConsumer::next_chunk(Chunk& chunk,
                                                       boost::asio::steady_timer& timer,
                                                       const SourceOutput& output) {
    while (!output.stopping()) {
        if (try_pop(chunk)) {
            if (chunk.error) std::rethrow_exception(chunk.error);
            co_return true;
        }
        // Also a look at stopping() now and then.
        timer.expires_after(std::chrono::milliseconds(200));
        co_await timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    }
    co_return false;
}

void KafkaConsumer::push(Chunk chunk) {
    std::unique_lock lock(mutex_);
    const std::size_t capacity = std::max<std::size_t>(2, kQueueCapacity / settings_.shares);
    not_full_.wait(lock, [&] { return queue_chunks_.size() < capacity || stop_; });
    if (stop_) return;
    chunk.number = ++handed_on_;
    chunk.after_change = std::exchange(after_change_, false);
    queue_chunks_.push_back(std::move(chunk));
    if (loop_waiting_) {
        loop_waiting_ = false;
        boost::asio::post(executor_, wake_);
    }
}

void KafkaConsumer::skip_unparsable(const PartitionKey& key, std::int64_t offset, const char* why) {
    metrics_.registry()
        .counter("cdcd_kafka_unparsable_messages_total",
                 "Messages skipped because they could not be parsed (ignore-parse-errors: true)",
                 {{"role", "source"},
                  {"connector", "kafka"},
                  {"topic", key.first},
                  {"partition", std::to_string(key.second)}})
        .inc();
    const std::uint64_t count = ++skipped_;
    // The first ones each, then at most one line a second: a topic full of bad messages must
    // not flood the log.
    const std::int64_t now = now_ms();
    if (count > 10 && now - last_skip_log_ms_ < 1'000) return;
    last_skip_log_ms_ = now;
    spdlog::warn(
        "kafka source: skipped unparsable message at topic {}, partition {}, offset {} ({} "
        "skipped so far): {}",
        key.first, key.second, offset, count, why);
}

void KafkaConsumer::on_error(rd_kafka_t* rk, int err, const char* reason, void* opaque) {
    auto* self = static_cast<KafkaConsumer*>(opaque);
    auto lasting = lasting_connection_error(err, reason);
    if (!lasting) return log_client_error(rd_kafka_name(rk), err, reason);
    if (!self->connection_error_) self->connection_error_ = std::move(lasting);
}

std::optional<std::string> KafkaConsumer::queued_connection_error() {
    // Nothing is assigned yet, so the queue holds client errors only; serving them calls
    // on_error.
    while (rd_kafka_message_t* m = rd_kafka_consume_queue(queue_, 0)) rd_kafka_message_destroy(m);
    return connection_error_;
}

bool KafkaConsumer::all_done() const {
    for (const auto& [key, a] : assigned_)
        if (!a.done) return false;
    return true;
}

void KafkaConsumer::run() {
    std::vector<rd_kafka_message_t*> messages(settings_.max_batch);
    // A split reader's consumer builds nothing more once it returns.
    struct Leave {
        KafkaConsumer& consumer;
        ~Leave() {
            if (consumer.settings_.gate)
                consumer.settings_.gate->leave(consumer.settings_.share, consumer.handed_on_);
        }
    } leave{*this};
    try {
        if (settings_.consumer_group)
            subscribe();
        else
            discover(true);
        if (settings_.gate) {
            auto start = settings_.gate->join(settings_.share, stop_);
            if (!start) return;
            seen_epoch_ = start->epoch;
            decoder_.restore(start->schemas);
            // Rows built on the other readers' changes go behind them, as after a pause: a
            // reader that started late once sent its first rows straight to a writer that did
            // not have the change yet, which wrote them by the old columns.
            after_change_ = start->after_changes;
        }
        std::int64_t next_discovery = now_ms() + settings_.discovery_interval_ms;
        while (!stop_) {
            if (settings_.gate && settings_.gate->epoch() != seen_epoch_) {
                // Nothing built: an idle consumer pauses here.
                Chunk none;
                std::map<PartitionKey, std::int64_t> none_moved;
                if (!follow_changes(none, none_moved)) return;
            }
            if (settings_.bounded && all_done()) {
                Chunk end;
                end.end = true;
                push(std::move(end));
                return;
            }
            if (!settings_.bounded && now_ms() >= next_discovery) {
                // A member's new partitions come from the group (librdkafka follows the topics'
                // metadata); only a pattern's new topics need a new subscription.
                if (!settings_.consumer_group)
                    discover(false);
                else if (pattern_)
                    subscribe();
                next_discovery = now_ms() + settings_.discovery_interval_ms;
            }
            // What is queued, without waiting: librdkafka 2.0 would wait for a full batch, and
            // when its queue holds less than that, nothing wakes the fetcher meanwhile.
            ssize_t n = rd_kafka_consume_batch_queue(queue_, 0, messages.data(), messages.size());
            if (n == 0) {
                track_lag();  // the queue is empty: wake the fetcher if it stopped
                n = rd_kafka_consume_batch_queue(queue_, kPollMs, messages.data(), 1);
            }
            if (n < 0)
                throw std::runtime_error(std::string("kafka source: consume failed: ") +
                                         rd_kafka_err2str(rd_kafka_last_error()));
            if (connection_error_) {  // set by on_error, which the consume calls above serve
                for (ssize_t i = 0; i < n; ++i)
                    rd_kafka_message_destroy(messages[static_cast<std::size_t>(i)]);
                throw std::runtime_error("kafka source: " + *connection_error_);
            }
            if (callback_error_) {
                for (ssize_t j = 0; j < n; ++j)
                    rd_kafka_message_destroy(messages[static_cast<std::size_t>(j)]);
                std::rethrow_exception(callback_error_);
            }
            if (n == 0) continue;
            if (row_buffers_) row_buffers_->take_into(RowBufferPool::this_thread());
            Chunk chunk;
            chunk.events.reserve(static_cast<std::size_t>(n));
            building_ = &chunk;
            std::map<PartitionKey, std::int64_t> moved;
            bool reached_end = false;
            std::uint64_t records = 0, bytes = 0;
            rd_kafka_topic_t* last_topic = nullptr;
            std::int32_t last_partition = -1;
            std::pair<const PartitionKey, Assigned>* current = nullptr;
            std::int64_t* moved_offset = nullptr;
            std::int64_t* position = nullptr;
            for (ssize_t i = 0; i < n; ++i) {
                rd_kafka_message_t* m = messages[static_cast<std::size_t>(i)];
                if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
                    PartitionKey key{rd_kafka_topic_name(m->rkt), m->partition};
                    auto it = assigned_.find(key);
                    if (it != assigned_.end() && it->second.end >= 0 &&
                        m->offset >= it->second.end) {
                        it->second.done = true;
                        reached_end = true;
                    }
                } else if (m->err == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET) {
                    // librdkafka stopped fetching the partition; resume it where the policy
                    // says (or fail), and record that position in the state.
                    PartitionKey key{rd_kafka_topic_name(m->rkt), m->partition};
                    std::int64_t target = 0;
                    try {
                        target = out_of_range(key, m->offset);
                    } catch (...) {
                        for (ssize_t j = i; j < n; ++j)
                            rd_kafka_message_destroy(messages[static_cast<std::size_t>(j)]);
                        throw;
                    }
                    position_[key] = target;
                    moved[key] = target;
                    resume_at(key, target);
                } else if (m->err) {
                    if (rd_kafka_fatal_error(rk_, nullptr, 0) != RD_KAFKA_RESP_ERR_NO_ERROR) {
                        std::string why = rd_kafka_message_errstr(m);
                        for (ssize_t j = i; j < n; ++j)
                            rd_kafka_message_destroy(messages[static_cast<std::size_t>(j)]);
                        throw std::runtime_error("kafka source: fatal consumer error: " + why);
                    }
                    if (auto lasting =
                            lasting_connection_error(m->err, rd_kafka_message_errstr(m))) {
                        for (ssize_t j = i; j < n; ++j)
                            rd_kafka_message_destroy(messages[static_cast<std::size_t>(j)]);
                        throw std::runtime_error("kafka source: " + *lasting);
                    }
                    spdlog::warn("kafka source: {}", rd_kafka_message_errstr(m));
                } else {
                    ++records;
                    bytes += m->len + m->key_len;
                    // Messages of one partition come in runs: look its entries up once per run.
                    if (m->rkt != last_topic || m->partition != last_partition) {
                        PartitionKey key{rd_kafka_topic_name(m->rkt), m->partition};
                        auto found = assigned_.find(key);
                        if (found == assigned_.end() && settings_.consumer_group) {
                            // Fetched before the partition was revoked: its next owner reads
                            // it from the offset handed over.
                            rd_kafka_message_destroy(m);
                            continue;
                        }
                        last_topic = m->rkt;
                        last_partition = m->partition;
                        current =
                            found != assigned_.end() ? &*found : &*assigned_.try_emplace(key).first;
                        moved_offset = nullptr;  // an entry only once a message moved it
                        position = &position_[key];
                    }
                    const PartitionKey& key = current->first;
                    Assigned& a = current->second;
                    if (a.done) {
                        rd_kafka_message_destroy(m);
                        continue;
                    }
                    if (a.reassigned && m->offset < *position) {
                        // Passed on already in this run, handed out again around the
                        // re-assignment: dropping it keeps the relay free of duplicates.
                        if (++redelivered_ == 1 || redelivered_ % 10000 == 0)
                            spdlog::info(
                                "kafka source: dropped {} message(s) delivered again by the "
                                "client (latest: topic {}, partition {}, offset {})",
                                redelivered_, key.first, key.second, m->offset);
                        rd_kafka_message_destroy(m);
                        continue;
                    }
                    a.reassigned = false;
                    auto position_of = [&] {
                        return "topic " + key.first + ", partition " + std::to_string(key.second) +
                               ", offset " + std::to_string(m->offset);
                    };
                    // Another split reader's schema change: what this one built goes on first.
                    bool stopping = settings_.gate && !follow_changes(chunk, moved);
                    try {
                        while (!stopping) {
                            try {
                                decoder_.decode(*m, chunk.events);
                                break;
                            } catch (const SchemaChangeElsewhere&) {
                                stopping = !pause_for_change(chunk, moved);
                            }
                        }
                    } catch (const LimitError& e) {
                        // Not a parse error: ignore-parse-errors does not skip it.
                        std::string where = position_of();
                        if (settings_.bad_records_go_on) {
                            chunk.bad_records.push_back(BadRecord{
                                "limit-exceeded", where, e.what(),
                                std::string(static_cast<const char*>(m->payload), m->len)});
                        } else {
                            for (ssize_t j = i; j < n; ++j)
                                rd_kafka_message_destroy(messages[static_cast<std::size_t>(j)]);
                            throw std::runtime_error(
                                "kafka source: the message at " + where +
                                " is over a limit: " + e.what() +
                                " (or set the pipeline's bad-record.policy: skip or dead-letter "
                                "to go on without it)");
                        }
                    } catch (const std::exception& e) {
                        std::string where = position_of();
                        if (settings_.ignore_parse_errors) {
                            skip_unparsable(key, m->offset, e.what());
                        } else if (settings_.bad_records_go_on) {
                            chunk.bad_records.push_back(BadRecord{
                                "parse-error", where, e.what(),
                                std::string(static_cast<const char*>(m->payload), m->len)});
                        } else {
                            for (ssize_t j = i; j < n; ++j)
                                rd_kafka_message_destroy(messages[static_cast<std::size_t>(j)]);
                            throw std::runtime_error(
                                "kafka source: cannot parse the message at " + where + ": " +
                                e.what() +
                                " (set ignore-parse-errors: true to skip such messages, or the "
                                "pipeline's bad-record.policy: dead-letter to keep them aside)");
                        }
                    }
                    if (stopping) {
                        for (ssize_t j = i; j < n; ++j)
                            rd_kafka_message_destroy(messages[static_cast<std::size_t>(j)]);
                        return;
                    }
                    if (moved.empty()) moved_offset = nullptr;  // handed on at a pause
                    if (!moved_offset) moved_offset = &moved[key];
                    *moved_offset = m->offset + 1;
                    *position = m->offset + 1;
                    if (a.end >= 0 && m->offset + 1 >= a.end) {
                        a.done = true;
                        reached_end = true;
                    }
                }
                rd_kafka_message_destroy(m);
            }
            metrics_.records_in.inc(records);
            metrics_.bytes_in.inc(bytes);
            seen_messages_ += records;
            seen_bytes_ += bytes;
            if (reached_end && !all_done()) reassign();  // stop fetching finished partitions
            track_lag();
            building_ = nullptr;
            hand_on(chunk, moved);
        }
    } catch (...) {
        Chunk failed;
        failed.error = std::current_exception();
        push(std::move(failed));
    }
}

bool KafkaConsumer::begin() {
    std::vector<std::uint64_t> waits_for;
    // The chunk being built is the next one pushed.
    if (!settings_.gate->begin_change(settings_.share, handed_on_ + 1, stop_, waits_for))
        return false;
    if (!building_->holds_change) {
        building_->holds_change = true;
        building_->waits_for = std::move(waits_for);
    }
    return true;
}

void KafkaConsumer::changed(TableId table, const Schema& schema) {
    building_->changed.push_back(
        ChangedSchema{table, settings_.gate->publish(table, schema), schema});
}

void KafkaConsumer::hand_on(Chunk& chunk, std::map<PartitionKey, std::int64_t>& moved) {
    // A chunk that holds a change goes even when empty: its reader releases the change.
    if (!moved.empty() || !chunk.events.empty() || !chunk.bad_records.empty() ||
        chunk.holds_change) {
        chunk.offsets.assign(moved.begin(), moved.end());
        push(std::move(chunk));
    }
    chunk = Chunk{};
    moved.clear();
}

bool KafkaConsumer::pause_for_change(Chunk& chunk, std::map<PartitionKey, std::int64_t>& moved) {
    hand_on(chunk, moved);
    auto schemas = settings_.gate->pause(settings_.share, handed_on_, stop_, seen_epoch_);
    if (!schemas) return false;
    decoder_.restore(*schemas);
    after_change_ = true;
    return true;
}

bool KafkaConsumer::follow_changes(Chunk& chunk, std::map<PartitionKey, std::int64_t>& moved) {
    const std::uint64_t epoch = settings_.gate->epoch();
    if (epoch == seen_epoch_) return true;
    seen_epoch_ = epoch;  // before must_pause: a change that begins after is seen next time
    if (!settings_.gate->must_pause(settings_.share)) return true;
    return pause_for_change(chunk, moved);
}

}  // namespace cdcd::kafka
