#include "sinks/kafka/producer_config.h"

#include <algorithm>
#include <stdexcept>

#include "config/pipeline_options.h"

namespace cdcd::kafka {

namespace {

// The user's value of a librdkafka key or one of its aliases.
const std::string* user_setting(const ClientConfig& client,
                                std::initializer_list<const char*> names) {
    const std::string* found = nullptr;
    for (const char* name : names)
        if (const std::string* v = find_setting(client, name)) found = v;
    return found;
}

long long number_or(const std::string* text, long long fallback) {
    if (!text) return fallback;
    try {
        return std::stoll(*text);
    } catch (const std::exception&) {
        return fallback;
    }
}

// cdcd's transaction.timeout.ms (librdkafka's is 60 s): the broker's largest by default
// (transaction.max.timeout.ms), so a checkpoint may take long without the broker aborting it.
constexpr long long kTransactionTimeoutMs = 900'000;

// The local queue's bound in KiB of values (librdkafka counts values only, and adds ~200 B a
// record): it fills whenever the broker acknowledges slower than the pipeline produces. 12 MiB is
// 5 in-flight requests of 2 MB and more; 24 MiB took the relay's peak RSS past 100 MB (109 MB
// at parallelism 2), at no gain in throughput (bench/reports/kafka_relay.md). It is never below
// the largest record the producer sends (message.max.bytes, which max.request.size sets): a
// record the queue cannot hold would be answered "queue full" for ever.
long long default_queue_kbytes(const ClientConfig& client) {
    constexpr long long kQueueKbytes = 12 * 1024;
    constexpr long long kMessageMaxBytes = 1'000'000;  // librdkafka's default
    const long long largest =
        number_or(user_setting(client, {"message.max.bytes"}), kMessageMaxBytes);
    return std::max(kQueueKbytes, (largest + 1023) / 1024);
}

}  // namespace

std::optional<std::string> idempotence_off_because(const ClientConfig& client) {
    if (const std::string* v = find_setting(client, "enable.idempotence"))
        return *v == "true" || *v == "1"
                   ? std::nullopt
                   : std::optional<std::string>("properties.enable.idempotence: " + *v);
    if (const std::string* acks = user_setting(client, {"acks", "request.required.acks"});
        acks && *acks != "all" && *acks != "-1")
        return "properties.acks: " + *acks;
    if (const std::string* retries = user_setting(client, {"retries", "message.send.max.retries"});
        retries && number_or(retries, 1) == 0)
        return "properties.retries: 0";
    if (const std::string* in_flight =
            user_setting(client, {"max.in.flight.requests.per.connection", "max.in.flight"});
        in_flight && number_or(in_flight, 1) > 5)
        return "properties.max.in.flight.requests.per.connection: " + *in_flight;
    return std::nullopt;
}

bool sends_promptly_when_idle(const KafkaSinkSettings& s) {
    return s.delivery != DeliveryGuarantee::ExactlyOnce &&
           !user_setting(s.client, {"linger.ms", "queue.buffering.max.ms"});
}

std::vector<std::pair<std::string, std::string>> producer_config(const KafkaSinkSettings& s) {
    std::vector<std::pair<std::string, std::string>> config = {
        {"linger.ms", "20"},
        {"batch.num.messages", "20000"},
        {"batch.size", "2000000"},
        {"queue.buffering.max.messages", "200000"},
        {"queue.buffering.max.kbytes", std::to_string(default_queue_kbytes(s.client))},
        {"allow.auto.create.topics", "false"},  // the sink never creates topics
    };
    if (!idempotence_off_because(s.client)) config.emplace_back("enable.idempotence", "true");
    if (s.delivery == DeliveryGuarantee::ExactlyOnce)
        config.emplace_back("transaction.timeout.ms", std::to_string(kTransactionTimeoutMs));
    for (const auto& kv : s.client.librdkafka) config.push_back(kv);
    return config;
}

std::optional<std::string> transactions_outlived(const ClientConfig& client,
                                                 std::chrono::milliseconds checkpoint_interval) {
    const long long timeout =
        number_or(user_setting(client, {"transaction.timeout.ms"}), kTransactionTimeoutMs);
    if (checkpoint_interval.count() < timeout) return std::nullopt;
    return "exactly-once: execution.checkpointing.interval (" +
           std::to_string(checkpoint_interval.count()) +
           " ms) is not shorter than the producer's transaction.timeout.ms (" +
           std::to_string(timeout) +
           " ms): the broker would abort every transaction before the checkpoint that commits "
           "it, and each restart would fail the same way. Shorten the interval, or raise "
           "properties.transaction.timeout.ms (at most the broker's transaction.max.timeout.ms, "
           "15 min by default)";
}

std::chrono::milliseconds transaction_stall_limit(const ClientConfig& client) {
    constexpr long long kRequestTimeoutMs = 30'000;  // librdkafka's default
    constexpr long long kMinimumMs = 60'000;
    long long request_timeout =
        number_or(user_setting(client, {"request.timeout.ms"}), kRequestTimeoutMs);
    return std::chrono::milliseconds(std::max(3 * request_timeout, kMinimumMs));
}

TransactionalNames transactional_names(const KafkaSinkSettings& s) {
    if (s.transactional_id_prefix)
        return {*s.transactional_id_prefix, *s.transactional_id_prefix + "-eos"};
    if (s.pipeline_name == config::kDefaultPipelineName)
        throw std::invalid_argument(
            "kafka sink: sink.delivery-guarantee: exactly-once needs Kafka transactional ids of "
            "this pipeline's own, and pipeline.name is left at its default ('" +
            std::string(config::kDefaultPipelineName) +
            "'), which every such pipeline shares: they would fence each other's transactions. "
            "Set sink.transactional-id-prefix (or pipeline.name) to a name unique to this "
            "pipeline");
    return {"cdcd-" + s.pipeline_name, "cdcd-eos-" + s.pipeline_name};
}

}  // namespace cdcd::kafka
