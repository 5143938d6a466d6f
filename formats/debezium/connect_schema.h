#pragma once
// The Kafka Connect schema a debezium-json message carries with `debezium-json.schema-include`
// ({"schema":{…},"payload":{…}}): the declared column types of its `before` and `after` images,
// so that a FLOAT column stays FLOAT instead of the DECIMAL its JSON number would suggest.
// Types follow Flink CDC's DebeziumSchemaDataTypeInference where it has a rule, and Debezium's
// documented meaning of each logical type otherwise (docs/kafka.md, "Types from the Connect
// schema"). The same schema text repeats on every message of a table: parsed schemas are cached
// by their text.
#include <simdjson.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pipeline/types/data_type.h"

namespace cdcd::kafka {

/// How a field's JSON value is read (its Connect type and logical name together).
enum class ConnectValue : std::uint8_t {
    Int8,
    Int16,
    Int32,
    Int64,
    Float,  // float32, float64 (JSON number)
    Boolean,
    String,   // string and its logical types without a column type of their own
    Bytes,    // base64 string (bytes, io.debezium.data.Bits)
    Decimal,  // org.apache.kafka.connect.data.Decimal: base64 unscaled value (or a number)
    VariableScaleDecimal,  // io.debezium.data.VariableScaleDecimal: {"scale":s,"value":base64}
    Date,                  // int32 epoch days (or "yyyy-MM-dd")
    TimeMillis,            // int32 milliseconds of the day (or "HH:mm:ss[.f]")
    TimeMicros,            // int64 microseconds of the day
    TimeNanos,             // int64 nanoseconds of the day
    TimestampMillis,       // int64 epoch milliseconds, no zone (or "yyyy-MM-dd HH:mm:ss[.f]")
    TimestampMicros,
    TimestampNanos,
    ZonedTimestamp,  // ISO-8601 string with an offset: TIMESTAMP_LTZ
    Nested,          // struct, array, map: kept as JSON text in a STRING column
};

struct ConnectField {
    std::string name;
    ConnectValue value = ConnectValue::String;
    bool optional = true;
    int scale = 0;  // Decimal
    /// The column type (nullable unless the field is not optional). For ZonedTimestamp and
    /// VariableScaleDecimal the precision comes from each value, as in Flink CDC; this is then the
    /// type of a NULL value.
    DataType type = DataType::string();
    std::string type_text;  // "int32 io.debezium.time.Date", for error messages
};

struct ConnectStruct {
    bool present = false;
    std::vector<ConnectField> fields;
    std::unordered_map<std::string, std::size_t> index;
    /// The field named `name`; `hint` is its likely position (images list fields in order).
    const ConnectField* find(std::string_view name, std::size_t hint) const;
};

struct ConnectSchema {
    ConnectStruct before, after;
};

/// Parses the JSON text of the envelope's `schema`; throws ParseError naming what is malformed.
ConnectSchema parse_connect_schema(std::string_view json, simdjson::dom::parser& parser);

/// Parsed schemas by their text, bounded in entries and bytes (cleared when full: a source meets
/// a handful of schemas, one per table and version).
class ConnectSchemaCache {
  public:
    static constexpr std::size_t kMaxEntries = 256;
    static constexpr std::size_t kMaxBytes = 8u << 20;
    /// Stays valid until the next call.
    const ConnectSchema& get(std::string_view json);

  private:
    simdjson::dom::parser parser_;
    std::unordered_map<std::string, std::shared_ptr<const ConnectSchema>> schemas_;
    std::size_t bytes_ = 0;
    std::string last_text_;
    std::shared_ptr<const ConnectSchema> last_;
};

}  // namespace cdcd::kafka
