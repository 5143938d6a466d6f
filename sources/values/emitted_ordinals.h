#pragma once
// Which events of the GENERATED stream have been emitted, as the checkpoint keeps it: ordinal k
// (of row id) was emitted iff k < below[id % below.size()]. One entry is the plain position of a
// source read on one thread; N entries are the positions of N readers, reader i having read the
// ids i mod N. Restored with another number of readers, the old entries stay beside the new
// positions until every reader has passed them, so nothing is emitted twice or skipped.
#include <cstdint>
#include <vector>

namespace cdcd::values {

struct EmittedOrdinals {
    std::vector<std::int64_t> below{0};

    bool emitted(std::int64_t id, std::int64_t ordinal) const {
        return ordinal < below[static_cast<std::size_t>(id) % below.size()];
    }
    /// Every ordinal below it was emitted.
    std::int64_t lowest() const;
    /// No ordinal from it on was emitted.
    std::int64_t highest() const;

    /// What `before` and readers at `positions` (reader i of N read ids i mod N, every ordinal
    /// of them below positions[i]) emitted together, in the fewest entries that say it.
    static EmittedOrdinals merge(const EmittedOrdinals& before,
                                 const std::vector<std::int64_t>& positions);
};

}  // namespace cdcd::values
