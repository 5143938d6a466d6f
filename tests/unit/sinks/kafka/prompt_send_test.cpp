// A writer whose input runs dry asks for what its producer lingers on to be sent at once; the
// send runs on a thread of its own and the writer never waits for it. These tests need no broker:
// the producer points at a closed loopback port, so its record stays queued.
#include "sinks/kafka/prompt_send.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

using namespace cdcd::kafka;
using Clock = std::chrono::steady_clock;

namespace {

rd_kafka_t* unconnected_producer() {
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    char err[512];
    for (auto [k, v] : {std::pair{"bootstrap.servers", "127.0.0.1:1"},
                        {"linger.ms", "60000"},
                        {"log_level", "0"},
                        {"reconnect.backoff.ms", "1000"}})
        REQUIRE(rd_kafka_conf_set(conf, k, v, err, sizeof err) == RD_KAFKA_CONF_OK);
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    REQUIRE(rk);
    return rk;
}

// A record the producer can never deliver: it stays queued.
void queue_one_record(rd_kafka_t* rk) {
    char value[] = "v";
    REQUIRE(rd_kafka_producev(rk, RD_KAFKA_V_TOPIC("t"), RD_KAFKA_V_VALUE(value, 1),
                              RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                              RD_KAFKA_V_END) == RD_KAFKA_RESP_ERR_NO_ERROR);
}

// Waits (at most 5 s) until `done` holds.
template <typename F>
bool eventually(F done) {
    for (auto until = Clock::now() + std::chrono::seconds(5); Clock::now() < until;) {
        if (done()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return done();
}

}  // namespace

TEST_CASE("PromptSend: nothing is sent until asked") {
    rd_kafka_t* rk = unconnected_producer();
    {
        PromptSend prompt(rk);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        CHECK(prompt.sends() == 0);
    }
    rd_kafka_destroy(rk);
}

TEST_CASE("PromptSend: a request starts a send without waiting for it, requests meanwhile fold") {
    rd_kafka_t* rk = unconnected_producer();
    queue_one_record(rk);
    {
        PromptSend prompt(rk);
        // A send lasts kHoldMs and the next starts kMinGapMs after it: a thousand requests in a
        // row make one send now and one after it (more only if the loop itself was held up for
        // longer than the gaps: a loaded machine may deschedule it).
        const auto asked = Clock::now();
        for (int i = 0; i < 1000; ++i) prompt.request();
        const auto asking =
            std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - asked);
        REQUIRE(eventually([&] { return prompt.sends() >= 1; }));
        std::this_thread::sleep_for(std::chrono::milliseconds(4 * PromptSend::kMinGapMs));
        CHECK(prompt.sends() <=
              2 + static_cast<std::uint64_t>(asking.count() / PromptSend::kMinGapMs));
        // The record cannot be delivered: it stays queued, and the sends gave up on it in time.
        // The out queue also counts events not yet served, such as the refused connection's
        // error (an ASan run under load once saw 2): those are served before it is counted.
        CHECK(eventually([&] {
            rd_kafka_poll(rk, 0);
            return rd_kafka_outq_len(rk) == 1;
        }));

        const auto before = prompt.sends();
        prompt.request();
        REQUIRE(eventually([&] { return prompt.sends() > before; }));
    }
    rd_kafka_purge(rk, RD_KAFKA_PURGE_F_QUEUE);
    rd_kafka_destroy(rk);
}

TEST_CASE("PromptSend: destroyed with a send in progress, it returns at once") {
    rd_kafka_t* rk = unconnected_producer();
    queue_one_record(rk);
    auto started = Clock::now();
    {
        PromptSend prompt(rk);
        prompt.request();
        started = Clock::now();
    }
    // Joined after one hold at most (plus scheduling), not after linger.ms or message.timeout.ms.
    CHECK(Clock::now() - started < std::chrono::seconds(2));
    rd_kafka_purge(rk, RD_KAFKA_PURGE_F_QUEUE);
    rd_kafka_destroy(rk);
}

TEST_CASE("PromptSend: a drained input asks for a send, unless nothing or a load's worth waits") {
    // No bootstrap servers at all: no connection attempt, so no error event joins what
    // rd_kafka_outq_len counts, and it counts exactly the records queued here.
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    char err[512];
    for (auto [k, v] : {std::pair{"linger.ms", "60000"}, {"log_level", "0"}})
        REQUIRE(rd_kafka_conf_set(conf, k, v, err, sizeof err) == RD_KAFKA_CONF_OK);
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    REQUIRE(rk);
    rd_kafka_poll(rk, 0);
    REQUIRE(rd_kafka_outq_len(rk) == 0);
    {
        PromptSend prompt(rk);
        prompt.input_drained();  // nothing waits
        std::this_thread::sleep_for(std::chrono::milliseconds(4 * PromptSend::kMinGapMs));
        CHECK(prompt.sends() == 0);

        queue_one_record(rk);
        prompt.input_drained();
        REQUIRE(eventually([&] { return prompt.sends() == 1; }));

        // Under load: librdkafka sends full batches by itself.
        for (int i = 1; i < PromptSend::kUnderLoadRecords; ++i) queue_one_record(rk);
        REQUIRE(rd_kafka_outq_len(rk) == PromptSend::kUnderLoadRecords);
        std::this_thread::sleep_for(std::chrono::milliseconds(2 * PromptSend::kMinGapMs));
        prompt.input_drained();
        std::this_thread::sleep_for(std::chrono::milliseconds(4 * PromptSend::kMinGapMs));
        CHECK(prompt.sends() == 1);
    }
    rd_kafka_purge(rk, RD_KAFKA_PURGE_F_QUEUE);
    rd_kafka_destroy(rk);
}
