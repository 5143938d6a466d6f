#include "sinks/vikingdb/type_mapping.h"

#include <map>
#include <regex>

namespace cdcd::vikingdb {

namespace {

const std::map<std::string, VType>& wire_types() {
    static const std::map<std::string, VType> m = {
        {"int64", VType::Int64},
        {"float32", VType::Float32},
        {"string", VType::String},
        {"bool", VType::Bool},
        {"list<string>", VType::ListString},
        {"list<int64>", VType::ListInt64},
        {"vector", VType::Vector},
        {"sparse_vector", VType::SparseVector},
        {"text", VType::Text},
        {"image", VType::Image},
        {"video", VType::Video},
        {"date_time", VType::DateTime},
        {"geo_point", VType::GeoPoint},
    };
    return m;
}

VType from_override(const std::string& s) {
    if (s == "vector") return VType::Vector;
    if (s == "sparse_vector") return VType::SparseVector;
    if (s == "list_string") return VType::ListString;
    if (s == "list_int64") return VType::ListInt64;
    if (s == "date_time") return VType::DateTime;
    if (s == "video") return VType::Video;
    if (s == "image") return VType::Image;
    if (s == "geo_point") return VType::GeoPoint;
    return VType::Text;
}

bool numeric_element(const DataType& t) {
    return t.is_integer() || t.root() == TypeRoot::Float || t.root() == TypeRoot::Double ||
           t.root() == TypeRoot::Decimal;
}

bool integral(const DataType& t) {
    return t.is_integer() || (t.root() == TypeRoot::Decimal && t.scale() == 0);
}

/// The inferred type of a column, or nullopt with *why set.
std::optional<VType> infer(const DataType& t, std::string* why) {
    switch (t.root()) {
        case TypeRoot::Char:
        case TypeRoot::Varchar:
            return VType::String;
        case TypeRoot::Boolean:
            return VType::Bool;
        case TypeRoot::TinyInt:
        case TypeRoot::SmallInt:
        case TypeRoot::Int:
        case TypeRoot::BigInt:
            return VType::Int64;
        case TypeRoot::Decimal:
            return t.scale() == 0 ? VType::Int64 : VType::Float32;
        case TypeRoot::Float:
        case TypeRoot::Double:
            return VType::Float32;
        case TypeRoot::Date:
        case TypeRoot::Time:
        case TypeRoot::Timestamp:
        case TypeRoot::TimestampLtz:
        case TypeRoot::TimestampTz:
            return VType::DateTime;
        case TypeRoot::Array: {
            const DataType& e = t.element();
            if (e.is_character()) return VType::ListString;
            if (integral(e)) return VType::ListInt64;
            if (numeric_element(e)) return VType::Vector;
            *why = "ARRAY of " + e.to_string() +
                   " has no VikingDB type (vector needs numbers, lists strings or integers)";
            return std::nullopt;
        }
        case TypeRoot::Map:
        case TypeRoot::Row:
        case TypeRoot::Binary:
        case TypeRoot::Varbinary:
            return VType::JsonString;
    }
    *why = "unsupported type " + t.to_string();
    return std::nullopt;
}

/// Whether a column of type t may be written as `v` (an explicit override); *why on refusal.
bool compatible(const DataType& t, VType v, std::string* why) {
    switch (v) {
        case VType::Vector:
            if (t.root() == TypeRoot::Array && numeric_element(t.element())) return true;
            *why = "vector needs an ARRAY of numbers, not " + t.to_string();
            return false;
        case VType::SparseVector:
            if (t.root() == TypeRoot::Map && t.key().is_character() && numeric_element(t.value()))
                return true;
            *why = "sparse_vector needs a MAP<STRING, number>, not " + t.to_string();
            return false;
        case VType::ListString:
            if (t.root() == TypeRoot::Array && t.element().is_character()) return true;
            *why = "list_string needs an ARRAY<STRING>, not " + t.to_string();
            return false;
        case VType::ListInt64:
            if (t.root() == TypeRoot::Array && integral(t.element())) return true;
            *why = "list_int64 needs an ARRAY of integers, not " + t.to_string();
            return false;
        case VType::DateTime:
            if (t.is_character() || t.is_timestamp() || t.root() == TypeRoot::Date ||
                t.root() == TypeRoot::Time)
                return true;
            *why = "date_time needs a temporal or string column, not " + t.to_string();
            return false;
        case VType::Video:
            if (t.is_character()) return true;
            if (t.root() == TypeRoot::Row) {
                for (const auto& f : t.fields())
                    if (f.name == "value" && f.type->is_character()) return true;
            }
            *why = "video needs a STRING (URL) or a ROW with a STRING field `value`, not " +
                   t.to_string();
            return false;
        case VType::Image:
        case VType::GeoPoint:
        case VType::Text:
            if (t.is_character()) return true;
            *why = std::string(wire_name(v)) + " needs a CHAR/VARCHAR column, not " + t.to_string();
            return false;
        default:
            return true;
    }
}

bool allowed_pk(const DataType& t) {
    return t.is_character() || integral(t);
}

}  // namespace

const char* wire_name(VType type) {
    switch (type) {
        case VType::Int64:
            return "int64";
        case VType::Float32:
            return "float32";
        case VType::String:
            return "string";
        case VType::Bool:
            return "bool";
        case VType::ListString:
            return "list<string>";
        case VType::ListInt64:
            return "list<int64>";
        case VType::Vector:
            return "vector";
        case VType::SparseVector:
            return "sparse_vector";
        case VType::Text:
            return "text";
        case VType::Image:
            return "image";
        case VType::Video:
            return "video";
        case VType::DateTime:
            return "date_time";
        case VType::GeoPoint:
            return "geo_point";
        case VType::JsonString:
            return "string";
    }
    return "string";
}

std::optional<VType> parse_wire_type(const std::string& name) {
    auto it = wire_types().find(name);
    if (it == wire_types().end()) return std::nullopt;
    return it->second;
}

bool requires_value(VType type) {
    return type == VType::Vector || type == VType::SparseVector || type == VType::Text ||
           type == VType::Image || type == VType::Video;
}

static std::string join_problems(const TableId& table, const std::vector<std::string>& problems) {
    std::string out = "VikingDB sink: table " + table.str() + " cannot be mapped to a collection:";
    for (const auto& p : problems) out += "\n  - " + p;
    return out;
}

MappingError::MappingError(const TableId& table, const std::vector<std::string>& problems)
    : std::runtime_error(join_problems(table, problems)), problems_(problems) {}

FieldOverrides merged_overrides(const FieldOverrides& sink, const Schema& schema) {
    FieldOverrides out = sink;
    std::map<std::string, std::string> keys;
    const std::string prefix = kFieldPrefix;
    for (const auto& [k, v] : schema.options())
        if (k.rfind(prefix, 0) == 0) keys[k.substr(prefix.size())] = v;
    for (const auto& [field, o] : parse_field_overrides(keys)) {
        if (o.type) out[field].type = o.type;
        if (o.dim) out[field].dim = o.dim;
    }
    return out;
}

CollectionSpec map_schema(const TableId& table, const Schema& schema,
                          const FieldOverrides& overrides, bool need_dims) {
    static const std::regex kName("^[A-Za-z_][A-Za-z0-9_]{0,127}$");
    std::vector<std::string> problems;
    CollectionSpec spec;
    const auto& pks = schema.primary_keys();
    if (pks.empty())
        problems.push_back("no primary key: VikingDB needs exactly one primary-key column");
    else if (pks.size() > 1)
        problems.push_back("composite primary key (" + std::to_string(pks.size()) +
                           " columns): VikingDB needs exactly one primary-key column");
    if (schema.size() > 200)
        problems.push_back("more than 200 columns (a collection holds at most 200 fields)");
    int vectors = 0;
    for (const auto& [field, o] : overrides) {
        if (!schema.find(field))
            problems.push_back("vikingdb.field." + field + ".* names no column of the table");
    }
    for (std::size_t i = 0; i < schema.columns().size(); ++i) {
        const Column& c = schema.columns()[i];
        FieldMapping f;
        f.name = c.name;
        f.column = static_cast<int>(i);
        f.source = c.type;
        f.primary_key = pks.size() == 1 && pks[0] == c.name;
        if (!std::regex_match(c.name, kName))
            problems.push_back("column `" + c.name +
                               "`: not a valid VikingDB field name (letters, digits, '_', not "
                               "starting with a digit, "
                               "at most 128); rename it in a transform");
        auto ov = overrides.find(c.name);
        std::string why;
        if (ov != overrides.end() && ov->second.type) {
            f.type = from_override(*ov->second.type);
            f.overridden = true;
            if (!compatible(c.type, f.type, &why))
                problems.push_back("column `" + c.name + "`: " + why);
        } else if (auto t = infer(c.type, &why)) {
            f.type = *t;
        } else {
            problems.push_back("column `" + c.name + "`: " + why);
        }
        if (ov != overrides.end() && ov->second.dim) {
            f.dim = ov->second.dim;
            if (f.type != VType::Vector)
                problems.push_back("column `" + c.name + "`: vikingdb.field." + c.name +
                                   ".dim is set but the field is " + wire_name(f.type) +
                                   ", not vector");
        }
        if (f.type == VType::Vector) {
            ++vectors;
            if (need_dims && !f.dim)
                problems.push_back("column `" + c.name + "`: vector field needs vikingdb.field." +
                                   c.name + ".dim to create the collection");
        }
        if (f.primary_key) {
            if (!allowed_pk(c.type))
                problems.push_back(
                    "primary key `" + c.name + "` has type " + c.type.to_string() +
                    "; allowed: CHAR, VARCHAR, TINYINT, SMALLINT, INTEGER, BIGINT, DECIMAL(p, 0)");
            else if (f.overridden)
                problems.push_back("primary key `" + c.name + "` cannot be overridden to " +
                                   wire_name(f.type));
            spec.primary_key = static_cast<int>(spec.fields.size());
        }
        spec.fields.push_back(std::move(f));
    }
    if (pks.size() == 1 && spec.primary_key < 0)
        problems.push_back("primary key `" + pks[0] + "` is not a column of the table");
    if (vectors > 1)
        problems.push_back("more than one vector field (a collection holds at most one)");
    if (!problems.empty()) throw MappingError(table, problems);
    return spec;
}

}  // namespace cdcd::vikingdb
