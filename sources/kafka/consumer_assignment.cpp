// The Kafka source's partitions: which ones the consumer reads (topics, topic-pattern discovery,
// or the consumer group's assignment) and from which offset (checkpoint, startup mode, the
// group's committed offset, auto.offset.reset), the hand-over of a revoked partition and the
// offset commits to the group. Part of KafkaConsumer (kafka_consumer.h).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "sources/kafka/kafka_consumer.h"

namespace cdcd::kafka {

namespace {

constexpr int kMetadataTimeoutMs = 10'000;

}  // namespace

std::size_t partition_share(const std::string& topic, std::int32_t partition, std::size_t shares) {
    std::uint64_t h = 14695981039346656037ULL;  // FNV-1a: the same shares in every run
    for (unsigned char c : topic) h = (h ^ c) * 1099511628211ULL;
    return static_cast<std::size_t>((h + static_cast<std::uint64_t>(partition)) % shares);
}

void KafkaConsumer::on_commit(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                              rd_kafka_topic_partition_list_t*, void* opaque) {
    if (!err || err == RD_KAFKA_RESP_ERR__NO_OFFSET) return;
    spdlog::warn("kafka source: committing offsets to the consumer group failed: {}",
                 rd_kafka_err2str(err));
    // No coordinator, or no connection to the one known: the client may have no broker left
    // (kafka_client/bootstrap_again.h); it then fetches nothing either.
    if (err == RD_KAFKA_RESP_ERR__WAIT_COORD || err == RD_KAFKA_RESP_ERR__TRANSPORT ||
        err == RD_KAFKA_RESP_ERR__TIMED_OUT || err == RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE)
        static_cast<KafkaConsumer*>(opaque)->bootstrap_again_(
            rk, std::string("committing offsets failed: ") + rd_kafka_err2str(err));
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
            if (settings_.shares > 1 &&
                partition_share(key.first, key.second, settings_.shares) != settings_.share)
                continue;  // another split reader's
            if (!assigned_.count(key)) fresh.push_back(key);
        }
    }
    rd_kafka_metadata_destroy(md);
    for (const auto& t : settings_.topics) {
        if (settings_.share != 0) break;  // one split reader says it
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

}  // namespace cdcd::kafka
