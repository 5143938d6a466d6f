// The sink's producers are idempotent unless the user says otherwise, and exactly-once
// transactional ids never come from the default pipeline name; a stalled transaction has a limit.
#include "sinks/kafka/producer_config.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>

using namespace cdcd;
using namespace cdcd::kafka;

namespace {

using Config = std::vector<std::pair<std::string, std::string>>;

// The value librdkafka ends up with for `key` (the last setting wins), or "".
std::string effective(const Config& config, const std::string& key) {
    std::string value;
    for (const auto& [k, v] : config)
        if (k == key) value = v;
    return value;
}

// Whether librdkafka accepts the configuration for a producer (it checks idempotence against
// acks and the other settings in rd_kafka_new; no broker is contacted).
std::string producer_error(const Config& config) {
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    char err[512] = "";
    for (const auto& [k, v] : config)
        if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
            rd_kafka_conf_destroy(conf);
            return err;
        }
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!rk) {
        rd_kafka_conf_destroy(conf);
        return err;
    }
    rd_kafka_destroy(rk);
    return "";
}

KafkaSinkSettings with_properties(const std::map<std::string, std::string>& properties) {
    KafkaSinkSettings s;
    s.client = translate_properties(properties, ClientRole::Producer);
    return s;
}

}  // namespace

TEST_CASE("producers are idempotent by default, as Java's since Kafka 3.0") {
    Config config = producer_config(with_properties({}));
    CHECK(effective(config, "enable.idempotence") == "true");
    CHECK(producer_error(config).empty());
    CHECK_FALSE(idempotence_off_because(with_properties({}).client));
}

TEST_CASE(
    "the producer's local queue holds 12 MiB unless the user's buffer.memory says otherwise") {
    CHECK(effective(producer_config(with_properties({})), "queue.buffering.max.kbytes") == "12288");
    CHECK(effective(producer_config(with_properties({{"buffer.memory", "33554432"}})),
                    "queue.buffering.max.kbytes") == "32768");
    CHECK(effective(producer_config(with_properties({{"queue.buffering.max.kbytes", "4096"}})),
                    "queue.buffering.max.kbytes") == "4096");
}

TEST_CASE("the producer's default queue holds the largest record max.request.size lets through") {
    // A record larger than the whole queue would be answered "queue full" for ever.
    CHECK(effective(producer_config(with_properties({{"max.request.size", "30000000"}})),
                    "queue.buffering.max.kbytes") == "29297");
    CHECK(effective(producer_config(with_properties({{"message.max.bytes", "20971520"}})),
                    "queue.buffering.max.kbytes") == "20480");
    CHECK(effective(producer_config(with_properties({{"max.request.size", "2000000"}})),
                    "queue.buffering.max.kbytes") == "12288");
    // The user's own bound is kept; a record larger than it goes to the bad-record policy.
    CHECK(effective(producer_config(with_properties(
                        {{"max.request.size", "30000000"}, {"buffer.memory", "8388608"}})),
                    "queue.buffering.max.kbytes") == "8192");
}

TEST_CASE("the user's enable.idempotence: false wins") {
    auto s = with_properties({{"enable.idempotence", "false"}});
    CHECK(effective(producer_config(s), "enable.idempotence") == "false");
    CHECK(*idempotence_off_because(s.client) == "properties.enable.idempotence: false");
}

TEST_CASE("settings idempotence cannot work with turn it off, unless it was asked for") {
    for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
             {"acks", "1"},
             {"acks", "0"},
             {"retries", "0"},
             {"max.in.flight.requests.per.connection", "10"}}) {
        INFO(key << ": " << value);
        auto s = with_properties({{key, value}});
        Config config = producer_config(s);
        CHECK(effective(config, "enable.idempotence").empty());
        CHECK(producer_error(config).empty());  // librdkafka would refuse acks 1 + idempotence
        CHECK(*idempotence_off_because(s.client) == "properties." + key + ": " + value);
    }
    for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
             {"acks", "all"},
             {"acks", "-1"},
             {"retries", "5"},
             {"max.in.flight.requests.per.connection", "5"}}) {
        INFO(key << ": " << value);
        Config config = producer_config(with_properties({{key, value}}));
        CHECK(effective(config, "enable.idempotence") == "true");
        CHECK(producer_error(config).empty());
    }
}

TEST_CASE("exactly-once: transactional ids from sink.transactional-id-prefix or pipeline.name") {
    KafkaSinkSettings s;
    s.pipeline_name = "orders-relay";
    CHECK(transactional_names(s).id_base == "cdcd-orders-relay");
    CHECK(transactional_names(s).group == "cdcd-eos-orders-relay");
    s.transactional_id_prefix = "orders";
    CHECK(transactional_names(s).id_base == "orders");
    CHECK(transactional_names(s).group == "orders-eos");
    s.pipeline_name = "Flink CDC Pipeline Job";
    CHECK(transactional_names(s).id_base == "orders");  // the prefix makes the default name fine
    s.transactional_id_prefix.reset();
    CHECK_THROWS_WITH(transactional_names(s), Catch::Contains("Set sink.transactional-id-prefix") &&
                                                  Catch::Contains("pipeline.name"));
}

TEST_CASE(
    "exactly-once: a producer that acknowledges nothing for three request timeouts is stuck") {
    using std::chrono::milliseconds;
    CHECK(transaction_stall_limit(with_properties({}).client) == milliseconds(90'000));
    CHECK(transaction_stall_limit(with_properties({{"request.timeout.ms", "45000"}}).client) ==
          milliseconds(135'000));
    // Short request timeouts (tests, low-latency setups) still wait at least a minute: a broker
    // restart is ridden out, not mistaken for a stuck producer.
    CHECK(transaction_stall_limit(with_properties({{"request.timeout.ms", "3000"}}).client) ==
          milliseconds(60'000));
}

TEST_CASE("a quiet writer sends at once, unless the user chose a linger or exactly-once") {
    CHECK(sends_promptly_when_idle(with_properties({})));
    CHECK(effective(producer_config(with_properties({})), "linger.ms") == "20");  // under load
    CHECK_FALSE(sends_promptly_when_idle(with_properties({{"linger.ms", "100"}})));
    CHECK_FALSE(sends_promptly_when_idle(with_properties({{"queue.buffering.max.ms", "0"}})));
    auto exactly_once = with_properties({});
    exactly_once.delivery = DeliveryGuarantee::ExactlyOnce;
    CHECK_FALSE(sends_promptly_when_idle(exactly_once));
    auto at_least_once = with_properties({});
    at_least_once.delivery = DeliveryGuarantee::AtLeastOnce;
    CHECK(sends_promptly_when_idle(at_least_once));
}

TEST_CASE("exactly-once: checkpoints must come more often than the broker aborts transactions") {
    using std::chrono::milliseconds;
    const auto defaults = with_properties({}).client;
    CHECK_FALSE(transactions_outlived(defaults, milliseconds(899'999)));
    REQUIRE(transactions_outlived(defaults, milliseconds(900'000)));
    CHECK_THAT(*transactions_outlived(defaults, milliseconds(900'000)),
               Catch::Contains("(900000 ms) is not shorter than the producer's "
                               "transaction.timeout.ms (900000 ms)"));
    const auto shorter = with_properties({{"transaction.timeout.ms", "60000"}}).client;
    CHECK(transactions_outlived(shorter, milliseconds(60'000)));
    CHECK_FALSE(transactions_outlived(shorter, milliseconds(10'000)));
}
