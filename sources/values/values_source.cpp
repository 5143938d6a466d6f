#include "sources/values/values_source.h"

#include <spdlog/spdlog.h>

#include <charconv>
#include <chrono>
#include <stdexcept>

#include "metrics/progress.h"
#include "pipeline/connector/connector_state.h"
#include "sources/values/event_sets.h"

namespace cdcd::values {

namespace {
// Big enough to amortise channel hand-offs, small enough to keep memory and latency low.
constexpr std::int64_t kBatchSize = 1024;
}  // namespace

ValuesSource::ValuesSource(ValuesSourceSettings settings, metrics::Registry& metrics)
    : settings_(std::move(settings)), metrics_(metrics) {
    if (settings_.event_set == "GENERATED") {
        generator_.emplace(settings_.generator);
    } else {
        fixed_ = fixed_event_set(settings_.event_set);
        if (!fixed_) throw std::invalid_argument("unknown event-set.id " + settings_.event_set);
    }
}

namespace {

constexpr std::string_view kStateName = "values-source";
constexpr int kStateVersion = 1;  // {"position":N}

/// The position in a state: enveloped, or the bare decimal of the releases before the envelope.
std::int64_t decode_position(std::string_view state) {
    if (is_connector_state(state)) {
        ConnectorStateReader reader(state, kStateName, kStateVersion);
        std::int64_t pos = StateFields(reader, reader.payload()).integer("position");
        if (pos < 0) throw reader.error("negative position " + std::to_string(pos));
        return pos;
    }
    std::int64_t pos = 0;
    auto [ptr, ec] = std::from_chars(state.data(), state.data() + state.size(), pos);
    if (ec != std::errc() || ptr != state.data() + state.size() || pos < 0)
        throw std::runtime_error("values source: unreadable checkpoint state '" +
                                 std::string(state) + "'");
    return pos;
}

}  // namespace

void ValuesSource::restore(std::string_view state) {
    position_ = decode_position(state);
}

std::string ValuesSource::snapshot_state() {
    return wrap_connector_state(kStateName, kStateVersion,
                                "{\"position\":" + std::to_string(position_) + "}");
}

std::string ValuesSource::describe_state(std::string_view state) const {
    std::int64_t total =
        generator_ ? generator_->total() : static_cast<std::int64_t>(fixed_->size());
    return "{\"event_set\":\"" + settings_.event_set +
           "\",\"position\":" + std::to_string(decode_position(state)) +
           ",\"total\":" + std::to_string(total) + "}";
}

void ValuesSource::check_failure_injection(std::int64_t ordinal) const {
    if (settings_.failure_injection_index >= 0 && ordinal == settings_.failure_injection_index)
        throw std::runtime_error("values source: failure injected at event index " +
                                 std::to_string(ordinal) + " (failure.injection.index)");
}

boost::asio::awaitable<void> ValuesSource::run(SourceOutput& output) {
    if (fixed_) {
        co_await run_fixed(output);
    } else {
        co_await run_generated(output);
    }
}

boost::asio::awaitable<void> ValuesSource::run_fixed(SourceOutput& output) {
    // Schema events are part of the positioned stream; a restore resumes after the last one
    // checkpointed, and the schema registry restores the schemas they built.
    const auto total = static_cast<std::int64_t>(fixed_->size());
    while (position_ < total && !output.stopping()) {
        check_failure_injection(position_);
        EventBatch batch;
        batch.push_back((*fixed_)[static_cast<std::size_t>(position_)]);
        ++position_;
        co_await output.emit(std::move(batch));
    }
}

boost::asio::awaitable<void> ValuesSource::run_generated(SourceOutput& output) {
    const std::int64_t total = generator_->total();
    // A restored run re-announces the table; the schema registry drops the redundant event.
    // (Built before the co_await: GCC 12 mis-compiles brace initialisers inside co_await.)
    EventBatch create;
    create.push_back(CreateTableEvent{Generator::table(), Generator::schema()});
    co_await output.emit(std::move(create));
    const auto started = std::chrono::steady_clock::now();
    const std::int64_t started_at = position_;
    // Logs every 10 s how far the run is; the same figures are cdcd_progress_items_* metrics.
    metrics::ProgressReporter progress(metrics_, "values", "generate", total, position_);
    while (position_ < total && !output.stopping()) {
        std::int64_t n = std::min(kBatchSize, total - position_);
        if (settings_.rate > 0) {
            n = std::min<std::int64_t>(n, std::max<std::int64_t>(1, settings_.rate / 10));
            // Pace against the start so that rounding never accumulates.
            auto due = started + std::chrono::microseconds((position_ - started_at) * 1'000'000 /
                                                           settings_.rate);
            auto now = std::chrono::steady_clock::now();
            if (due > now)
                co_await output.sleep(
                    std::chrono::duration_cast<std::chrono::milliseconds>(due - now).count() + 1);
            if (output.stopping()) break;
        }
        EventBatch batch;
        batch.reserve(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) {
            check_failure_injection(position_ + i);
            batch.push_back(generator_->event_at(position_ + i));
        }
        position_ += n;
        co_await output.emit(std::move(batch));
        progress.advance(n);
    }
    if (position_ >= total) progress.finish();
    if (!settings_.bounded) {
        while (!output.stopping()) co_await output.sleep(1000);
    }
}

}  // namespace cdcd::values
