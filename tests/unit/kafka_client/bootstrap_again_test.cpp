// Adding bootstrap.servers back to a client that may have lost every broker: at most once every
// 5 s, logged with the reason (once per 5 minutes while it keeps happening), and not at all
// without servers.
#include "kafka_client/bootstrap_again.h"

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <catch2/catch.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

using namespace cdcd::kafka;

namespace {

std::vector<std::string> logged_while(const std::function<void()>& run) {
    auto captured = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(16);
    auto previous = spdlog::default_logger();
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", captured));
    run();
    spdlog::set_default_logger(previous);
    std::vector<std::string> lines;
    for (const auto& line : captured->last_raw())
        lines.emplace_back(line.payload.data(), line.payload.size());
    return lines;
}

}  // namespace

TEST_CASE("the bootstrap servers are added back at most once every 5 s, with the reason logged") {
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    char err[512];
    REQUIRE(rd_kafka_conf_set(conf, "bootstrap.servers", "127.0.0.1:1", err, sizeof err) ==
            RD_KAFKA_CONF_OK);
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    REQUIRE(rk);
    BootstrapAgain again("127.0.0.1:1,127.0.0.1:2");
    auto lines = logged_while([&] {
        again(rk, "no record acknowledged for 5 s");
        again(rk, "no record acknowledged for 6 s");  // within 5 s of the first: skipped
    });
    rd_kafka_destroy(rk);
    REQUIRE(lines.size() == 1);
    CHECK_THAT(lines[0], Catch::Contains("no record acknowledged for 5 s") &&
                             Catch::Contains("adding bootstrap.servers back"));
}

TEST_CASE("adds that keep coming are logged once, then every 5 minutes with their count") {
    // A topic deleted under a running source: its watermark query fails every second for as
    // long as the topic stays deleted, and the servers are added back every 5 s.
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    char err[512];
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    REQUIRE(rk);
    BootstrapAgain again("127.0.0.1:1");
    const auto start = BootstrapAgain::Clock::now();
    std::vector<std::string> lines = logged_while([&] {
        // 12 minutes of a failure each second.
        for (int s = 0; s < 12 * 60; ++s)
            again(rk, "watermark query: Local: Unknown partition", start + std::chrono::seconds(s));
    });
    REQUIRE(lines.size() == 3);  // at 0 s, 300 s and 600 s
    CHECK_THAT(lines[0], Catch::EndsWith("adding bootstrap.servers back"));
    CHECK_THAT(lines[1], Catch::Contains("still: 60 more times since the last such line, 300 s"));
    CHECK_THAT(lines[2], Catch::Contains("still: 60 more times"));
    // After a quiet spell the next add starts a new streak, logged at once.
    lines = logged_while([&] {
        again(rk, "committing offsets failed", start + std::chrono::seconds(12 * 60 + 60));
    });
    REQUIRE(lines.size() == 1);
    CHECK_THAT(lines[0], Catch::Contains("committing offsets failed"));
    CHECK_THAT(lines[0], Catch::EndsWith("adding bootstrap.servers back"));
    rd_kafka_destroy(rk);
}

TEST_CASE("without bootstrap servers nothing is added or logged") {
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    char err[512];
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    REQUIRE(rk);
    BootstrapAgain again{std::string()};
    auto lines = logged_while([&] { again(rk, "committing offsets failed"); });
    rd_kafka_destroy(rk);
    CHECK(lines.empty());
}

TEST_CASE("a request that found no broker to ask is told from one a broker refused") {
    // A client left with no broker it can reach: every connection down, its broker removed, or
    // no leader known for a partition it reads.
    CHECK(BootstrapAgain::found_no_broker(RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN));
    CHECK(BootstrapAgain::found_no_broker(RD_KAFKA_RESP_ERR__DESTROY_BROKER));
    CHECK(BootstrapAgain::found_no_broker(RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION));
    // A slow or busy broker, or an answer: the client has a broker.
    CHECK_FALSE(BootstrapAgain::found_no_broker(RD_KAFKA_RESP_ERR_NO_ERROR));
    CHECK_FALSE(BootstrapAgain::found_no_broker(RD_KAFKA_RESP_ERR__TIMED_OUT));
    CHECK_FALSE(BootstrapAgain::found_no_broker(RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION));
    CHECK_FALSE(BootstrapAgain::found_no_broker(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART));
}
