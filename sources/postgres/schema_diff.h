#pragma once
// How a captured table's columns now differ from the schema downstream was told, and the schema
// change events that say so: for a Relation message in the stream (ChangeDecoder) and for a
// snapshot resumed after a restart (snapshot_reader), whose rows are read by the columns now.
#include <optional>
#include <string>
#include <vector>

#include "pipeline/connector/stream.h"
#include "pipeline/schema/schema.h"

namespace cdcd::postgres {

/// Why the columns `now` are not `known`'s (other names, count or order, or other types,
/// nullability aside); nullopt when they are.
std::optional<std::string> columns_differ(const Schema& known, const std::vector<Column>& now);

/// The error that stops the source when a table changed and schema-change.enabled is false.
std::string changed_table_refusal(const TableId& table, const std::string& why);

/// Appends to `out` the schema change events that turn `known` into the columns `now` (renames,
/// drops, adds, type changes) and returns the schema they make. Throws when no events describe
/// the change (columns reordered).
Schema append_schema_changes(const TableId& table, const Schema& known,
                             const std::vector<Column>& now, EventBatch& out);

}  // namespace cdcd::postgres
