#include "sources/postgres/metadata.h"

#include <stdexcept>

#include "config/option_validator.h"

namespace cdcd::postgres {

namespace {
struct Known {
    const char* name;
    MetadataField field;
};
constexpr Known kFields[] = {{"op_ts", MetadataField::OpTs},
                             {"table_name", MetadataField::TableName},
                             {"database_name", MetadataField::DatabaseName},
                             {"schema_name", MetadataField::SchemaName}};
}  // namespace

std::optional<MetadataField> metadata_field(const std::string& name) {
    for (const Known& k : kFields)
        if (name == k.name) return k.field;
    return std::nullopt;
}

const char* metadata_name(MetadataField field) {
    for (const Known& k : kFields)
        if (field == k.field) return k.name;
    return "?";
}

DataType metadata_type(MetadataField field) {
    return field == MetadataField::OpTs ? DataType::bigint().not_null()
                                        : DataType::string().not_null();
}

std::vector<MetadataField> parse_metadata_list(const std::string& list) {
    std::vector<MetadataField> fields;
    for (const std::string& name : config::parse_list(list)) {
        auto field = metadata_field(name);
        if (!field)
            throw std::invalid_argument("unknown metadata '" + name +
                                        "'; known: op_ts, table_name, database_name, schema_name");
        fields.push_back(*field);
    }
    return fields;
}

EventMeta metadata_of(const std::vector<MetadataField>& fields, const std::string& database,
                      const std::string& schema, const std::string& table, std::int64_t op_ts_ms) {
    EventMeta meta;
    meta.reserve(fields.size());
    for (MetadataField f : fields) {
        switch (f) {
            case MetadataField::OpTs:
                meta.emplace_back("op_ts", std::to_string(op_ts_ms));
                break;
            case MetadataField::TableName:
                meta.emplace_back("table_name", table);
                break;
            case MetadataField::DatabaseName:
                meta.emplace_back("database_name", database);
                break;
            case MetadataField::SchemaName:
                meta.emplace_back("schema_name", schema);
                break;
        }
    }
    return meta;
}

}  // namespace cdcd::postgres
