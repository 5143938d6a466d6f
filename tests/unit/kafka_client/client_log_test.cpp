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
