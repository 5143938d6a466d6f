#include "sources/values/emitted_ordinals.h"

#include <algorithm>
#include <numeric>

namespace cdcd::values {

std::int64_t EmittedOrdinals::lowest() const {
    return *std::min_element(below.begin(), below.end());
}

std::int64_t EmittedOrdinals::highest() const {
    return *std::max_element(below.begin(), below.end());
}

namespace {

/// The shortest prefix of `below` that repeats to make all of it (its length divides the size).
std::vector<std::int64_t> shortest_period(std::vector<std::int64_t> below) {
    const std::size_t n = below.size();
    for (std::size_t period = 1; period < n; ++period) {
        if (n % period != 0) continue;
        bool repeats = true;
        for (std::size_t i = period; i < n && repeats; ++i) repeats = below[i] == below[i - period];
        if (repeats) {
            below.resize(period);
            break;
        }
    }
    return below;
}

}  // namespace

EmittedOrdinals EmittedOrdinals::merge(const EmittedOrdinals& before,
                                       const std::vector<std::int64_t>& positions) {
    if (positions.empty()) return before;
    const std::int64_t passed = *std::min_element(positions.begin(), positions.end());
    if (passed >= before.highest()) return EmittedOrdinals{shortest_period(positions)};
    // An id's residue modulo lcm(L, N) fixes both its old entry and its reader.
    const std::size_t old_size = before.below.size();
    const std::size_t size = std::lcm(old_size, positions.size());
    std::vector<std::int64_t> merged(size);
    for (std::size_t r = 0; r < size; ++r)
        merged[r] = std::max(before.below[r % old_size], positions[r % positions.size()]);
    return EmittedOrdinals{shortest_period(std::move(merged))};
}

}  // namespace cdcd::values
