#pragma once
// The Kafka message key Flink CDC's Kafka sink writes (reference §6.3): the row
// [TableId, pk1, pk2, …] with TableId = the table's identifier and the primary-key values taken
// from `after` (from `before` for DELETE), in primary-key order.
//   json: {"TableId":"db.t","id":1}      (compact, TableId first, then PK columns by name)
//   csv:  "default_namespace.default_schema.table1",1   (Jackson CSV minimal quoting, no newline)
#include <optional>
#include <string>
#include <vector>

#include "formats/json/row_json.h"
#include "pipeline/event/events.h"

namespace cdcd::json {

/// Positions and types of a schema's primary-key columns, computed once per schema.
struct KeyColumns {
    std::vector<int> indexes;
    std::vector<Column> columns;  // copies: the key outlives no schema
    ColumnKeys keys;              // their names as JSON keys
    /// With `table`: its `"TableId":"…"` member rendered once, for write_json_key.
    static KeyColumns of(const Schema& schema, std::optional<TableId> table = std::nullopt);

    std::optional<TableId> table;
    std::string table_id_member;
};

/// The row image the key is taken from: after, or before for DELETE (nullptr if absent).
const Row* key_image(const DataChangeEvent& event);

/// Appends the JSON key of `event` to `out`.
void write_json_key(std::string& out, const DataChangeEvent& event, const KeyColumns& key,
                    const JsonFormatOptions& options);

}  // namespace cdcd::json
