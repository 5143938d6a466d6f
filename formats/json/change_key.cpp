#include "formats/json/change_key.h"

namespace cdcd::json {

KeyColumns KeyColumns::of(const Schema& schema) {
    KeyColumns k;
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
    w.begin_object().quoted_key("\"TableId\":").string(e.table.str());
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
