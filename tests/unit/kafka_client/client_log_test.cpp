// librdkafka's log lines reach cdcd's logger (and so --log-format, --log-file and redaction)
// instead of stderr.
#include "kafka_client/client_log.h"

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <catch2/catch.hpp>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

using namespace cdcd::kafka;

TEST_CASE("librdkafka's syslog levels map onto spdlog's") {
    CHECK(log_level_of(0) == spdlog::level::critical);
    CHECK(log_level_of(2) == spdlog::level::critical);
    CHECK(log_level_of(3) == spdlog::level::err);
    CHECK(log_level_of(4) == spdlog::level::warn);
    CHECK(log_level_of(5) == spdlog::level::info);
    CHECK(log_level_of(6) == spdlog::level::info);
    CHECK(log_level_of(7) == spdlog::level::debug);
}

namespace {

// The default logger's lines while it lives, kept with their levels; the logger before it after.
class CapturedLog {
  public:
    CapturedLog()
        : sink_(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(64)),
          previous_(spdlog::default_logger()) {
        spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", sink_));
    }
    ~CapturedLog() { spdlog::set_default_logger(previous_); }
    CapturedLog(const CapturedLog&) = delete;
    CapturedLog& operator=(const CapturedLog&) = delete;

    /// The lines holding `part`, each with its level.
    std::vector<std::pair<std::string, spdlog::level::level_enum>> lines_with(
        std::string_view part) const {
        std::vector<std::pair<std::string, spdlog::level::level_enum>> found;
        for (const auto& line : sink_->last_raw()) {
            std::string text(line.payload.data(), line.payload.size());
            if (text.find(part) != std::string::npos)
                found.emplace_back(std::move(text), line.level);
        }
        return found;
    }

  private:
    std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink_;
    std::shared_ptr<spdlog::logger> previous_;
};

// A client configuration with `settings`, its logs through spdlog.
rd_kafka_conf_t* config_logging_through_spdlog(
    std::initializer_list<std::pair<const char*, const char*>> settings) {
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    char err[512];
    for (auto [k, v] : settings)
        REQUIRE(rd_kafka_conf_set(conf, k, v, err, sizeof err) == RD_KAFKA_CONF_OK);
    log_through_spdlog(conf);
    return conf;
}

}  // namespace

TEST_CASE("a client's configuration warning goes to the default logger") {
    CapturedLog log;
    // A producer property on a consumer: librdkafka warns (CONFWARN) from rd_kafka_new.
    rd_kafka_conf_t* conf = config_logging_through_spdlog({{"acks", "1"}, {"group.id", "g"}});
    char err[512];
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    REQUIRE(rk);
    rd_kafka_destroy(rk);

    auto warnings = log.lines_with("CONFWARN");
    REQUIRE_FALSE(warnings.empty());
    for (const auto& [text, level] : warnings) {
        CHECK(level == spdlog::level::warn);
        CHECK_THAT(text, Catch::StartsWith("librdkafka rdkafka#consumer-"));
        CHECK_THAT(text, Catch::Contains("acks"));
    }
}

TEST_CASE("a client's statistics, when asked for, go to the default logger as JSON") {
    CapturedLog log;
    // No broker is needed: librdkafka emits its statistics on a timer, served by poll().
    rd_kafka_conf_t* conf = config_logging_through_spdlog({{"bootstrap.servers", "127.0.0.1:1"},
                                                           {"statistics.interval.ms", "10"},
                                                           {"log_level", "0"}});
    char err[512];
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    REQUIRE(rk);
    for (int i = 0; i < 500 && log.lines_with(" STATS: ").empty(); ++i) rd_kafka_poll(rk, 10);
    rd_kafka_destroy(rk);

    auto stats = log.lines_with(" STATS: ");
    REQUIRE_FALSE(stats.empty());
    CHECK_THAT(stats.front().first, Catch::StartsWith("librdkafka rdkafka#producer-"));
    CHECK_THAT(stats.front().first, Catch::Contains(" STATS: { \"name\": \"rdkafka#producer-"));
    // Info: shown by default, once a user has set the interval.
    for (const auto& [text, level] : stats) CHECK(level == spdlog::level::info);
}
