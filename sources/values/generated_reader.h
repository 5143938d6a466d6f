#pragma once
// Reads the GENERATED stream, or one share of it: reader `index` of `count` emits the events of
// the ids equal to `index` modulo `count`, in order, skipping what the restored state says was
// emitted. Its state is the ordinal it reads next.
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>

#include "metrics/progress.h"
#include "pipeline/connector/source.h"
#include "sources/values/emitted_ordinals.h"
#include "sources/values/generator.h"

namespace cdcd::values {

struct GeneratedReaderSettings {
    std::int64_t failure_injection_index = -1;  // -1: never
    std::int64_t rate = 0;                      // events per second, 0 = unlimited
    bool bounded = true;                        // false stays idle after the last event
};

/// Throws once `ordinal` reaches failure.injection.index (`index`; -1: never).
void check_failure_injection(std::int64_t index, std::int64_t ordinal);

/// The progress the readers of one run report together (cdcd_progress_items_*).
class SharedProgress {
  public:
    SharedProgress(metrics::Registry& metrics, std::int64_t total, std::int64_t done,
                   std::size_t readers)
        : progress_(metrics, "values", "generate", total, done), unfinished_(readers) {}
    void advance(std::int64_t items) {
        std::lock_guard lock(mutex_);
        progress_.advance(items);
    }
    /// A reader read its share to the end; the last one logs the final figures.
    void reader_finished() {
        std::lock_guard lock(mutex_);
        if (--unfinished_ == 0) progress_.finish();
    }

  private:
    std::mutex mutex_;
    metrics::ProgressReporter progress_;
    std::size_t unfinished_;
};

class GeneratedReader final : public SourceReader {
  public:
    GeneratedReader(const Generator& generator, GeneratedReaderSettings settings,
                    EmittedOrdinals emitted, std::size_t index, std::size_t count,
                    std::shared_ptr<SharedProgress> progress);

    boost::asio::awaitable<void> run(SourceOutput& output) override;
    std::string snapshot_state() override { return std::to_string(next_); }
    std::int64_t next() const { return next_; }

  private:
    /// The first ordinal from `ordinal` on that is this reader's and still to be emitted.
    std::int64_t next_to_emit(std::int64_t ordinal);
    boost::asio::awaitable<void> pace(SourceOutput& output, std::int64_t emitted);

    const Generator& generator_;
    GeneratedReaderSettings settings_;
    EmittedOrdinals emitted_;
    std::int64_t index_, count_;
    std::shared_ptr<SharedProgress> progress_;
    std::int64_t next_;  // the next ordinal to read
    // Within a run of rising ids (Generator::run_end) the share's next ordinal is count_ on.
    std::int64_t run_end_ = 0;
    std::int64_t stride_ = -1;  // the share's next ordinal after the last emitted, or -1
    std::chrono::steady_clock::time_point started_;
};

}  // namespace cdcd::values
