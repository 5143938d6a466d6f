#include "sinks/kafka/producer.h"

#include <stdexcept>

#include "kafka_client/client_log.h"
#include "kafka_client/connection_error.h"
#include "kafka_client/kafka_properties.h"
#include "sinks/kafka/murmur2.h"

namespace cdcd::kafka {

Producer::Producer(const ProducerSettings& settings) : hash_by_key_(settings.hash_by_key) {
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    char err[512];
    auto set = [&](const std::string& k, const std::string& v) {
        set_or_throw(conf, k, v, "kafka producer");
    };
    for (const auto& [k, v] : settings.config) {
        set(k, v);
        if (BootstrapAgain::names_servers(k)) bootstrap_again_ = BootstrapAgain(v);
    }
    if (settings.transactional_id) set("transactional.id", *settings.transactional_id);
    char kbytes[32];
    std::size_t kbytes_size = sizeof kbytes;
    if (rd_kafka_conf_get(conf, "queue.buffering.max.kbytes", kbytes, &kbytes_size) !=
        RD_KAFKA_CONF_OK)
        throw std::logic_error("kafka producer: queue.buffering.max.kbytes unreadable");
    max_queued_value_bytes_ = static_cast<std::size_t>(std::stoull(kbytes)) * 1024;
    rd_kafka_conf_set_opaque(conf, this);
    rd_kafka_conf_set_dr_msg_cb(conf, &Producer::on_delivery);
    rd_kafka_conf_set_error_cb(conf, &Producer::on_error);
    log_through_spdlog(conf);
    rk_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!rk_) {
        rd_kafka_conf_destroy(conf);
        throw std::runtime_error(std::string("kafka producer: ") + err);
    }
}

Producer::~Producer() {
    for (auto& [name, t] : topics_) rd_kafka_topic_destroy(t);
    // Anything still queued was either flushed by the writer or belongs to a failed pipeline.
    rd_kafka_purge(rk_, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    rd_kafka_poll(rk_, 0);
    rd_kafka_destroy(rk_);
}

rd_kafka_topic_t* Producer::topic(const std::string& name) {
    auto it = topics_.find(name);
    if (it != topics_.end()) return it->second;
    rd_kafka_topic_conf_t* tconf = rd_kafka_topic_conf_new();
    if (hash_by_key_)
        rd_kafka_topic_conf_set_partitioner_cb(tconf, &Producer::partition_by_murmur2);
    rd_kafka_topic_t* t = rd_kafka_topic_new(rk_, name.c_str(), tconf);
    if (!t)
        throw std::runtime_error("kafka sink: cannot create topic handle for " + name + ": " +
                                 rd_kafka_err2str(rd_kafka_last_error()));
    topics_.emplace(name, t);
    return t;
}

rd_kafka_resp_err_t Producer::produce(rd_kafka_topic_t* topic, std::int32_t partition,
                                      std::string_view key, std::string_view value,
                                      const Headers* headers) {
    const std::int32_t p = partition < 0 ? RD_KAFKA_PARTITION_UA : partition;
    if (!headers || headers->empty()) {
        if (rd_kafka_produce(topic, p, RD_KAFKA_MSG_F_COPY, const_cast<char*>(value.data()),
                             value.size(), key.data(), key.size(), nullptr) == -1)
            return rd_kafka_last_error();
        return RD_KAFKA_RESP_ERR_NO_ERROR;
    }
    rd_kafka_headers_t* hdrs = rd_kafka_headers_new(headers->size());
    for (const auto& [k, v] : *headers)
        rd_kafka_header_add(hdrs, k.data(), static_cast<ssize_t>(k.size()), v.data(),
                            static_cast<ssize_t>(v.size()));
    rd_kafka_resp_err_t err = rd_kafka_producev(
        rk_, RD_KAFKA_V_RKT(topic), RD_KAFKA_V_PARTITION(p),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_KEY(key.data(), key.size()),
        RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()), RD_KAFKA_V_HEADERS(hdrs),
        RD_KAFKA_V_END);
    if (err) rd_kafka_headers_destroy(hdrs);  // ownership passes only on success
    return err;
}

void Producer::produce_batch(rd_kafka_topic_t* topic, std::int32_t partition,
                             rd_kafka_message_t* records, std::size_t count) {
    const std::int32_t p = partition < 0 ? RD_KAFKA_PARTITION_UA : partition;
    rd_kafka_produce_batch(topic, p, RD_KAFKA_MSG_F_COPY, records, static_cast<int>(count));
}

