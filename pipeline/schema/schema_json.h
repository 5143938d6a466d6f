#pragma once
// Schema ⇄ JSON, for checkpoints of the schema registry. Types are stored as their summary
// strings (DataType::to_string / DataType::parse), e.g.
//   {"columns":[{"name":"id","type":"INT NOT NULL","comment":"","default":null}],
//    "primary_keys":["id"],"partition_keys":[],"options":{},"comment":""}
// A table map is an array, in a given order, of
//   {"namespace":"","schema":"db","table":"t","definition":{...schema...}}
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pipeline/data/table_id.h"
#include "pipeline/schema/schema.h"

namespace cdcd {

struct SchemaJsonError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

using TableSchemas = std::vector<std::pair<TableId, Schema>>;

void append_schema_json(std::string& out, const Schema& schema);
std::string schema_to_json(const Schema& schema);
void append_table_schemas_json(std::string& out, const TableSchemas& tables);
std::string table_schemas_to_json(const TableSchemas& tables);

/// Throw SchemaJsonError naming what is wrong.
Schema schema_from_json(std::string_view json);
TableSchemas table_schemas_from_json(std::string_view json);

}  // namespace cdcd
