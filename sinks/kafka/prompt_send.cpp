#include "sinks/kafka/prompt_send.h"

#include <chrono>

namespace cdcd::kafka {

PromptSend::PromptSend(rd_kafka_t* producer) : producer_(producer), thread_([this] { run(); }) {}

PromptSend::~PromptSend() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_one();
    thread_.join();
}

void PromptSend::request() {
    {
        std::lock_guard lock(mutex_);
        if (requested_) return;
        requested_ = true;
    }
    wake_.notify_one();
}

void PromptSend::input_drained() {
    const int waiting = rd_kafka_outq_len(producer_);
    if (waiting > 0 && waiting < kUnderLoadRecords) request();
}

std::uint64_t PromptSend::sends() const {
    std::lock_guard lock(mutex_);
    return sends_;
}

void PromptSend::run() {
    std::unique_lock lock(mutex_);
    while (true) {
        wake_.wait(lock, [this] { return requested_ || stop_; });
        if (stop_) return;
        requested_ = false;
        ++sends_;
        const auto started = std::chrono::steady_clock::now();
        lock.unlock();
        // Returns as soon as nothing is left unacknowledged, else after kHoldMs. It also serves
        // delivery reports, as the writer's own polls do (the producer's callbacks are
        // thread-safe, producer.cpp).
        rd_kafka_flush(producer_, kHoldMs);
        lock.lock();
        // At most one send per kMinGapMs: a send per write of a few records would make many
        // small produce requests, which queue at the broker (measured: p90 65 ms at 5,000
        // records/s with no gap, against 20 ms with the linger alone).
        wake_.wait_until(lock, started + std::chrono::milliseconds(kMinGapMs),
                         [this] { return stop_; });
    }
}

}  // namespace cdcd::kafka
