#include "pipeline/transform/compile/datum.h"

#include <algorithm>

namespace cdcd::transform {

void Arena::grow(std::size_t n) {
    std::size_t size = std::max<std::size_t>(n, blocks_.empty() ? 4096 : sizes_.back() * 2);
    blocks_.push_back(std::make_unique<char[]>(size));
    sizes_.push_back(size);
    cur_ = blocks_.back().get();
    used_ = 0;
    cap_ = size;
}

void Arena::keep_largest() {
    // Keep only the largest (last) block so that the next row fits without growing.
    auto keep = std::move(blocks_.back());
    std::size_t size = sizes_.back();
    blocks_.clear();
    sizes_.clear();
    blocks_.push_back(std::move(keep));
    sizes_.push_back(size);
    cur_ = blocks_.back().get();
    cap_ = size;
}

}  // namespace cdcd::transform
