#include "sources/values/generated_reader.h"

#include <chrono>
#include <stdexcept>

namespace cdcd::values {

namespace {
// Big enough to amortise channel hand-offs, small enough to keep memory and latency low.
constexpr std::int64_t kBatchSize = 1024;
}  // namespace

GeneratedReader::GeneratedReader(const Generator& generator, GeneratedReaderSettings settings,
                                 EmittedOrdinals emitted, std::size_t index, std::size_t count,
                                 std::shared_ptr<SharedProgress> progress)
    : generator_(generator),
      settings_(settings),
      emitted_(std::move(emitted)),
      index_(static_cast<std::int64_t>(index)),
      count_(static_cast<std::int64_t>(count)),
      progress_(std::move(progress)),
      next_(emitted_.lowest()) {}

std::int64_t GeneratedReader::next_to_emit(std::int64_t ordinal) {
    const std::int64_t total = generator_.total();
    while (true) {
        if (count_ > 1) {
            if (ordinal <= stride_ && ordinal > stride_ - count_) {
                ordinal = stride_;  // the share's next id in the run of the last one emitted
            } else {
                ordinal = generator_.next_in_share(ordinal, index_, count_);
                run_end_ = generator_.run_end(ordinal);
            }
        }
        if (ordinal >= total || emitted_.below.size() == 1 ||
            !emitted_.emitted(generator_.id_at(ordinal), ordinal))
            return ordinal;  // a one-entry mask is below next_ already
        ++ordinal;
    }
}

void check_failure_injection(std::int64_t index, std::int64_t ordinal) {
    if (index >= 0 && ordinal == index)
        throw std::runtime_error("values source: failure injected at event index " +
                                 std::to_string(ordinal) + " (failure.injection.index)");
}

boost::asio::awaitable<void> GeneratedReader::run(SourceOutput& output) {
    const std::int64_t total = generator_.total();
    // A restored run, and every reader but the first, re-announce the table; the schema
    // registry drops the redundant event. (Built before the co_await: GCC 12 mis-compiles brace
    // initialisers inside co_await.)
    EventBatch create;
    create.push_back(CreateTableEvent{Generator::table(), Generator::schema()});
    co_await output.emit(std::move(create));
    std::int64_t emitted = 0;
    started_ = std::chrono::steady_clock::now();
    // One reader of a stream restored at one position takes every ordinal from next_ on.
    const bool every_ordinal = count_ == 1 && emitted_.below.size() == 1;
    while (next_ < total && !output.stopping()) {
        std::int64_t limit = kBatchSize;
        if (settings_.rate > 0) {
            limit = std::max<std::int64_t>(1, settings_.rate / 10);
            co_await pace(output, emitted);
            if (output.stopping()) break;
        }
        EventBatch batch;
        batch.reserve(static_cast<std::size_t>(std::min(limit, total - next_)));
        const std::int64_t from = next_;
        while (static_cast<std::int64_t>(batch.size()) < limit) {
            if (!every_ordinal) next_ = next_to_emit(next_);
            if (next_ >= total) break;
            check_failure_injection(settings_.failure_injection_index, next_);
            generator_.append_event(next_, batch);
            stride_ = next_ + count_ < run_end_ ? next_ + count_ : -1;
            ++next_;
        }
        emitted += static_cast<std::int64_t>(batch.size());
        // Ordinals this reader skips count too: the readers' counts add up to the stream's.
        const std::int64_t read =
            count_ == 1 ? next_ - from : static_cast<std::int64_t>(batch.size());
        if (!batch.empty()) co_await output.emit(std::move(batch));
        progress_->advance(read);
    }
    if (next_ >= total) progress_->reader_finished();
    if (!settings_.bounded) {
        while (!output.stopping()) co_await output.sleep(1000);
    }
}

/// Paces against the start so that rounding never accumulates.
boost::asio::awaitable<void> GeneratedReader::pace(SourceOutput& output, std::int64_t emitted) {
    auto due = started_ + std::chrono::microseconds(emitted * 1'000'000 / settings_.rate);
    auto now = std::chrono::steady_clock::now();
    if (due > now)
        co_await output.sleep(
            std::chrono::duration_cast<std::chrono::milliseconds>(due - now).count() + 1);
}

}  // namespace cdcd::values
