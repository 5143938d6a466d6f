#pragma once
// The librdkafka configuration of the Kafka sink's producers, and the names its exactly-once
// transactions go by.
//
// Idempotence is on unless the user turns it off (the Java producer's default since Kafka 3.0):
// without it librdkafka may retry a failed batch after a later one was written, so a key's
// changes could land out of order, or twice. As in the Java producer, settings that rule it out
// (acks other than all, retries 0, more than 5 requests in flight) turn it off when the user did
// not ask for it explicitly.
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sinks/kafka/kafka_sink_options.h"

namespace cdcd::kafka {

/// Producer defaults tuned for throughput, then the user's properties.*.
std::vector<std::pair<std::string, std::string>> producer_config(const KafkaSinkSettings& settings);

/// Whether the sink's writers send what their producer lingers on as soon as their input runs
/// dry (prompt_send.h): when the linger is the sink's own default and the records are not
/// transactional. A linger.ms the user set is a delay they chose; exactly-once records are
/// visible only at the commit, whatever the linger.
bool sends_promptly_when_idle(const KafkaSinkSettings& settings);

/// The user's setting that rules idempotence out ("properties.acks: 1"), or "properties.enable.
/// idempotence: false"; nullopt when the producers are idempotent.
std::optional<std::string> idempotence_off_because(const ClientConfig& client);

/// Exactly-once: why checkpoints `checkpoint_interval` apart can never commit a transaction (the
/// broker aborts one open longer than the producer's transaction.timeout.ms); nullopt when they
/// can.
std::optional<std::string> transactions_outlived(const ClientConfig& client,
                                                 std::chrono::milliseconds checkpoint_interval);

/// Exactly-once: how long a transaction's records may go without a single delivery report before
/// the sink gives up on its producer: three request timeouts (properties.request.timeout.ms,
/// librdkafka's default 30 s), at least 60 s. Every request is answered or timed out and retried
/// within one request timeout, so a producer that acknowledges nothing for three of them is not
/// waiting on a slow broker: after some broker faults (a broker its controller fenced while its
/// partitions' leader moved to -1) librdkafka's transactional producer (2.10 to 2.12) stops sending
/// the queued records until message.timeout.ms, and may stay so.
std::chrono::milliseconds transaction_stall_limit(const ClientConfig& client);

/// Exactly-once: transactional ids are `<base>-0-<slot>`, the commit markers go to `group`.
struct TransactionalNames {
    std::string id_base;
    std::string group;
};
/// From sink.transactional-id-prefix (`<prefix>`, `<prefix>-eos`), else from pipeline.name
/// (`cdcd-<name>`, `cdcd-eos-<name>`). Throws std::invalid_argument when neither is set (the
/// default pipeline.name would make every such pipeline fence the others).
TransactionalNames transactional_names(const KafkaSinkSettings& settings);

}  // namespace cdcd::kafka
