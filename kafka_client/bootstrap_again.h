#pragma once
// Giving a librdkafka client its bootstrap servers back when it may have no broker left.
//
// librdkafka 2.10 and later drop the brokers a metadata response leaves out. A broker its
// controller fences for a moment (a single broker paused or restarted) is left out, so a client of
// a one-broker cluster can end with no broker at all and nothing to learn the partitions' new
// leaders from: a producer's records then wait until message.timeout.ms, a consumer fetches
// nothing and cannot find its group coordinator. Adding bootstrap.servers back gives it one to
// connect to. Seen with the test broker; harmless otherwise (a known broker is not added twice).
#include <librdkafka/rdkafka.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace cdcd::kafka {

class BootstrapAgain {
  public:
    /// `servers`: the client's bootstrap.servers; empty disables it.
    explicit BootstrapAgain(std::string servers) : servers_(std::move(servers)) {}

    /// Whether librdkafka configuration key `key` names the bootstrap servers.
    static bool names_servers(const std::string& key) {
        return key == "bootstrap.servers" || key == "metadata.broker.list";
    }

    /// Whether a request that failed with `err` found no broker to ask: every connection down,
    /// the broker it knew just removed, or no leader known for a partition the client reads. A
    /// periodic request (the source's watermark query) that fails so is the earliest sign of a
    /// client left with no broker it can reach; a failed offset commit came ~50 s after a broker
    /// restart, and a consumer without a group commits nothing.
    static bool found_no_broker(rd_kafka_resp_err_t err) {
        return err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN ||
               err == RD_KAFKA_RESP_ERR__DESTROY_BROKER ||
               err == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION;
    }

    using Clock = std::chrono::steady_clock;
    /// Adds happen at most this often.
    static constexpr auto kAtMostEvery = std::chrono::seconds(5);
    /// While adds keep coming (each within kStreak of the last: a topic deleted under a running
    /// source makes its watermark query fail every second, for as long as it stays deleted),
    /// the log says so once, then once per kLogEvery with the count, instead of every 5 s.
    static constexpr auto kStreak = std::chrono::seconds(30);
    static constexpr auto kLogEvery = std::chrono::minutes(5);

    /// Whether a call at `now` would add the servers.
    bool due(Clock::time_point now = Clock::now()) const;
    /// Adds the servers back to `rk` when due(); `why` goes to the log (info at the first add of
    /// a streak and every kLogEvery in it, debug otherwise).
    void operator()(rd_kafka_t* rk, const std::string& why, Clock::time_point now = Clock::now());

  private:
    std::string servers_;
    Clock::time_point last_{};    // the last add
    Clock::time_point logged_{};  // the last add logged at info
    std::uint64_t unlogged_ = 0;  // adds since then
};

}  // namespace cdcd::kafka
