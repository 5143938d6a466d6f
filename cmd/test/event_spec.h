#pragma once
// One event of a `cdcd test` case as the YAML writes it, checked for shape but not yet typed:
// rows are column → text until the table's schema at that point turns them into a Row
// (row_text.h). Every part remembers where it was written, for errors.
//
//   - create: app.orders                     - insert: app.orders
//     columns: [id INT NOT NULL, note STRING]  after: {id: 1, note: hello}
//     primary-keys: [id]                       meta: {op_ts: '1700000000000'}
//   - update: app.orders                     - delete: app.orders
//     before: {id: 1, note: hello}             before: {id: 1, note: bye}
//     after: {id: 1, note: bye}
//   - add-column: app.orders                 - drop-column: app.orders
//     columns: [amount DECIMAL(10, 2)]         columns: [note]
//   - rename-column: app.orders              - alter-column-type: app.orders
//     renames: {note: remark}                  types: {amount: DECIMAL(12, 2)}
//   - truncate-table: app.orders             - drop-table: app.orders
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/diagnostics.h"
#include "config/yaml_loader.h"
#include "pipeline/data/table_id.h"
#include "pipeline/event/events.h"
#include "pipeline/schema/schema.h"

namespace cdcd::cmd_test {

enum class EventKind {
    Create,
    Insert,
    Update,
    Delete,
    AddColumn,
    DropColumn,
    RenameColumn,
    AlterColumnType,
    TruncateTable,
    DropTable,
};

/// The YAML key that introduces a kind ("add-column", ...).
const char* event_key(EventKind kind);

/// A row as written: each column's text, or nullopt for YAML null.
struct RowText {
    config::SourceLocation where;
    std::vector<std::pair<std::string, std::optional<std::string>>> fields;
    std::vector<config::SourceLocation> field_where;  // one per field
};

struct EventSpec {
    config::SourceLocation where;
    EventKind kind = EventKind::Insert;
    TableId table;
    std::vector<Column> columns;                               // create, add-column
    std::vector<std::string> primary_keys;                     // create
    std::vector<std::string> names;                            // drop-column
    std::vector<std::pair<std::string, std::string>> renames;  // rename-column
    std::vector<std::pair<std::string, DataType>> types;       // alter-column-type
    std::optional<RowText> before, after;                      // data changes
    EventMeta meta;                                            // data changes
};

/// Parses one list item; problems go to `diags` (nullopt then).
std::optional<EventSpec> parse_event_spec(const config::ConfigNode& node,
                                          config::Diagnostics& diags);

/// A schema change event of the spec (precondition: kind is neither Insert, Update nor Delete).
/// `current` is the table's schema before it (alter-column-type records the old types).
SchemaChangeEvent to_schema_change(const EventSpec& spec, const Schema* current);

}  // namespace cdcd::cmd_test
