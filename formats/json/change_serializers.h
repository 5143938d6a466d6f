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
/// What every change of one table repeats, rendered once per table schema (a sink keeps one per
/// table): rendering a TableId's names per event took 8 % of a file sink's CPU.
struct TableRendering {
    ColumnKeys keys;              // the column names as JSON keys
    std::string debezium_source;  // debezium-json's `source` object: {"db":…,"table":…}
    std::string canal_table;      // canal-json's "database":…,"table":…,"pkNames":[…]
    static TableRendering of(const TableId& table, const Schema& schema);
};

/// The same with the schema block (debezium_connect_schema) computed by the caller, e.g. once per
/// table schema on the hot path, and what the table's changes repeat (`table`, optional).
void write_debezium_json(std::string& out, const DataChangeEvent& event, const Schema& schema,
                         const DebeziumJsonOptions& options, std::string_view connect_schema,
                         const TableRendering* table = nullptr);
/// The Kafka Connect schema block describing before/after, computed once per schema.
std::string debezium_connect_schema(const Schema& schema);

/// Appends one canal-json document for `event` to `out`.
void write_canal_json(std::string& out, const DataChangeEvent& event, const Schema& schema,
                      const JsonFormatOptions& options, const TableRendering* table = nullptr);

}  // namespace cdcd::json
