#pragma once
// Events printed exactly as Flink CDC's values sink prints them (the events' toString()).
#include <string>

#include "pipeline/event/events.h"

namespace cdcd {

std::string format_schema_change(const SchemaChangeEvent& event);
/// `schema` is the table's current schema (needed to read the binary rows).
std::string format_data_change(const DataChangeEvent& event, const Schema& schema);
/// `meta=()` or `meta=({k=v, ...})`
std::string format_meta(const EventMeta& meta);

}  // namespace cdcd
