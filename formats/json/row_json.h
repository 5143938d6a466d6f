#pragma once
// Field values as Flink's JSON formats write them (flink-json RowDataToJsonConverters), which is
// what Flink CDC's Kafka sink emits: DATE "2023-01-01", TIME "10:00:00", TIMESTAMP
// "2023-01-01 00:00:00[.f]" (SQL) or "2023-01-01T00:00:00[.f]" (ISO-8601), TIMESTAMP_LTZ with a
// trailing Z, DECIMAL as a number, binaries base64, nested types as JSON.
#include <string>
#include <vector>

#include "formats/json/json_writer.h"
#include "pipeline/data/row.h"
#include "pipeline/schema/schema.h"

namespace cdcd::json {

struct JsonFormatOptions {
    bool iso8601_timestamps = false;       // timestamp-format.standard: ISO-8601 (default SQL)
    bool ignore_null_fields = false;       // encode.ignore-null-fields
    bool decimal_as_plain_number = false;  // encode.decimal-as-plain-number
    enum class MapNullKey { Fail, Drop, Literal } map_null_key = MapNullKey::Fail;
    std::string map_null_key_literal = "null";
};

/// Writes field `i` of `row` (of `type`) as a JSON value.
void write_field(Writer& w, RowView row, std::size_t i, const DataType& type,
                 const JsonFormatOptions& options);
/// The schema's column names as JSON keys (`"name":`), rendered once per schema for the hot path.
struct ColumnKeys {
    std::vector<std::string> keys;
    static ColumnKeys of(const Schema& schema);
};

/// Writes the row as an object keyed by the schema's column names, in column order. `keys`, when
/// given, must be ColumnKeys::of(schema).
void write_row_object(Writer& w, RowView row, const Schema& schema,
                      const JsonFormatOptions& options, const ColumnKeys* keys = nullptr);

}  // namespace cdcd::json
