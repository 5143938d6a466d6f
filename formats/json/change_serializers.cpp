#include "formats/json/change_serializers.h"

namespace cdcd::json {

namespace {

void write_source_db(Writer& w, const TableId& table) {
    // Flink CDC writes the TableId's schema name as "db" (null for 1-part ids).
    if (table.has_schema()) {
        w.string(table.schema_name());
    } else {
        w.null();
    }
}

const char* debezium_op(OpType op) {
    switch (op) {
        case OpType::Insert:
            return "c";
        case OpType::Delete:
            return "d";
        default:
            return "u";
    }
}

void connect_type(Writer& w, const DataType& t, const std::string& field,
                  const std::string& doc = {}) {
    w.begin_object();
    auto type = [&](const char* name) { w.key("type").string(name); };
    switch (t.root()) {
        case TypeRoot::TinyInt:
        case TypeRoot::SmallInt:
            type("int16");
            break;
        case TypeRoot::Int:
            type("int32");
            break;
        case TypeRoot::BigInt:
            type("int64");
            break;
        case TypeRoot::Float:
            type("float");
            break;
        case TypeRoot::Double:
            type("double");
            break;
        case TypeRoot::Boolean:
            type("boolean");
            break;
        case TypeRoot::Decimal:
            type("bytes");
            w.key("name").string("org.apache.kafka.connect.data.Decimal");
            w.key("version").integer(1);
            w.key("parameters").begin_object();
            w.key("scale").string(std::to_string(t.scale()));
            w.key("connect.decimal.precision").string(std::to_string(t.precision()));
            w.end_object();
            break;
        case TypeRoot::Date:
            type("int32");
            w.key("name").string("io.debezium.time.Date");
            w.key("version").integer(1);
            break;
        case TypeRoot::Time:
            type("int64");
            w.key("name").string("io.debezium.time.MicroTime");
            w.key("version").integer(1);
            break;
        case TypeRoot::Timestamp:
        case TypeRoot::TimestampTz:
            type("int64");
            w.key("name").string(t.precision() <= 3 ? "io.debezium.time.Timestamp"
                                                    : "io.debezium.time.MicroTimestamp");
            w.key("version").integer(1);
            break;
        case TypeRoot::TimestampLtz:
            type("string");
            w.key("name").string("io.debezium.time.ZonedTimestamp");
            w.key("version").integer(1);
            break;
        case TypeRoot::Binary:
        case TypeRoot::Varbinary:
            type("bytes");
            w.key("name").string("io.debezium.data.Bits");
            w.key("version").integer(1);
            w.key("parameters")
                .begin_object()
                .key("length")
                .string(std::to_string(t.length()))
                .end_object();
            break;
        case TypeRoot::Array:
            type("array");
            w.key("items");
            connect_type(w, t.element(), "");
            break;
        case TypeRoot::Map:
            type("map");
            w.key("keys");
            connect_type(w, t.key(), "");
            w.key("values");
            connect_type(w, t.value(), "");
            break;
        case TypeRoot::Row:
            type("struct");
            w.key("fields").begin_array();
            for (const auto& f : t.fields()) connect_type(w, *f.type, f.name);
            w.end_array();
            break;
        default:
            type("string");
            break;
    }
    w.key("optional").boolean(t.nullable());
    if (!field.empty()) w.key("field").string(field);
    if (!doc.empty()) w.key("doc").string(doc);
    w.end_object();
}

}  // namespace

std::string debezium_connect_schema(const Schema& schema) {
    std::string out;
    Writer w(out);
    auto image = [&](const char* name) {
        w.begin_object().key("type").string("struct").key("fields").begin_array();
        for (const auto& c : schema.columns()) connect_type(w, c.type, c.name, c.comment);
        w.end_array().key("optional").boolean(true).key("field").string(name).end_object();
    };
    w.begin_object().key("type").string("struct").key("fields").begin_array();
    image("before");
    image("after");
    w.end_array().key("optional").boolean(false).end_object();
    return out;
}

void write_debezium_json(std::string& out, const DataChangeEvent& e, const Schema& schema,
                         const DebeziumJsonOptions& options) {
    write_debezium_json(out, e, schema, options,
                        options.include_schema ? debezium_connect_schema(schema) : std::string());
}

namespace {

void write_debezium_source(Writer& w, const TableId& table) {
    w.begin_object().quoted_key("\"db\":");
    write_source_db(w, table);
    w.quoted_key("\"table\":").string(table.table_name()).end_object();
}

void write_canal_table(Writer& w, const TableId& table, const Schema& schema) {
    w.quoted_key("\"database\":");
    write_source_db(w, table);
    w.quoted_key("\"table\":").string(table.table_name());
    w.quoted_key("\"pkNames\":").begin_array();
    for (const auto& k : schema.primary_keys()) w.string(k);
    w.end_array();
}

}  // namespace

TableRendering TableRendering::of(const TableId& table, const Schema& schema) {
    TableRendering r;
    r.keys = ColumnKeys::of(schema);
    Writer source(r.debezium_source);
    write_debezium_source(source, table);
    Writer canal(r.canal_table);
    write_canal_table(canal, table, schema);
    return r;
}

void write_debezium_json(std::string& out, const DataChangeEvent& e, const Schema& schema,
                         const DebeziumJsonOptions& options, std::string_view connect_schema,
                         const TableRendering* table) {
    const ColumnKeys* keys = table ? &table->keys : nullptr;
    Writer w(out);
    if (options.include_schema) {
        w.begin_object().quoted_key("\"schema\":").raw(connect_schema).quoted_key("\"payload\":");
    }
    w.begin_object();
    w.quoted_key("\"before\":");
    if (e.before && e.op != OpType::Insert && e.op != OpType::Replace) {
        write_row_object(w, e.before->view(), schema, options.json, keys);
    } else {
        w.null();
    }
    w.quoted_key("\"after\":");
    if (e.after && e.op != OpType::Delete) {
        write_row_object(w, e.after->view(), schema, options.json, keys);
    } else {
        w.null();
    }
    w.quoted_key("\"op\":").string(debezium_op(e.op));
    w.quoted_key("\"source\":");
    if (table) {
        w.raw(table->debezium_source);
    } else {
        write_debezium_source(w, e.table);
    }
    w.end_object();
    if (options.include_schema) w.end_object();
}

void write_canal_json(std::string& out, const DataChangeEvent& e, const Schema& schema,
                      const JsonFormatOptions& o, const TableRendering* table) {
    const ColumnKeys* keys = table ? &table->keys : nullptr;
    Writer w(out);
    w.begin_object().quoted_key("\"old\":");
    if (e.op == OpType::Update && e.before) {
        w.begin_array();
        write_row_object(w, e.before->view(), schema, o, keys);
        w.end_array();
    } else {
        w.null();
    }
    w.quoted_key("\"data\":").begin_array();
    const Row* image = e.op == OpType::Delete ? (e.before ? &*e.before : nullptr)
                                              : (e.after ? &*e.after : nullptr);
    if (image) write_row_object(w, image->view(), schema, o, keys);
    w.end_array();
    const char* type = e.op == OpType::Insert   ? "INSERT"
                       : e.op == OpType::Delete ? "DELETE"
                                                : "UPDATE";
    w.quoted_key("\"type\":").string(type);
    if (table) {
        w.raw(table->canal_table);  // members, after the comma raw() writes
    } else {
        write_canal_table(w, e.table, schema);
    }
    w.end_object();
}

}  // namespace cdcd::json
