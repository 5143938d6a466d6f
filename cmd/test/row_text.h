#pragma once
// A row of a `cdcd test` case (column → text) turned into a Row of a table's schema. Values are
// written as a Flink SQL literal of the column's type would read them: 42, 10.50, true,
// 2024-01-31, 10:15:00, 2024-01-31 10:15:00.123 (TIMESTAMP_LTZ: in UTC, or with Z / ±HH:mm),
// text as is, BINARY / BYTES in base64; YAML null (~) is NULL.
#include <stdexcept>
#include <string>

#include "cmd/test/event_spec.h"
#include "pipeline/data/row.h"
#include "pipeline/schema/schema.h"

namespace cdcd::cmd_test {

/// A value that does not fit its column, an unknown column, or a column left out; the message
/// names the position, table, column and type.
struct RowTextError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Every column of `schema` must be given (null included), and only those.
Row build_row(const RowText& text, const Schema& schema, const TableId& table);

/// One field's text converted to `type` into field `i` of `row`; false when it does not read as
/// a value of that type (`why` says what was expected).
bool store_text(RowBuilder& row, std::size_t i, std::string_view text, const DataType& type,
                std::string& why);

}  // namespace cdcd::cmd_test
