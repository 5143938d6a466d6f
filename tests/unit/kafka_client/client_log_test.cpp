// librdkafka's log lines reach cdcd's logger (and so --log-format, --log-file and redaction)
// instead of stderr.
#include "kafka_client/client_log.h"

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <catch2/catch.hpp>

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

TEST_CASE("a client's configuration warning goes to the default logger") {
    auto captured = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(16);
    auto previous = spdlog::default_logger();
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", captured));

    // A producer property on a consumer: librdkafka warns (CONFWARN) from rd_kafka_new.
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    char err[512];
    REQUIRE(rd_kafka_conf_set(conf, "acks", "1", err, sizeof err) == RD_KAFKA_CONF_OK);
    REQUIRE(rd_kafka_conf_set(conf, "group.id", "g", err, sizeof err) == RD_KAFKA_CONF_OK);
    log_through_spdlog(conf);
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    REQUIRE(rk);
    rd_kafka_destroy(rk);

    spdlog::set_default_logger(previous);
    bool found = false;
    for (const auto& line : captured->last_raw()) {
        std::string text(line.payload.data(), line.payload.size());
        if (text.find("CONFWARN") == std::string::npos) continue;
        found = true;
        CHECK(line.level == spdlog::level::warn);
        CHECK_THAT(text, Catch::StartsWith("librdkafka rdkafka#consumer-"));
        CHECK_THAT(text, Catch::Contains("acks"));
    }
    CHECK(found);
}

TEST_CASE("a client's statistics, when asked for, go to the default logger as JSON") {
    auto captured = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(64);
    auto previous = spdlog::default_logger();
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", captured));

    // No broker is needed: librdkafka emits its statistics on a timer, served by poll().
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    char err[512];
    for (auto [k, v] : {std::pair{"bootstrap.servers", "127.0.0.1:1"},
                        {"statistics.interval.ms", "10"},
                        {"log_level", "0"}})
        REQUIRE(rd_kafka_conf_set(conf, k, v, err, sizeof err) == RD_KAFKA_CONF_OK);
    log_through_spdlog(conf);
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    REQUIRE(rk);
    auto stats_lines = [&] {
        std::vector<std::string> lines;
        for (const auto& line : captured->last_raw()) {
            std::string text(line.payload.data(), line.payload.size());
            if (text.find(" STATS: ") != std::string::npos) lines.push_back(text);
        }
        return lines;
    };
    for (int i = 0; i < 500 && stats_lines().empty(); ++i) rd_kafka_poll(rk, 10);
    rd_kafka_destroy(rk);
    spdlog::set_default_logger(previous);

    auto lines = stats_lines();
    REQUIRE_FALSE(lines.empty());
    CHECK_THAT(lines.front(), Catch::StartsWith("librdkafka rdkafka#producer-"));
    CHECK_THAT(lines.front(), Catch::Contains(" STATS: { \"name\": \"rdkafka#producer-"));
    // The level: info, shown by default once a user has set the interval.
    for (const auto& line : captured->last_raw())
        if (std::string_view(line.payload.data(), line.payload.size()).find(" STATS: ") !=
            std::string_view::npos)
            CHECK(line.level == spdlog::level::info);
}
