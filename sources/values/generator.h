#pragma once
// event-set.id GENERATED (cdcd's own): a deterministic stream of inserts, update rounds and
// deletes over `default_namespace.default_schema.generated`, addressed by a single ordinal so that
// the position is one integer in the checkpoint.
#include <cstdint>

#include "pipeline/connector/stream.h"
#include "pipeline/event/events.h"

namespace cdcd::values {

struct GeneratorSpec {
    std::int64_t rows = 1000;
    std::int64_t updates_per_row = 0;
    std::int64_t delete_every = 0;
    std::int64_t payload_bytes = 100;
};

class Generator {
  public:
    explicit Generator(GeneratorSpec spec);

    static TableId table();
    static Schema schema();
    /// Number of data change events in the whole stream.
    std::int64_t total() const { return total_; }
    /// Appends the data change event at `ordinal` (0-based, < total()) to `events`.
    void append_event(std::int64_t ordinal, EventBatch& events) const;
    /// The row id the event at `ordinal` changes (every id's events keep their order).
    std::int64_t id_at(std::int64_t ordinal) const;
    /// The first ordinal from `ordinal` on whose id is `index` modulo `count` (total() when none).
    std::int64_t next_in_share(std::int64_t ordinal, std::int64_t index, std::int64_t count) const;
    /// Where the run of ordinals holding `ordinal` ends, along which ids rise by one per ordinal.
    std::int64_t run_end(std::int64_t ordinal) const;
    /// The row of `id` at `version`.
    Row row(std::int64_t id, std::int64_t version) const;

  private:
    GeneratorSpec spec_;
    std::int64_t total_;
    TableId table_;
};

}  // namespace cdcd::values
