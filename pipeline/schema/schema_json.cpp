#include "pipeline/schema/schema_json.h"

#include <simdjson.h>

#include "pipeline/util/json_escape.h"

namespace cdcd {

namespace {

void append_string_array(std::string& out, const std::vector<std::string>& items) {
    out.push_back('[');
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i) out.push_back(',');
        json::append_quoted(out, items[i]);
    }
    out.push_back(']');
}

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

object as_object(element e, const char* what) {
    object o;
    if (e.get_object().get(o)) throw SchemaJsonError(std::string(what) + " is not a JSON object");
    return o;
}

std::string get_string(object o, const char* key, bool required = true) {
    std::string_view v;
    auto field = o[key];
    if (field.error() == simdjson::NO_SUCH_FIELD && !required) return {};
    if (field.get_string().get(v))
        throw SchemaJsonError(std::string("field \"") + key + "\" is missing or not a string");
    return std::string(v);
}

std::vector<std::string> get_string_array(object o, const char* key) {
    std::vector<std::string> out;
    auto field = o[key];
    if (field.error() == simdjson::NO_SUCH_FIELD) return out;
    array a;
    if (field.get_array().get(a))
        throw SchemaJsonError(std::string("field \"") + key + "\" is not an array");
    for (element item : a) {
        std::string_view v;
        if (item.get_string().get(v))
            throw SchemaJsonError(std::string("field \"") + key + "\" must hold strings");
        out.emplace_back(v);
    }
    return out;
}

Schema schema_from_element(element e) {
    object o = as_object(e, "schema");
    array cols;
    if (o["columns"].get_array().get(cols))
        throw SchemaJsonError("schema field \"columns\" is missing or not an array");
    std::vector<Column> columns;
    for (element c : cols) {
        object co = as_object(c, "column");
        Column col;
        col.name = get_string(co, "name");
        std::string type_text = get_string(co, "type");
        std::string error;
        auto type = DataType::parse(type_text, &error);
        if (!type)
            throw SchemaJsonError(std::string("column `")
                                      .append(col.name)
                                      .append("` has an invalid type \"")
                                      .append(type_text)
                                      .append("\": ")
                                      .append(error));
        col.type = *type;
        col.comment = get_string(co, "comment", false);
        auto def = co["default"];
        std::string_view dv;
        if (def.error() == simdjson::SUCCESS && !def.is_null()) {
            if (def.get_string().get(dv))
                throw SchemaJsonError("column `" + col.name + "` default must be a string or null");
            col.default_value = std::string(dv);
        }
        columns.push_back(std::move(col));
    }
    std::map<std::string, std::string> options;
    auto opts = o["options"];
    if (opts.error() == simdjson::SUCCESS) {
        for (auto field : as_object(opts.value_unsafe(), "options")) {
            std::string_view v;
            if (field.value.get_string().get(v))
                throw SchemaJsonError("schema options must be strings");
            options.emplace(std::string(field.key), std::string(v));
        }
    }
    return Schema(std::move(columns), get_string_array(o, "primary_keys"),
                  get_string_array(o, "partition_keys"), std::move(options),
                  get_string(o, "comment", false));
}

element parse_document(simdjson::dom::parser& parser, std::string_view json) {
    element root;
    auto error = parser.parse(json.data(), json.size()).get(root);
    if (error)
        throw SchemaJsonError(std::string("invalid JSON: ") + simdjson::error_message(error));
    return root;
}

}  // namespace

void append_schema_json(std::string& out, const Schema& schema) {
    out += "{\"columns\":[";
    const auto& cols = schema.columns();
    for (std::size_t i = 0; i < cols.size(); ++i) {
        if (i) out.push_back(',');
        out += "{\"name\":";
        json::append_quoted(out, cols[i].name);
        out += ",\"type\":";
        json::append_quoted(out, cols[i].type.to_string());
        out += ",\"comment\":";
        json::append_quoted(out, cols[i].comment);
        out += ",\"default\":";
        if (cols[i].default_value) {
            json::append_quoted(out, *cols[i].default_value);
        } else {
            out += "null";
        }
        out.push_back('}');
    }
    out += "],\"primary_keys\":";
    append_string_array(out, schema.primary_keys());
    out += ",\"partition_keys\":";
    append_string_array(out, schema.partition_keys());
    out += ",\"options\":{";
    bool first = true;
    for (const auto& [k, v] : schema.options()) {
        if (!first) out.push_back(',');
        first = false;
        json::append_quoted(out, k);
        out.push_back(':');
        json::append_quoted(out, v);
    }
    out += "},\"comment\":";
    json::append_quoted(out, schema.comment());
    out.push_back('}');
}

std::string schema_to_json(const Schema& schema) {
    std::string out;
    append_schema_json(out, schema);
    return out;
}

void append_table_schemas_json(std::string& out, const TableSchemas& tables) {
    out.push_back('[');
    for (std::size_t i = 0; i < tables.size(); ++i) {
        const auto& [id, schema] = tables[i];
        if (i) out.push_back(',');
        out += "{\"namespace\":";
        json::append_quoted(out, id.namespace_name());
        out += ",\"schema\":";
        json::append_quoted(out, id.schema_name());
        out += ",\"table\":";
        json::append_quoted(out, id.table_name());
        out += ",\"definition\":";
        append_schema_json(out, schema);
        out.push_back('}');
    }
    out.push_back(']');
}

std::string table_schemas_to_json(const TableSchemas& tables) {
    std::string out;
    append_table_schemas_json(out, tables);
    return out;
}

Schema schema_from_json(std::string_view json) {
    simdjson::dom::parser parser;
    return schema_from_element(parse_document(parser, json));
}

TableSchemas table_schemas_from_json(std::string_view json) {
    simdjson::dom::parser parser;
    element root = parse_document(parser, json);
    array entries;
    if (root.get_array().get(entries)) throw SchemaJsonError("table schemas must be a JSON array");
    TableSchemas out;
    for (element e : entries) {
        object o = as_object(e, "table schema entry");
        std::string ns = get_string(o, "namespace", false);
        std::string schema = get_string(o, "schema", false);
        std::string table = get_string(o, "table");
        if (table.empty()) throw SchemaJsonError("table schema entry has an empty table name");
        element def;
        if (o["definition"].get(def))
            throw SchemaJsonError("table " + table + " has no \"definition\"");
        out.emplace_back(TableId::of(ns, schema, table), schema_from_element(def));
    }
    return out;
}

}  // namespace cdcd
