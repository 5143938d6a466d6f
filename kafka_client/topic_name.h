#pragma once
// Kafka's rule for topic names (its Topic.validate): 1 to 249 characters of ASCII letters,
// digits, '.', '_' and '-', and not "." or "..". A name outside it is refused by the broker, or
// read as another topic, only once the pipeline runs; the options' validation says so at once.
#include <optional>
#include <string>
#include <string_view>

namespace cdcd::kafka {

/// Why `name` cannot be a Kafka topic ("`a b` is not a Kafka topic name: ..."), or nullopt.
std::optional<std::string> topic_name_problem(std::string_view name);

}  // namespace cdcd::kafka
