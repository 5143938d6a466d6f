#pragma once
// Applies a schema change event to a schema (Flink CDC's SchemaUtils#applySchemaChangeEvent).
#include <stdexcept>

#include "pipeline/event/events.h"

namespace cdcd {

struct SchemaChangeError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Returns the schema after `event`. Throws SchemaChangeError for an unknown column, a duplicate
/// added column or a BEFORE/AFTER position naming a column that does not exist.
Schema apply_schema_change(const Schema& schema, const SchemaChangeEvent& event);

}  // namespace cdcd