void Producer::on_delivery(rd_kafka_t*, const rd_kafka_message_t* msg, void* opaque) {
    auto* self = static_cast<Producer*>(opaque);
    if (!msg->err) {
        self->delivered_.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    self->failed_count_.fetch_add(1, std::memory_order_relaxed);
    if (self->failed_.exchange(true)) return;
    std::lock_guard lock(self->error_mutex_);
    self->first_error_ = std::string(rd_kafka_topic_name(msg->rkt)) + " [" +
                         std::to_string(msg->partition) + "]: " + rd_kafka_err2str(msg->err) +
                         " (record key " +
                         (msg->key ? std::string(static_cast<const char*>(msg->key), msg->key_len)
                                   : std::string("(none)")) +
                         ", " + std::to_string(msg->key_len + msg->len) + " bytes)";
}

void Producer::on_error(rd_kafka_t* rk, int err, const char* reason, void* opaque) {
    auto lasting = lasting_connection_error(err, reason);
    if (!lasting) {
        log_client_error(rd_kafka_name(rk), err, reason);  // librdkafka retries by itself
        return;
    }
    // Fails the sink at its next delivery check instead of after message.timeout.ms.
    auto* self = static_cast<Producer*>(opaque);
    self->failed_count_.fetch_add(1, std::memory_order_relaxed);
    if (self->failed_.exchange(true)) return;
    std::lock_guard lock(self->error_mutex_);
    self->first_error_ = *lasting;
}

std::int32_t Producer::partition_by_murmur2(const rd_kafka_topic_t*, const void* key, size_t keylen,
                                            std::int32_t partition_count, void*, void*) {
    return key_partition(std::string_view(static_cast<const char*>(key), keylen), partition_count);
}

std::optional<std::string> Producer::delivery_error() const {
    if (!failed_.load()) return std::nullopt;
    std::lock_guard lock(error_mutex_);
    return first_error_;
}

void Producer::flush(int timeout_ms) {
    rd_kafka_resp_err_t err = rd_kafka_flush(rk_, timeout_ms);
    if (err == RD_KAFKA_RESP_ERR__TIMED_OUT)
        throw std::runtime_error("kafka sink: " + std::to_string(rd_kafka_outq_len(rk_)) +
                                 " records not acknowledged within " + std::to_string(timeout_ms) +
                                 " ms");
}

void Producer::check_error(rd_kafka_error_t* error, const char* what) {
    if (!error) return;
    std::string text = std::string("kafka sink: ") + what + ": " + rd_kafka_error_string(error);
    rd_kafka_error_destroy(error);
    rd_kafka_poll(rk_, 0);  // serves the client errors that may say why
    if (auto cause = delivery_error()) text += " (" + *cause + ")";
    throw std::runtime_error(text);
}

void Producer::await_connection(int timeout_ms) {
    constexpr int kSliceMs = 1'000;
    for (int waited = 0; waited < timeout_ms; waited += kSliceMs) {
        const rd_kafka_metadata_t* md = nullptr;
        if (rd_kafka_metadata(rk_, 0, nullptr, &md, kSliceMs) == RD_KAFKA_RESP_ERR_NO_ERROR) {
            rd_kafka_metadata_destroy(md);
            return;
        }
        rd_kafka_poll(rk_, 0);  // serves on_error
        if (auto error = delivery_error()) throw std::runtime_error("kafka sink: " + *error);
    }
}

void Producer::start_waiting() {
    acknowledged_ = delivered() + failed();
    acknowledged_at_ = std::chrono::steady_clock::now();
}

std::chrono::steady_clock::duration Producer::unacknowledged_for() {
    const auto now = std::chrono::steady_clock::now();
    if (const auto count = delivered() + failed(); count != acknowledged_ || in_flight() == 0) {
        acknowledged_ = count;
        acknowledged_at_ = now;
        return {};
    }
    const auto waited = now - acknowledged_at_;
    if (waited >= std::chrono::seconds(5) && bootstrap_again_.due())  // the reason costs a string
        bootstrap_again_(
            rk_,
            "no record acknowledged for " +
                std::to_string(std::chrono::duration_cast<std::chrono::seconds>(waited).count()) +
                " s with " + std::to_string(in_flight()) + " waiting");
    return waited;
}

void Producer::init_transactions(int timeout_ms) {
    // init_transactions itself would wait out its timeout on refused credentials.
    await_connection(timeout_ms);
    check_error(rd_kafka_init_transactions(rk_, timeout_ms), "init transactions");
}
void Producer::begin_transaction() {
    check_error(rd_kafka_begin_transaction(rk_), "begin transaction");
}
void Producer::commit_transaction(int timeout_ms) {
    check_error(rd_kafka_commit_transaction(rk_, timeout_ms), "commit transaction");
}
void Producer::abort_transaction(int timeout_ms) {
    check_error(rd_kafka_abort_transaction(rk_, timeout_ms), "abort transaction");
}

}  // namespace cdcd::kafka
