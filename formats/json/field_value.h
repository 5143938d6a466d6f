#pragma once
// One JSON field of a Kafka message as the source sees it: its name and a typed view of its
// value, pointing into simdjson's buffers (no allocation per field). The inferred type of a value
// and the conversion of a value into a column of a (possibly wider) type live here.
#include <cstdint>
#include <string_view>
#include <vector>

#include "pipeline/data/row.h"
#include "pipeline/types/data_type.h"

namespace cdcd::kafka {

enum class ValueKind : std::uint8_t {
    Null,
    Bool,
    Int,           // fits int64: BIGINT
    Decimal,       // plain decimal literal with a fraction: DECIMAL(precision, scale)
    Double,        // exponent notation or too many digits: DOUBLE
    String,        // any other string: STRING
    Date,          // "yyyy-MM-dd": DATE
    Timestamp,     // "yyyy-MM-dd HH:mm:ss[.f]" or with 'T': TIMESTAMP(p)
    TimestampLtz,  // the same with a trailing 'Z' or ±HH:mm: TIMESTAMP_LTZ(p)
    Raw,           // nested object or array: STRING holding its JSON text
    // Only from a Connect schema's declared types (connect_value.h):
    Time,   // `integer`: nanoseconds of the day
    Bytes,  // `text`: the bytes (base64-decoded)
};

struct FieldValue {
    std::string_view name;
    ValueKind kind = ValueKind::Null;
    bool boolean = false;
    std::int64_t integer = 0;         // Int: the value; Date: epoch days; Timestamp*: epoch millis
    std::int32_t nanos_of_milli = 0;  // Timestamp*: as parsed by classify_string
    std::string_view text;            // string contents, number literal, or raw JSON
    std::uint8_t precision = 0, scale = 0;  // Decimal; Timestamp* precision in `precision`
    // The type the message's Connect schema declares for the field (debezium-json with
    // schema-include); null: the type is inferred from the value.
    const DataType* declared = nullptr;
    // The field's column in its table's schema, found by SchemaInference::evolve for build
    // (columns keep their positions when a schema evolves); -1 unknown.
    mutable int column = -1;
};

using Image = std::vector<FieldValue>;

/// Classifies a JSON string value (Date / Timestamp / TimestampLtz / String) and its precision.
void classify_string(FieldValue& v);
/// Classifies a number literal (Int / Decimal / Double).
void classify_number(FieldValue& v, std::string_view literal);

/// The column type a value implies: its declared type, else inferred (Null → STRING).
DataType inferred_type(const FieldValue& v);
/// True when `v` can be stored in a column of `type` without widening it (a declared type: when
/// `type` is that type or wider).
bool fits(const FieldValue& v, const DataType& type);
/// Stores `v` into field `i` of `row`, converted to `type` (which `v` fits). False when the text
/// cannot be converted (e.g. a timestamp out of range).
bool store(RowBuilder& row, std::size_t i, const FieldValue& v, const DataType& type);

}  // namespace cdcd::kafka
