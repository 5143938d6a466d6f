// The Kafka source's lag gauges and the watermark thread that keeps librdkafka fetching (see
// kafka_consumer.h). Part of KafkaConsumer.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "sources/kafka/kafka_consumer.h"

namespace cdcd::kafka {

namespace {

// The lag gauges are refreshed by a query at least this often, also while nothing is read.
constexpr int kWatermarkIntervalMs = 1'000;
// At most one wake-up query per this many milliseconds.
constexpr int kMinWakeSpacingMs = 2;

}  // namespace

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
        // A client left with no broker fetches nothing and learns of no broker by itself
        // (kafka_client/bootstrap_again.h); this query, made every second, notices it first.
        if (BootstrapAgain::found_no_broker(err))
            bootstrap_again_on_watermarks_(
                rk_, std::string("the watermark query failed: ") + rd_kafka_err2str(err));
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

}  // namespace cdcd::kafka
