#include "sinks/vikingdb/batcher.h"

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
    auto& q = queues_[collection];
    if (!q.empty()) {
        Batch& last = q.back();
        if (!last.in_flight && !last.sealed && last.kind == kind) {
            auto it = last.index.find(key);
            if (it != last.index.end()) {
                // Same key again in the open batch: the later operation replaces the earlier.
                if (kind == OpKind::Upsert) last.payloads[it->second] = std::move(payload);
                return;
            }
            if (!last.full()) {
                last.index.emplace(key, last.keys.size());
                last.keys.push_back(std::move(key));
                if (kind == OpKind::Upsert) last.payloads.push_back(std::move(payload));
                ++total_records_;
                return;
            }
        }
    }
    Batch b;
    b.collection = collection;
    b.kind = kind;
    b.limit = limit == 0 ? 1 : limit;
    b.opened = now;
    b.index.emplace(key, 0);
    b.keys.push_back(std::move(key));
    if (kind == OpKind::Upsert) b.payloads.push_back(std::move(payload));
    q.push_back(std::move(b));
    ++total_batches_;
    ++total_records_;
}

void Batcher::seal_all() {
    for (auto& [name, q] : queues_)
        if (!q.empty()) q.back().sealed = true;
}

void Batcher::seal_opened_before(Clock::time_point deadline) {
    for (auto& [name, q] : queues_)
        if (!q.empty() && q.back().opened <= deadline) q.back().sealed = true;
}

bool Batcher::ready(const std::deque<Batch>& q) {
    if (q.empty()) return false;
    const Batch& f = q.front();
    return !f.in_flight && (f.sealed || f.full() || q.size() > 1);
}

Batch* Batcher::take_ready() {
    if (queues_.empty()) return nullptr;
    std::size_t n = queues_.size();
    for (std::size_t k = 0; k < n; ++k) {
        auto it = std::next(queues_.begin(), static_cast<std::ptrdiff_t>((rotate_ + k) % n));
        if (ready(it->second)) {
            rotate_ = (rotate_ + k + 1) % n;
            Batch& b = it->second.front();
            b.in_flight = true;
            return &b;
        }
    }
    return nullptr;
}

void Batcher::complete(const std::string& collection) {
    auto it = queues_.find(collection);
    if (it == queues_.end() || it->second.empty() || !it->second.front().in_flight)
        throw std::logic_error("Batcher::complete: no batch in flight for " + collection);
    total_records_ -= it->second.front().size();
    it->second.pop_front();
    --total_batches_;
    if (it->second.empty()) queues_.erase(it);
}

std::size_t Batcher::ready_batches() const {
    std::size_t n = 0;
    for (const auto& [name, q] : queues_)
        for (std::size_t i = 0; i < q.size(); ++i)
            if (q[i].sealed || q[i].full() || i + 1 < q.size()) ++n;
    return n;
}

}  // namespace cdcd::vikingdb
