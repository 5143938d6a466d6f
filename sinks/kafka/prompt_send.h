#pragma once
// Sends what a producer holds back for linger.ms as soon as its writer has nothing more to write.
//
// The sink's linger.ms (20 ms, producer_config.cpp) lets librdkafka send large batches under
// load, which saves a third of the relay's CPU against linger.ms 0; but when the pipeline is not
// under load, each record would wait out the linger. When the writer's input runs dry, request()
// makes a helper thread call rd_kafka_flush() for a moment: while a flush is in progress librdkafka
// treats linger.ms as immediate, so everything queued goes out at once, and whatever is produced
// in that moment too. The writer never waits for it. Not for transactional producers (their
// records are visible only at the commit anyway, and a flush must not race a commit).
#include <librdkafka/rdkafka.h>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

namespace cdcd::kafka {

class PromptSend {
  public:
    explicit PromptSend(rd_kafka_t* producer);
    /// Waits for a flush in progress (at most kHoldMs): before the producer is destroyed.
    ~PromptSend();
    PromptSend(const PromptSend&) = delete;
    PromptSend& operator=(const PromptSend&) = delete;

    /// Sends what is queued now instead of after linger.ms; requests made while a send is in
    /// progress are folded into one more. Never blocks on the producer.
    void request();
    /// The writer's input ran dry: requests a send, unless no record waits, or so many wait
    /// (kUnderLoadRecords) that the pipeline is under load. Then librdkafka sends full batches
    /// by itself, more records follow at once, and a send would only split its batches: that
    /// cost 6 % of the relay benchmark's CPU.
    void input_drained();
    /// Sends requested and started (for tests: 0 when no request was ever made).
    std::uint64_t sends() const;

    /// How long a send treats linger.ms as immediate (the rd_kafka_flush timeout), in ms:
    /// enough for librdkafka's broker threads to wake and pick the queued batches up.
    static constexpr int kHoldMs = 1;
    /// The least time from one send to the next, in ms: what a record waits at most when the
    /// pipeline is not under load (librdkafka's default linger.ms).
    static constexpr int kMinGapMs = 5;
    /// Records waiting for their delivery report (rd_kafka_outq_len) from which input_drained()
    /// leaves the sending to librdkafka. At 5,000 records/s about 50 wait; it takes over
    /// 100,000 records/s to reach 1,000, and then a batch fills within the linger.
    static constexpr int kUnderLoadRecords = 1000;

  private:
    void run();

    rd_kafka_t* producer_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    bool requested_ = false;
    bool stop_ = false;
    std::uint64_t sends_ = 0;
    std::thread thread_;  // last: started once the members above exist
};

}  // namespace cdcd::kafka
