#include "sources/kafka/kafka_consumer.h"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>
#include <chrono>

#include "kafka_client/client_log.h"
#include "kafka_client/connection_error.h"
#include "pipeline/transform/java_regex.h"

namespace cdcd::kafka {

namespace {

constexpr std::size_t kQueueCapacity = 4;  // chunks waiting for the event loop
constexpr int kPollMs = 100;
constexpr int kMetadataTimeoutMs = 10'000;
// librdkafka's prefetch queue (defaults a user may override with properties.*): bounded in bytes
// rather than by librdkafka's 100000 messages, which for ~300-byte messages held 32 MB. The
// watermark thread keeps the fetcher going (see kafka_consumer.h), so a small queue no longer
// stalls the way librdkafka 2.0 otherwise does (fetch.queue.backoff.ms came in 2.1). A fetch
// brings at most max.partition.fetch.bytes per partition, and the fetcher is woken when the queue
// is below half its size.
constexpr const char* kQueuedMinMessages = "100000";
constexpr const char* kQueuedMaxKbytes = "4096";
constexpr const char* kMaxPartitionFetchBytes = "524288";
// The lag gauges are refreshed by a query at least this often, also while nothing is read.
constexpr int kWatermarkIntervalMs = 1'000;
// A query waits at most this long (it must not hold up shutdown while the broker is away).
constexpr int kWatermarkTimeoutMs = 2'000;
// At most one wake-up query per this many milliseconds.
constexpr int kMinWakeSpacingMs = 2;

std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace

KafkaConsumer::KafkaConsumer(ConsumerSettings settings, SourceState restored,
                             boost::asio::io_context& io, std::function<void()> wake,
                             metrics::ConnectorMetrics& metrics)
    : settings_(std::move(settings)),
      restored_(std::move(restored)),
      io_(io),
      wake_(std::move(wake)),
      decoder_(settings_.decoder),
      metrics_(metrics) {
    decoder_.restore(restored_.schemas);
    if (settings_.topic_pattern) {
        std::string error;
        pattern_ = transform::compile_java_regex(*settings_.topic_pattern, &error);
        if (!pattern_) throw std::invalid_argument("kafka source: topic-pattern: " + error);
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
    set("queued.max.messages.kbytes", kQueuedMaxKbytes);
    set("max.partition.fetch.bytes", kMaxPartitionFetchBytes);
    for (const auto& [k, v] : settings_.client.librdkafka) {
        set(k, v);
        if (k == "group.id" && !v.empty()) has_group_ = true;
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

void KafkaConsumer::on_commit(rd_kafka_t*, rd_kafka_resp_err_t err,
                              rd_kafka_topic_partition_list_t*, void*) {
    if (err && err != RD_KAFKA_RESP_ERR__NO_OFFSET)
        spdlog::warn("kafka source: committing offsets to the consumer group failed: {}",
                     rd_kafka_err2str(err));
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

void KafkaConsumer::push(Chunk chunk) {
    std::unique_lock lock(mutex_);
    not_full_.wait(lock, [&] { return queue_chunks_.size() < kQueueCapacity || stop_; });
    if (stop_) return;
    queue_chunks_.push_back(std::move(chunk));
    if (loop_waiting_) {
        loop_waiting_ = false;
        boost::asio::post(io_, wake_);
    }
}

void KafkaConsumer::commit(const Offsets& offsets) {
    if (!has_group_ || offsets.empty()) return;
    Offsets owned;
    const Offsets* to_commit = &offsets;
    if (settings_.consumer_group) {
        // A partition handed over to another member is that member's to commit: an offset from
        // an older checkpoint of ours would move the group back.
        std::lock_guard lock(group_mutex_);
        for (const auto& [key, offset] : offsets)
            if (owned_.count(key)) owned.emplace(key, offset), last_committed_[key] = offset;
        to_commit = &owned;
    }
    if (to_commit->empty()) return;
    rd_kafka_topic_partition_list_t* list =
        rd_kafka_topic_partition_list_new(static_cast<int>(to_commit->size()));
    for (const auto& [key, offset] : *to_commit)
        rd_kafka_topic_partition_list_add(list, key.first.c_str(), key.second)->offset = offset;
    if (settings_.consumer_group) {
        // Stored for librdkafka's auto-commit, which commits only while the member is not
        // rebalancing: librdkafka 2.0 takes a commit refused for an outdated generation (one
        // sent while the group moves on) as the loss of the whole assignment (its issue #4059).
        // A partition revoked meanwhile is refused here (not assigned): that is what we want.
        rd_kafka_offsets_store(rk_, list);
        rd_kafka_topic_partition_list_destroy(list);
        return;
    }
    rd_kafka_resp_err_t err = rd_kafka_commit(rk_, list, 1);
    rd_kafka_topic_partition_list_destroy(list);
    if (err) spdlog::warn("kafka source: cannot commit offsets: {}", rd_kafka_err2str(err));
}

void KafkaConsumer::commit_sync(const Offsets& offsets, const char* why) {
    if (offsets.empty()) return;
    rd_kafka_topic_partition_list_t* list =
        rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size()));
    std::string names;
    for (const auto& [key, offset] : offsets) {
        rd_kafka_topic_partition_list_add(list, key.first.c_str(), key.second)->offset = offset;
        names += (names.empty() ? "" : ", ") + key.first + " [" + std::to_string(key.second) +
                 "] at " + std::to_string(offset);
    }
    rd_kafka_resp_err_t err = rd_kafka_commit(rk_, list, 0);
    for (int i = 0; !err && i < list->cnt; ++i) err = list->elems[i].err;
    rd_kafka_topic_partition_list_destroy(list);
    if (err)
        spdlog::warn(
            "kafka source: committing the {} offsets ({}) to the consumer group failed: {}; the "
            "partitions' next owner resumes from the group's previous committed offset and reads "
            "what followed it again",
            why, names, rd_kafka_err2str(err));
    else
        spdlog::info("kafka source: committed the {} offsets to the consumer group: {}", why,
                     names);
}

void KafkaConsumer::hand_over(Offsets offsets) {
    std::lock_guard lock(group_mutex_);
    handed_over_ = std::move(offsets);
    handed_over_cv_.notify_all();
}

std::int64_t KafkaConsumer::committed_or_reset(const std::string& topic, std::int32_t partition) {
    const std::int64_t offset = committed(topic, partition);
    if (offset >= 0) return offset;
    // No committed offset: properties.auto.offset.reset decides (Kafka's default: latest).
    const std::string* reset = find_setting(settings_.client, "auto.offset.reset");
    std::string r = reset ? *reset : "latest";
    if (r == "earliest" || r == "smallest" || r == "beginning") return RD_KAFKA_OFFSET_BEGINNING;
    if (r == "error")
        throw std::runtime_error("kafka source: no committed offset for " + topic + " [" +
                                 std::to_string(partition) +
                                 "] and properties.auto.offset.reset is none");
    std::int64_t lo = 0, hi = 0;
    rd_kafka_resp_err_t err = rd_kafka_query_watermark_offsets(rk_, topic.c_str(), partition, &lo,
                                                               &hi, kMetadataTimeoutMs);
    if (err)
        throw std::runtime_error("kafka source: latest offset of " + topic + ": " +
                                 rd_kafka_err2str(err));
    return hi;
}

std::int64_t KafkaConsumer::committed(const std::string& topic, std::int32_t partition) {
    // rd_kafka_committed (with retries while the group coordinator loads) rather than
    // RD_KAFKA_OFFSET_STORED, whose lookup librdkafka 2.0 does not retry after "Not coordinator".
    std::int64_t offset = RD_KAFKA_OFFSET_INVALID;
    for (int attempt = 0;; ++attempt) {
        rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(list, topic.c_str(), partition);
        rd_kafka_resp_err_t err = rd_kafka_committed(rk_, list, kMetadataTimeoutMs);
        if (!err) err = list->elems[0].err;
        offset = list->elems[0].offset;
        rd_kafka_topic_partition_list_destroy(list);
        if (!err) break;
        if (attempt >= 30 || stop_)
            throw std::runtime_error("kafka source: committed offset of " + topic + " [" +
                                     std::to_string(partition) + "]: " + rd_kafka_err2str(err));
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    return offset;
}

std::int64_t KafkaConsumer::start_offset(const std::string& topic, std::int32_t partition,
                                         bool initial) {
    auto it = restored_.offsets.find({topic, partition});
    if (it != restored_.offsets.end()) return it->second;  // a checkpoint beats the startup mode
    if (!initial) return RD_KAFKA_OFFSET_BEGINNING;  // partitions discovered later: from the start
    switch (settings_.startup) {
        case StartupMode::EarliestOffset:
            return RD_KAFKA_OFFSET_BEGINNING;
        case StartupMode::GroupOffsets:
            return committed_or_reset(topic, partition);
        case StartupMode::SpecificOffsets: {
            auto s = settings_.specific_offsets.find(partition);
            return s == settings_.specific_offsets.end() ? committed_or_reset(topic, partition)
                                                         : s->second;
        }
        case StartupMode::LatestOffset: {
            // Pinned now, so that a checkpoint taken before the first message still resumes here.
            std::int64_t lo = 0, hi = 0;
            rd_kafka_resp_err_t err = rd_kafka_query_watermark_offsets(
                rk_, topic.c_str(), partition, &lo, &hi, kMetadataTimeoutMs);
            if (err)
                throw std::runtime_error("kafka source: latest offset of " + topic + " [" +
                                         std::to_string(partition) + "]: " + rd_kafka_err2str(err));
            return hi;
        }
        case StartupMode::Timestamp: {
            rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
            rd_kafka_topic_partition_list_add(list, topic.c_str(), partition)->offset =
                settings_.startup_timestamp_ms;
            rd_kafka_resp_err_t err = rd_kafka_offsets_for_times(rk_, list, kWatermarkTimeoutMs);
            std::int64_t offset = list->elems[0].offset;
            rd_kafka_resp_err_t perr = list->elems[0].err;
            rd_kafka_topic_partition_list_destroy(list);
            if (err || perr)
                throw std::runtime_error("kafka source: offset for timestamp in " + topic + " [" +
                                         std::to_string(partition) +
                                         "]: " + rd_kafka_err2str(err ? err : perr));
            return offset < 0 ? RD_KAFKA_OFFSET_END : offset;
        }
    }
    return RD_KAFKA_OFFSET_STORED;
}

std::int64_t KafkaConsumer::out_of_range(const PartitionKey& key, std::int64_t offset) {
    std::int64_t earliest = 0, latest = 0;
    rd_kafka_resp_err_t err = rd_kafka_query_watermark_offsets(
        rk_, key.first.c_str(), key.second, &earliest, &latest, kMetadataTimeoutMs);
    const std::string where = "topic " + key.first + ", partition " + std::to_string(key.second);
    if (err)
        throw std::runtime_error(
            "kafka source: offset " + std::to_string(offset) + " of " + where +
            " is out of range, and its earliest offset cannot be read: " + rd_kafka_err2str(err));
    auto restored = restored_.offsets.find(key);
    const std::string which = restored != restored_.offsets.end() && restored->second == offset
                                  ? "checkpointed offset"
                                  : "offset";
    const std::string range = "the partition holds offsets " + std::to_string(earliest) + " to " +
                              std::to_string(latest) +
                              (offset < earliest ? " (the records before were deleted by "
                                                   "retention or kafka-delete-records)"
                                                 : "");
    const std::string& r = reset_policy_;
    const bool to_earliest = r == "earliest" || r == "smallest" || r == "beginning";
    const bool to_latest = r == "latest" || r == "largest" || r == "end";
    if (!to_earliest && !to_latest)
        throw std::runtime_error(
            "kafka source: cannot read " + where + " at its " + which + " " +
            std::to_string(offset) + ": " + range + "; the earliest available offset is " +
            std::to_string(earliest) +
            ". Nothing was skipped. To go on from the earliest (or latest) available offset, "
            "accepting the gap, set properties.auto.offset.reset: earliest (or latest)");
    const std::int64_t target = to_earliest ? earliest : latest;
    const std::int64_t skipped = std::max<std::int64_t>(0, target - offset);
    spdlog::warn(
        "kafka source: {} {} {} is out of range: {}; properties.auto.offset.reset: {} moves it "
        "to {}, skipping {} record(s)",
        where, which, offset, range, r, target, skipped);
    const metrics::Labels labels = {{"role", "source"},
                                    {"connector", "kafka"},
                                    {"topic", key.first},
                                    {"partition", std::to_string(key.second)}};
    metrics_.registry()
        .counter("cdcd_kafka_offset_resets_total",
                 "Offsets found out of range and moved by properties.auto.offset.reset", labels)
        .inc();
    metrics_.registry()
        .counter("cdcd_kafka_offset_reset_skipped_records_total",
                 "Records skipped by offset resets (between the offset out of range and the one "
                 "the reset moved to)",
                 labels)
        .inc(static_cast<std::uint64_t>(skipped));
    return target;
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

void KafkaConsumer::discover(bool initial) {
    const rd_kafka_metadata_t* md = nullptr;
    // The first time, in slices: refused credentials or certificate end the wait at once.
    const int slice = initial ? kMetadataTimeoutMs / 10 : kMetadataTimeoutMs;
    rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR__TIMED_OUT;
    for (int waited = 0; waited < kMetadataTimeoutMs; waited += slice) {
        err = rd_kafka_metadata(rk_, 1, nullptr, &md, slice);
        if (!err || !initial || queued_connection_error()) break;
    }
    if (err) {
        if (initial) {
            std::string why = rd_kafka_err2str(err);
            if (auto cause = queued_connection_error()) why = *cause;
            throw std::runtime_error("kafka source: cannot read topic metadata: " + why);
        }
        spdlog::warn("kafka source: partition discovery failed: {}", rd_kafka_err2str(err));
        return;
    }
    std::vector<PartitionKey> fresh;
    std::set<std::string> seen;
    for (int t = 0; t < md->topic_cnt; ++t) {
        const auto& topic = md->topics[t];
        std::string name = topic.topic;
        bool wanted = pattern_ ? RE2::FullMatch(name, *pattern_)
                               : std::find(settings_.topics.begin(), settings_.topics.end(),
                                           name) != settings_.topics.end();
        if (!wanted || topic.err) continue;
        if (name.rfind("__", 0) == 0 && pattern_) continue;  // internal topics
        seen.insert(name);
        for (int p = 0; p < topic.partition_cnt; ++p) {
            PartitionKey key{name, topic.partitions[p].id};
            if (!assigned_.count(key)) fresh.push_back(key);
        }
    }
    rd_kafka_metadata_destroy(md);
    for (const auto& t : settings_.topics) {
        if (!seen.count(t) && warned_missing_.insert(t).second)
            spdlog::warn(
                "kafka source: topic {} does not exist (yet); it is picked up when it appears", t);
    }
    if (fresh.empty()) return;
    std::sort(fresh.begin(), fresh.end());
    for (const auto& key : fresh) {
        Assigned a;
        a.start = start_offset(key.first, key.second, initial);
        if (settings_.bounded) {
            if (!initial) continue;  // bounded input: only what existed at start
            std::int64_t lo = 0, hi = 0;
            rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(
                rk_, key.first.c_str(), key.second, &lo, &hi, kMetadataTimeoutMs);
            if (e)
                throw std::runtime_error("kafka source: end offset of " + key.first + ": " +
                                         rd_kafka_err2str(e));
            a.end = hi;
            a.done = hi <= lo || (a.start >= 0 && a.start >= hi);
        }
        if (a.start >= 0) position_[key] = a.start;
        spdlog::info("kafka source: reading {} [{}] from {}", key.first, key.second,
                     a.start >= 0                           ? std::to_string(a.start)
                     : a.start == RD_KAFKA_OFFSET_BEGINNING ? "the earliest offset"
                     : a.start == RD_KAFKA_OFFSET_END       ? "the latest offset"
                                                            : "the committed group offset");
        assigned_.emplace(key, a);
    }
    reassign();
    // Partitions pinned to an explicit offset are part of the state from now on.
    Chunk chunk;
    for (const auto& key : fresh)
        if (auto p = position_.find(key); p != position_.end())
            chunk.offsets.emplace_back(key, p->second);
    if (!chunk.offsets.empty()) push(std::move(chunk));
}

// ---- consumer group membership (scan.consumer-group.enabled) ---------------------------------

void KafkaConsumer::subscribe() {
    std::set<std::string> wanted(settings_.topics.begin(), settings_.topics.end());
    if (pattern_) {
        // The Java regex is matched here (librdkafka's own patterns are POSIX): the member
        // subscribes to the matching topics, again at each partition discovery.
        const rd_kafka_metadata_t* md = nullptr;
        rd_kafka_resp_err_t err = rd_kafka_metadata(rk_, 1, nullptr, &md, kMetadataTimeoutMs);
        if (err) {
            if (subscribed_.empty())
                throw std::runtime_error(std::string("kafka source: cannot read topic metadata: ") +
                                         rd_kafka_err2str(err));
            spdlog::warn("kafka source: topic discovery failed: {}", rd_kafka_err2str(err));
            return;
        }
        for (int t = 0; t < md->topic_cnt; ++t) {
            std::string name = md->topics[t].topic;
            if (!md->topics[t].err && name.rfind("__", 0) != 0 && RE2::FullMatch(name, *pattern_))
                wanted.insert(name);
        }
        rd_kafka_metadata_destroy(md);
    }
    if (wanted.empty() || wanted == subscribed_) return;
    rd_kafka_topic_partition_list_t* list =
        rd_kafka_topic_partition_list_new(static_cast<int>(wanted.size()));
    std::string names;
    for (const auto& t : wanted) {
        rd_kafka_topic_partition_list_add(list, t.c_str(), RD_KAFKA_PARTITION_UA);
        names += (names.empty() ? "" : ", ") + t;
    }
    rd_kafka_resp_err_t err = rd_kafka_subscribe(rk_, list);
    rd_kafka_topic_partition_list_destroy(list);
    if (err)
        throw std::runtime_error("kafka source: cannot subscribe to " + names + ": " +
                                 rd_kafka_err2str(err));
    subscribed_ = std::move(wanted);
    spdlog::info("kafka source: subscribed to {} as a member of consumer group {}", names,
                 *find_setting(settings_.client, "group.id"));
}

void KafkaConsumer::on_rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                                 rd_kafka_topic_partition_list_t* partitions, void* opaque) {
    auto* self = static_cast<KafkaConsumer*>(opaque);
    // Called from librdkafka's C code: nothing may be thrown through it. A failure is rethrown
    // by run() once the consume call returns.
    try {
        if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
            self->assign_from_group(partitions);
            return;
        }
        if (err == RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS) {
            self->revoke_from_group(partitions);
            return;
        }
        spdlog::warn("kafka source: consumer group rebalance failed: {}", rd_kafka_err2str(err));
    } catch (...) {
        if (!self->callback_error_) self->callback_error_ = std::current_exception();
    }
    // The partitions are given up so that librdkafka's rebalance goes on.
    if (err != RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS)
        if (rd_kafka_error_t* e = rd_kafka_incremental_unassign(rk, partitions))
            rd_kafka_error_destroy(e);
}

std::int64_t KafkaConsumer::group_start_offset(const std::string& topic, std::int32_t partition) {
    std::int64_t own = -1;
    if (auto it = restored_.offsets.find({topic, partition}); it != restored_.offsets.end())
        own = it->second;
    if (auto it = handed_over_at_.find({topic, partition}); it != handed_over_at_.end())
        own = std::max(own, it->second);
    const std::int64_t group = committed(topic, partition);
    // Offsets only grow: the larger one is the more recent position. Ours is newer when this
    // replica stopped after a checkpoint whose commit to the group did not get through.
    if (own >= 0 || group >= 0) return std::max(own, group);
    return start_offset(topic, partition, true);
}

void KafkaConsumer::assign_from_group(const rd_kafka_topic_partition_list_t* partitions) {
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_copy(partitions);
    Chunk pinned;
    for (int i = 0; i < list->cnt; ++i) {
        rd_kafka_topic_partition_t& e = list->elems[i];
        PartitionKey key{e.topic, e.partition};
        Assigned a;
        try {
            a.start = group_start_offset(key.first, key.second);
        } catch (...) {
            rd_kafka_topic_partition_list_destroy(list);
            throw;
        }
        e.offset = a.start;
        if (a.start >= 0) {
            position_[key] = a.start;
            pinned.offsets.emplace_back(key, a.start);
        } else {
            position_.erase(key);
        }
        assigned_[key] = a;
        spdlog::info("kafka source: the consumer group assigned {} [{}]; reading from {}",
                     key.first, key.second,
                     a.start >= 0                           ? std::to_string(a.start)
                     : a.start == RD_KAFKA_OFFSET_BEGINNING ? "the earliest offset"
                                                            : "the latest offset");
        std::lock_guard lock(lag_mutex_);
        auto [it, fresh] = lag_.try_emplace(key);
        if (fresh) it->second.gauge = &metrics_.consumer_lag(key.first, key.second);
        it->second.position = a.start >= 0 ? a.start : -1;
        it->second.fetching = true;
    }
    {
        std::lock_guard lock(group_mutex_);
        for (int i = 0; i < list->cnt; ++i)
            owned_.emplace(list->elems[i].topic, list->elems[i].partition);
    }
    rd_kafka_error_t* error = rd_kafka_incremental_assign(rk_, list);
    rd_kafka_topic_partition_list_destroy(list);
    if (error) {
        std::string why = rd_kafka_error_string(error);
        rd_kafka_error_destroy(error);
        throw std::runtime_error(
            "kafka source: cannot take the partitions the consumer group "
            "assigned: " +
            why);
    }
    // Their start offsets join the next checkpoint (and so the next commit to the group).
    if (!pinned.offsets.empty()) push(std::move(pinned));
}

void KafkaConsumer::revoke_from_group(const rd_kafka_topic_partition_list_t* partitions) {
    std::vector<PartitionKey> keys;
    std::string names;
    for (int i = 0; i < partitions->cnt; ++i) {
        keys.emplace_back(partitions->elems[i].topic, partitions->elems[i].partition);
        names += (names.empty() ? "" : ", ") + keys.back().first + " [" +
                 std::to_string(keys.back().second) + "]";
    }
    // Lost: the group moved on without this member (a missed session, or librdkafka 2.0 taking a
    // commit refused during a rebalance as a loss, its issue #4059). Committing could move the
    // group back; the partitions are drained all the same, so that what this replica read from
    // them reaches the sink before their next owner (if the group still waits for us) writes.
    const bool lost = rd_kafka_assignment_lost(rk_);
    if (stop_) {
        // Closing: the last completed checkpoint's offsets are the durable position.
        Offsets last;
        {
            std::lock_guard lock(group_mutex_);
            for (const auto& key : keys)
                if (auto it = last_committed_.find(key); it != last_committed_.end())
                    last.insert(*it);
        }
        if (!lost) commit_sync(last, "last checkpoint's");
    } else {
        if (lost)
            spdlog::warn(
                "kafka source: lost partitions {} (the consumer group went on without this "
                "member); their next owner resumes from the last offsets committed to the group",
                names);
        else
            spdlog::info(
                "kafka source: the consumer group revokes {}; handing them over after the "
                "next checkpoint",
                names);
        {
            std::lock_guard lock(group_mutex_);
            handed_over_.reset();
        }
        Chunk chunk;
        chunk.revoked = keys;
        push(std::move(chunk));
        std::unique_lock lock(group_mutex_);
        const bool done =
            handed_over_cv_.wait_for(lock, std::chrono::milliseconds(hand_over_timeout_ms_),
                                     [&] { return handed_over_.has_value() || stop_.load(); });
        std::optional<Offsets> offsets = std::move(handed_over_);
        handed_over_.reset();
        lock.unlock();
        if (offsets) {
            // Durable in this replica's checkpoint: should the group give them back to us.
            for (const auto& [key, offset] : *offsets) handed_over_at_[key] = offset;
            if (!lost) {
                // Stored too: librdkafka's auto-commit commits the stored offsets of the
                // partitions it unassigns, which must not be an older checkpoint's.
                rd_kafka_topic_partition_list_t* list =
                    rd_kafka_topic_partition_list_new(static_cast<int>(offsets->size()));
                for (const auto& [key, offset] : *offsets)
                    rd_kafka_topic_partition_list_add(list, key.first.c_str(), key.second)->offset =
                        offset;
                rd_kafka_offsets_store(rk_, list);
                rd_kafka_topic_partition_list_destroy(list);
                commit_sync(*offsets, "hand-over");
            }
        } else if (!done) {
            spdlog::warn(
                "kafka source: no checkpoint completed within {} ms (half of "
                "properties.max.poll.interval.ms) to hand over {}; giving them up: their next "
                "owner resumes from the last committed offsets and reads what followed again",
                hand_over_timeout_ms_, names);
        }
    }
    {
        std::lock_guard lock(group_mutex_);
        for (const auto& key : keys) {
            owned_.erase(key);
            last_committed_.erase(key);
        }
    }
    {
        std::lock_guard lock(lag_mutex_);
        for (const auto& key : keys)
            if (auto it = lag_.find(key); it != lag_.end()) {
                it->second.gauge->set(0);  // another member's lag now
                lag_.erase(it);
            }
    }
    for (const auto& key : keys) {
        assigned_.erase(key);
        position_.erase(key);
    }
    rd_kafka_error_t* error = rd_kafka_incremental_unassign(rk_, partitions);
    if (error) {
        std::string why = rd_kafka_error_string(error);
        rd_kafka_error_destroy(error);
        throw std::runtime_error("kafka source: cannot give up the revoked partitions " + names +
                                 ": " + why);
    }
}

void KafkaConsumer::resume_at(const PartitionKey& key, std::int64_t offset) {
    if (!settings_.consumer_group) {
        reassign();
        return;
    }
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(list, key.first.c_str(), key.second)->offset = offset;
    rd_kafka_error_t* error = rd_kafka_seek_partitions(rk_, list, kMetadataTimeoutMs);
    rd_kafka_topic_partition_list_destroy(list);
    if (error) {
        std::string why = rd_kafka_error_string(error);
        rd_kafka_error_destroy(error);
        throw std::runtime_error("kafka source: cannot resume topic " + key.first + ", partition " +
                                 std::to_string(key.second) + " at offset " +
                                 std::to_string(offset) + ": " + why);
    }
}

void KafkaConsumer::reassign() {
    rd_kafka_topic_partition_list_t* list =
        rd_kafka_topic_partition_list_new(static_cast<int>(assigned_.size()));
    for (auto& [key, a] : assigned_) {
        if (a.done) continue;
        a.reassigned = true;
        auto p = position_.find(key);
        rd_kafka_topic_partition_list_add(list, key.first.c_str(), key.second)->offset =
            p != position_.end() ? p->second : a.start;
    }
    {
        std::lock_guard lock(lag_mutex_);
        for (const auto& [key, a] : assigned_) {
            auto [it, fresh] = lag_.try_emplace(key);
            PartitionLag& p = it->second;
            if (fresh) p.gauge = &metrics_.consumer_lag(key.first, key.second);
            if (auto pos = position_.find(key); pos != position_.end()) p.position = pos->second;
            p.fetching = !a.done;
        }
    }
    rd_kafka_resp_err_t err = rd_kafka_assign(rk_, list);
    if (assignment_) rd_kafka_topic_partition_list_destroy(assignment_);
    assignment_ = list;
    if (err)
        throw std::runtime_error(std::string("kafka source: assign failed: ") +
                                 rd_kafka_err2str(err));
}

bool KafkaConsumer::all_done() const {
    for (const auto& [key, a] : assigned_)
        if (!a.done) return false;
    return true;
}

void KafkaConsumer::set_lag(PartitionLag& p) {
    if (p.position >= 0 && p.high >= 0)
        p.gauge->set(static_cast<double>(std::max<std::int64_t>(0, p.high - p.position)));
}

void KafkaConsumer::track_lag() {
    std::int64_t backlog = 0;
    {
        std::lock_guard lock(lag_mutex_);
        for (auto& [key, p] : lag_) {
            if (auto pos = position_.find(key); pos != position_.end()) p.position = pos->second;
            if (!p.fetching) {
                set_lag(p);
                continue;
            }
            // The high watermark of the last fetch response (no request).
            std::int64_t low = 0, high = -1;
            if (rd_kafka_get_watermark_offsets(rk_, key.first.c_str(), key.second, &low, &high) ==
                    RD_KAFKA_RESP_ERR_NO_ERROR &&
                high > p.high)
                p.high = high;
            set_lag(p);
            if (p.position >= 0 && p.high > p.position) backlog += p.high - p.position;
        }
    }
    if (backlog == 0) return;
    const std::int64_t queued = rd_kafka_queue_length(queue_);
    if (queued >= backlog) return;  // the rest is fetched already
    std::int64_t limit = queue_max_messages_;
    if (seen_messages_ > 0 && queue_max_bytes_ > 0) {
        const auto average =
            std::max<std::int64_t>(1, static_cast<std::int64_t>(seen_bytes_ / seen_messages_));
        limit = std::min(limit, queue_max_bytes_ / average);
    }
    if (queued * 2 >= limit) return;  // librdkafka is (or will be) fetching by itself
    std::lock_guard lock(lag_mutex_);
    if (!wake_requested_) {
        wake_requested_ = true;
        lag_cv_.notify_one();
    }
}

void KafkaConsumer::query_watermarks() {
    std::vector<PartitionKey> keys;
    {
        std::lock_guard lock(lag_mutex_);
        for (const auto& [key, p] : lag_)
            if (p.fetching) keys.push_back(key);
    }
    if (keys.empty()) return;
    rd_kafka_topic_partition_list_t* list =
        rd_kafka_topic_partition_list_new(static_cast<int>(keys.size()));
    for (const auto& key : keys)
        rd_kafka_topic_partition_list_add(list, key.first.c_str(), key.second)->offset =
            RD_KAFKA_OFFSET_END;  // timestamp -1: the latest offset
    ++watermark_queries_;
    rd_kafka_resp_err_t err = rd_kafka_offsets_for_times(rk_, list, kWatermarkTimeoutMs);
    if (!err) {
        std::lock_guard lock(lag_mutex_);
        for (int i = 0; i < list->cnt; ++i) {
            const rd_kafka_topic_partition_t& e = list->elems[i];
            auto it = lag_.find({e.topic, e.partition});
            if (e.err || e.offset < 0 || it == lag_.end()) continue;
            if (e.offset > it->second.high) it->second.high = e.offset;
            set_lag(it->second);
        }
    } else if (!stop_) {
        spdlog::debug("kafka source: watermark query failed: {}", rd_kafka_err2str(err));
    }
    rd_kafka_topic_partition_list_destroy(list);
}

void KafkaConsumer::watermarks() {
    auto last = std::chrono::steady_clock::now() - std::chrono::hours(1);
    while (!stop_) {
        {
            std::unique_lock lock(lag_mutex_);
            lag_cv_.wait_until(lock, last + std::chrono::milliseconds(kWatermarkIntervalMs),
                               [&] { return wake_requested_ || stop_.load(); });
            if (stop_) return;
            wake_requested_ = false;
        }
        auto now = std::chrono::steady_clock::now();
        if (now - last < std::chrono::milliseconds(kMinWakeSpacingMs))
            std::this_thread::sleep_for(std::chrono::milliseconds(kMinWakeSpacingMs) -
                                        (now - last));
        last = std::chrono::steady_clock::now();
        query_watermarks();
    }
}

void KafkaConsumer::run() {
    std::vector<rd_kafka_message_t*> messages(settings_.max_batch);
    try {
        if (settings_.consumer_group)
            subscribe();
        else
            discover(true);
        std::int64_t next_discovery = now_ms() + settings_.discovery_interval_ms;
        while (!stop_) {
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
            Chunk chunk;
            chunk.events.reserve(static_cast<std::size_t>(n));
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
                    try {
                        decoder_.decode(*m, chunk.events);
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
            if (moved.empty() && chunk.events.empty()) continue;
            chunk.offsets.assign(moved.begin(), moved.end());
            push(std::move(chunk));
        }
    } catch (...) {
        Chunk failed;
        failed.error = std::current_exception();
        push(std::move(failed));
    }
}

}  // namespace cdcd::kafka
