#include "pipeline/connector/schema_change_gate.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace cdcd {

namespace {
// How often a wait looks at its caller's stop flag, which is set without the gate's mutex.
constexpr std::chrono::milliseconds kStopCheck{50};
}  // namespace

SchemaChangeGate::SchemaChangeGate(std::size_t readers, TableSchemas schemas)
    : states_(readers, State::Idle),
      handed_on_(readers, 0),
      sent_(std::make_unique<std::atomic<std::uint64_t>[]>(readers)),
      schemas_(std::move(schemas)) {
    for (std::size_t i = 0; i < schemas_.size(); ++i) schema_at_.emplace(schemas_[i].first, i);
}

template <typename Ready>
bool SchemaChangeGate::wait(std::unique_lock<std::mutex>& lock, const std::atomic<bool>& stop,
                            Ready ready) {
    while (!ready()) {
        if (stop) return false;
        changed_.wait_for(lock, kStopCheck);
    }
    return true;
}

std::optional<SchemaChangeGate::Start> SchemaChangeGate::join(std::size_t i,
                                                              const std::atomic<bool>& stop) {
    std::unique_lock lock(mutex_);
    // Not building yet: a change in progress does not wait for this reader, which starts on
    // the schemas after it.
    if (!wait(lock, stop, [&] { return !holder_; })) return std::nullopt;
    states_[i] = State::Building;
    // The epoch is changed under mutex_ only.
    return Start{schemas_, epoch_.load(std::memory_order_relaxed), changes_ > 0};
}

void SchemaChangeGate::leave(std::size_t i, std::uint64_t handed_on) {
    std::lock_guard lock(mutex_);
    states_[i] = State::Idle;
    handed_on_[i] = handed_on;
    changed_.notify_all();
}

bool SchemaChangeGate::must_pause(std::size_t i) const {
    std::lock_guard lock(mutex_);
    return holder_ && *holder_ != i;
}

std::optional<TableSchemas> SchemaChangeGate::pause(std::size_t i, std::uint64_t handed_on,
                                                    const std::atomic<bool>& stop,
                                                    std::uint64_t& epoch) {
    std::unique_lock lock(mutex_);
    handed_on_[i] = handed_on;
    states_[i] = State::Paused;
    changed_.notify_all();
    const bool resumed = wait(lock, stop, [&] { return !holder_ || *holder_ == i; });
    states_[i] = State::Building;
    if (!resumed) return std::nullopt;
    epoch = epoch_.load(std::memory_order_relaxed);
    return schemas_;
}

bool SchemaChangeGate::begin_change(std::size_t i, std::uint64_t chunk,
                                    const std::atomic<bool>& stop,
                                    std::vector<std::uint64_t>& waits_for) {
    std::unique_lock lock(mutex_);
    if (holder_ && *holder_ != i) return false;
    if (!holder_) {
        holder_ = i;
        epoch_.fetch_add(1, std::memory_order_acq_rel);
        const bool all_paused = wait(lock, stop, [&] {
            for (std::size_t j = 0; j < states_.size(); ++j)
                if (j != i && states_[j] == State::Building) return false;
            return true;
        });
        if (!all_paused) {
            // Stopping: nothing is changed, and the others need not wait for it.
            end_change();
            return false;
        }
    }
    if (std::find(holding_.begin(), holding_.end(), chunk) == holding_.end())
        holding_.push_back(chunk);
    waits_for = handed_on_;
    waits_for[i] = 0;
    return true;
}

std::uint64_t SchemaChangeGate::publish(TableId table, const Schema& schema) {
    std::lock_guard lock(mutex_);
    auto [at, fresh] = schema_at_.emplace(table, schemas_.size());
    if (fresh)
        schemas_.emplace_back(table, schema);
    else
        schemas_[at->second].second = schema;
    return ++changes_;
}

void SchemaChangeGate::sent(std::size_t i, std::uint64_t chunk) {
    sent_[i].store(chunk, std::memory_order_release);
}

bool SchemaChangeGate::all_sent(const std::vector<std::uint64_t>& waits_for) const {
    for (std::size_t j = 0; j < waits_for.size() && j < states_.size(); ++j)
        if (sent_[j].load(std::memory_order_acquire) < waits_for[j]) return false;
    return true;
}

void SchemaChangeGate::release(std::size_t i, std::uint64_t chunk) {
    std::lock_guard lock(mutex_);
    if (!holder_ || *holder_ != i)
        throw std::logic_error("a source reader released a schema change it did not hold");
    holding_.erase(std::remove(holding_.begin(), holding_.end(), chunk), holding_.end());
    if (holding_.empty()) end_change();
}

void SchemaChangeGate::end_change() {
    holder_.reset();
    holding_.clear();
    epoch_.fetch_add(1, std::memory_order_acq_rel);
    changed_.notify_all();
}

}  // namespace cdcd
