#include "sinks/vikingdb/batcher.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace cdcd::vikingdb {

std::string Batch::items_json() const {
    const auto& items = kind == OpKind::Upsert ? payloads : keys;
    std::size_t n = 2;
    for (const auto& s : items) n += s.size() + 1;
    std::string out;
    out.reserve(n);
    out.push_back('[');
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i) out.push_back(',');
        out += items[i];
    }
    out.push_back(']');
    return out;
}

void Batcher::add(const std::string& collection, std::size_t limit, OpKind kind, std::string key,
                  std::string payload, Clock::time_point now) {
    Queue& q = queues_[collection];
    Batch* open = q.batches.empty() ? nullptr : &q.batches.back();
    if (open && (open->in_flight || open->sealed || open->kind != kind)) open = nullptr;
    auto [slot, first] = q.last.try_emplace(key, Slot{nullptr, 0});
    if (!first && open && slot->second.batch == open) {
        // Same key again in the open batch: the later operation replaces the earlier.
        if (kind == OpKind::Upsert) open->payloads[slot->second.position] = std::move(payload);
        return;
    }
    if (open && open->full()) open = nullptr;
    if (!open) {
        Batch& b = q.batches.emplace_back();
        b.collection = collection;
        b.kind = kind;
        b.limit = limit == 0 ? 1 : limit;
        b.opened = now;
        open = &b;
        ++total_batches_;
    }
    if (!first) {
        // The key is in an earlier unacknowledged batch: this one waits for it. That batch waits
        // in turn for any still earlier one holding the key, so the last suffices. The open
        // batch is the only one ever appended to `released`, so its entries are adjacent.
        Batch* earlier = slot->second.batch;
        if (earlier->released.empty() || earlier->released.back() != open) {
            earlier->released.push_back(open);
            ++open->waits_for;
        }
    }
    slot->second = Slot{open, open->keys.size()};
    open->keys.push_back(std::move(key));
    if (kind == OpKind::Upsert) open->payloads.push_back(std::move(payload));
    ++total_records_;
}

void Batcher::seal_all() {
    for (auto& [name, q] : queues_)
        if (!q.batches.empty()) q.batches.back().sealed = true;
}

void Batcher::seal_opened_before(Clock::time_point deadline) {
    for (auto& [name, q] : queues_)
        if (!q.batches.empty() && q.batches.back().opened <= deadline)
            q.batches.back().sealed = true;
}

bool Batcher::closed(const Queue& q, const Batch& b) {
    return b.sealed || b.full() || &b != &q.batches.back();
}

Batch* Batcher::find_ready(std::size_t* queue_index) const {
    if (queues_.empty() || in_flight_ >= max_in_flight_) return nullptr;
    std::size_t n = queues_.size();
    for (std::size_t k = 0; k < n; ++k) {
        auto it = std::next(queues_.begin(), static_cast<std::ptrdiff_t>((rotate_ + k) % n));
        for (const Batch& b : it->second.batches) {
            if (b.in_flight || b.waits_for > 0 || !closed(it->second, b)) continue;
            if (queue_index) *queue_index = (rotate_ + k) % n;
            // The batcher owns its batches; take_ready() hands this one out for writing.
            return const_cast<Batch*>(&b);
        }
    }
    return nullptr;
}

Batch* Batcher::take_ready() {
    std::size_t index = 0;
    Batch* b = find_ready(&index);
    if (b == nullptr) return nullptr;
    rotate_ = (index + 1) % queues_.size();
    b->in_flight = true;
    ++in_flight_;
    return b;
}

void Batcher::complete(const Batch& batch) {
    auto qit = queues_.find(batch.collection);
    if (qit == queues_.end())
        throw std::logic_error("Batcher::complete: no batch queued for " + batch.collection);
    Queue& q = qit->second;
    auto it = std::find_if(q.batches.begin(), q.batches.end(),
                           [&](const Batch& b) { return &b == &batch; });
    if (it == q.batches.end() || !it->in_flight)
        throw std::logic_error("Batcher::complete: that batch for " + batch.collection +
                               " is not in flight");
    for (Batch* later : it->released) --later->waits_for;
    for (const auto& key : it->keys) {
        auto slot = q.last.find(key);
        if (slot != q.last.end() && slot->second.batch == &*it) q.last.erase(slot);
    }
    total_records_ -= it->size();
    --total_batches_;
    --in_flight_;
    q.batches.erase(it);
    if (q.batches.empty()) queues_.erase(qit);
}

std::size_t Batcher::ready_batches() const {
    std::size_t n = 0;
    for (const auto& [name, q] : queues_)
        for (const Batch& b : q.batches)
            if (!b.in_flight && closed(q, b)) ++n;
    return n;
}

}  // namespace cdcd::vikingdb
