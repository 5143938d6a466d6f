#pragma once
// The fixed event sets of Flink CDC's values source (ValuesDataSourceHelper), streaming variant:
// the splits of a set are concatenated in split order, as Flink does for unbounded reads.
#include <optional>
#include <string>
#include <vector>

#include "pipeline/event/events.h"

namespace cdcd::values {

/// Every event-set.id cdcd accepts, canonical spelling.
const std::vector<std::string>& event_set_names();
/// The events of a fixed set; nullopt for GENERATED (see generator.h).
std::optional<std::vector<Event>> fixed_event_set(const std::string& name);

}  // namespace cdcd::values
