#pragma once
// Flink CDC types → VikingDB field types (spec 002 type table), with the field-level overrides
// `vikingdb.field.<f>.type` / `.dim` from the sink options and the table schema's options (schema
// options win), and the primary-key rules (exactly one, non-null, CHAR/VARCHAR/TINYINT/SMALLINT/
// INTEGER/BIGINT/DECIMAL(p,0)) checked when the table is created.
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "pipeline/data/table_id.h"
#include "pipeline/schema/schema.h"
#include "sinks/vikingdb/options.h"

namespace cdcd::vikingdb {

enum class VType {
    Int64,
    Float32,
    String,
    Bool,
    ListString,
    ListInt64,
    Vector,
    SparseVector,
    Text,
    Image,
    Video,
    DateTime,
    GeoPoint,
    JsonString,  // MAP / ROW / BINARY written as text into a `string` field (the API has no map
                 // type)
};

/// The API's FieldType spelling: int64, float32, string, list<string>, vector, ...
const char* wire_name(VType type);
/// Parses an API FieldType; nullopt when unknown.
std::optional<VType> parse_wire_type(const std::string& name);
/// True for types the API requires in every upsert (no DefaultValue possible).
bool requires_value(VType type);

struct FieldMapping {
    std::string name;
    int column = -1;  // position in the table schema
    DataType source = DataType::string();
    VType type = VType::String;
    std::optional<int> dim;  // vectors
    bool primary_key = false;
    bool overridden = false;  // the type was set explicitly (not inferred)
};

struct CollectionSpec {
    std::vector<FieldMapping> fields;  // in schema column order
    int primary_key = -1;              // index into fields
    const FieldMapping& pk() const { return fields[static_cast<std::size_t>(primary_key)]; }
};

/// Every problem of a table's mapping, listed in one message.
class MappingError : public std::runtime_error {
  public:
    MappingError(const TableId& table, const std::vector<std::string>& problems);
    const std::vector<std::string>& problems() const { return problems_; }

  private:
    std::vector<std::string> problems_;
};

/// Sink overrides merged with those of the schema's options (`vikingdb.field.*` keys), the
/// schema's winning per setting.
FieldOverrides merged_overrides(const FieldOverrides& sink, const Schema& schema);

/// Maps a table schema; throws MappingError listing every problem (primary key, names,
/// unsupported types or overrides). `need_dims`: vectors without a dim are an error (auto-create).
CollectionSpec map_schema(const TableId& table, const Schema& schema,
                          const FieldOverrides& overrides, bool need_dims);

}  // namespace cdcd::vikingdb
