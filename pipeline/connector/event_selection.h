#pragma once
// The events a sink writer is given: a whole batch, or its part of a batch that every writer
// shares (the positions of the data changes partitioned to it, and of every other event, in
// order). Writers that share one thread take their parts of a batch by position instead of
// each change being moved into a batch of its writer's: that move, and the moved-from change's
// destruction, were most of what parallelism 2 added on one CPU (GENERATED -> file, callgrind:
// ~175 of ~190 instructions an event).
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>

#include "pipeline/connector/stream.h"

namespace cdcd {

class EventSelection {
  public:
    /// All of `batch`.
    EventSelection(const EventBatch& batch)  // NOLINT(google-explicit-constructor)
        : events_(batch.data()), size_(batch.size()) {}
    /// The events of `batch` at `positions` (ascending, each below batch.size()).
    EventSelection(const EventBatch& batch, std::span<const std::uint32_t> positions)
        : events_(batch.data()), positions_(positions.data()), size_(positions.size()) {}

    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    const Event& operator[](std::size_t k) const { return *iterator(events_, positions_, k); }

    /// Holds what it reads, not the selection: a writer's loop then keeps it in registers
    /// across the calls it makes (reading through the selection cost 10 instructions an event).
    class iterator {
      public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = Event;
        using difference_type = std::ptrdiff_t;
        using pointer = const Event*;
        using reference = const Event&;
        iterator() = default;
        iterator(const Event* events, const std::uint32_t* positions, std::size_t k)
            : events_(events), positions_(positions), k_(k) {}
        const Event& operator*() const {
            return positions_ != nullptr ? events_[positions_[k_]] : events_[k_];
        }
        const Event* operator->() const { return &**this; }
        iterator& operator++() {
            ++k_;
            return *this;
        }
        iterator operator++(int) {
            iterator before = *this;
            ++k_;
            return before;
        }
        friend bool operator==(const iterator& a, const iterator& b) { return a.k_ == b.k_; }

      private:
        const Event* events_ = nullptr;
        const std::uint32_t* positions_ = nullptr;
        std::size_t k_ = 0;
    };
    iterator begin() const { return {events_, positions_, 0}; }
    iterator end() const { return {events_, positions_, size_}; }

  private:
    const Event* events_;
    const std::uint32_t* positions_ = nullptr;  // null: every event, in order
    std::size_t size_;
};

}  // namespace cdcd
