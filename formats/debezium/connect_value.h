#pragma once
// Reads the values of a debezium-json row image as the Connect schema declares them: a base64
// Decimal becomes an exact DECIMAL, epoch days a DATE, microseconds a TIMESTAMP(6), and so on.
// Also accepts the values Flink CDC's own debezium-json serializer writes under the same schema
// (DATE as "2023-01-01", DECIMAL as a JSON number, …), so cdcd reads what a Kafka sink wrote.
#include <simdjson.h>

#include <deque>
#include <string>
#include <string_view>

#include "formats/debezium/connect_schema.h"
#include "formats/json/field_value.h"

namespace cdcd::kafka {

/// Bytes the decoded values point at (base64-decoded bytes, decimal text), reused across
/// messages: a view stays valid until the next clear().
class ConnectScratch {
  public:
    void clear() { used_ = 0; }
    std::string& next();
    simdjson::dom::parser& parser() { return parser_; }

  private:
    std::deque<std::string> strings_;  // a deque: growing it moves no string
    std::size_t used_ = 0;
    simdjson::dom::parser parser_;  // io.debezium.data.VariableScaleDecimal values
};

/// Gives every field of `image` (read by read_image) its declared type (FieldValue::declared) and
/// a value of that type. Throws ParseError naming the field, its declared type and what is
/// wrong: a field the schema does not declare, NULL in a field that is not optional, a value of
/// another JSON type, bad base64, a number out of its type's range.
void apply_connect_schema(Image& image, const ConnectStruct& schema, std::string_view image_name,
                          ConnectScratch& scratch);

}  // namespace cdcd::kafka
