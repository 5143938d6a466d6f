#include "formats/json/change_key.h"

namespace cdcd::json {

namespace {

void write_table_id_member(Writer& w, const TableId& table) {
    w.quoted_key("\"TableId\":").string(table.str());
}

}  // namespace

KeyColumns KeyColumns::of(const Schema& schema, std::optional<TableId> table) {
    KeyColumns k;
    if (table) {
        k.table = table;
        Writer w(k.table_id_member);
        write_table_id_member(w, *table);
    }
    for (const auto& name : schema.primary_keys()) {
        int i = schema.index_of(name);
        if (i < 0) continue;
        k.indexes.push_back(i);
        k.columns.push_back(schema.columns()[static_cast<std::size_t>(i)]);
    }
    for (const auto& c : k.columns) {
        std::string quoted;
        append_quoted(quoted, c.name);
        quoted.push_back(':');
        k.keys.keys.push_back(std::move(quoted));
    }
    return k;
}

const Row* key_image(const DataChangeEvent& e) {
    if (e.op == OpType::Delete) return e.before ? &*e.before : nullptr;
    return e.after ? &*e.after : nullptr;
}

void write_json_key(std::string& out, const DataChangeEvent& e, const KeyColumns& key,
                    const JsonFormatOptions& options) {
    Writer w(out);
    w.begin_object();
    if (key.table == e.table) {
        w.raw(key.table_id_member);  // the member, after the separator raw() writes
    } else {
        write_table_id_member(w, e.table);
    }
    const Row* image = key_image(e);
    for (std::size_t k = 0; k < key.indexes.size(); ++k) {
        auto i = static_cast<std::size_t>(key.indexes[k]);
        bool absent = !image || i >= image->arity() || image->is_null(i);
        if (absent && options.ignore_null_fields) continue;
        if (k < key.keys.keys.size()) {
            w.quoted_key(key.keys.keys[k]);
        } else {
            w.key(key.columns[k].name);
        }
        if (absent) {
            w.null();
        } else {
            write_field(w, image->view(), i, key.columns[k].type, options);
        }
    }
    w.end_object();
}

}  // namespace cdcd::json
