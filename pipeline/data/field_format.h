#pragma once
// Renders field values the way Flink CDC's values sink prints them (Java toString of the
// internal objects): numbers as Java prints them, strings raw, timestamps ISO-8601.
#include <string>

#include "pipeline/data/row.h"
#include "pipeline/schema/schema.h"
#include "pipeline/types/data_type.h"

namespace cdcd {

/// True when the type's value lives in the row's variable part (not in the 8-byte slot).
bool is_variable_length(const DataType& type);

/// Java's Double.toString / Float.toString: 1.0, 0.001, 1.0E-4, 1.2345678E7, NaN, Infinity.
std::string java_double_to_string(double v);
std::string java_float_to_string(float v);

/// One field as the values sink prints it; "null" for NULL. MAP `{k -> v}`, ROW
/// `{name: TYPE -> v}` (Flink CDC's BinaryRecordDataExtractor).
std::string format_field(RowView row, std::size_t index, const DataType& type);
/// One field as Java's toString of Flink CDC's generic data objects prints it (what CAST(x AS
/// STRING) and string concatenation see): MAP `{k=v}` (GenericMapData), ROW `(a,b)`
/// (GenericRecordData); other types as format_field.
std::string format_field_java(RowView row, std::size_t index, const DataType& type);
/// `[a, b, null]`; an absent image is `[]`.
std::string format_row(RowView row, const std::vector<DataType>& types);
std::string format_row(RowView row, const Schema& schema);

}  // namespace cdcd
