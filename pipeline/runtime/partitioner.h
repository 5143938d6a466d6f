#pragma once
// Assigns data changes to sink writers by a hash of their primary-key values, so every change of
// one key goes to the same writer, in order. Tables without a primary key hash by table id.
#include <cstddef>

#include "pipeline/event/events.h"

namespace cdcd {

/// Writer index in [0, writers) for `event`, whose table has `schema` on the sink side.
std::size_t partition_of(const DataChangeEvent& event, const Schema* schema, std::size_t writers);

}  // namespace cdcd
