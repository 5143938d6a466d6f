#pragma once
// Data change events as Flink CDC's Kafka sink writes them (reference §6.4, §6.5):
//   debezium-json  {"before":…,"after":…,"op":"c|u|d","source":{"db":schema,"table":table}}
//   canal-json
//   {"old":…,"data":[…],"type":"INSERT|UPDATE|DELETE","database":…,"table":…,"pkNames":[…]}
#include <string>
#include <string_view>

#include "formats/json/row_json.h"
#include "pipeline/event/events.h"

namespace cdcd::json {

struct DebeziumJsonOptions {
    JsonFormatOptions json;
    bool include_schema = false;  // debezium-json.include-schema.enabled
};

/// Appends one debezium-json document for `event` to `out`.
void write_debezium_json(std::string& out, const DataChangeEvent& event, const Schema& schema,
                         const DebeziumJsonOptions& options);
/// The same with the schema block (debezium_connect_schema) computed by the caller, e.g. once per
/// table schema on the hot path.
void write_debezium_json(std::string& out, const DataChangeEvent& event, const Schema& schema,
                         const DebeziumJsonOptions& options, std::string_view connect_schema,
                         const ColumnKeys* keys = nullptr);
/// The Kafka Connect schema block describing before/after, computed once per schema.
std::string debezium_connect_schema(const Schema& schema);

/// Appends one canal-json document for `event` to `out`.
void write_canal_json(std::string& out, const DataChangeEvent& event, const Schema& schema,
                      const JsonFormatOptions& options, const ColumnKeys* keys = nullptr);

}  // namespace cdcd::json
