#include "pipeline/runtime/tap_line_format.h"

#include "formats/json/row_json.h"
#include "pipeline/event/event_format.h"

namespace cdcd {

namespace {

const char* op_word(OpType op) {
    switch (op) {
        case OpType::Insert:
            return "insert";
        case OpType::Update:
            return "update";
        case OpType::Delete:
            return "delete";
        case OpType::Replace:
            return "replace";
    }
    return "unknown";
}

void write_row(json::Writer& w, RowView row, const Schema& schema,
               const std::vector<bool>& hidden) {
    static const json::JsonFormatOptions kOptions;
    w.begin_object();
    for (std::size_t i = 0; i < schema.size(); ++i) {
        const Column& column = schema.columns()[i];
        w.key(column.name);
        if (hidden[i])
            w.string("***");
        else
            json::write_field(w, row, i, column.type, kOptions);
    }
    w.end_object();
}

}  // namespace

std::string format_tap_line(TapPoint point, const Event& event, const Schema* schema,
                            const SensitiveColumns& sensitive, int writer) {
    std::string line;
    json::Writer w(line);
    w.begin_object();
    w.key("point").string(to_string(point));
    if (writer >= 0) w.key("writer").integer(writer);
    w.key("table").string(table_of(event).str());
    if (const auto* data = std::get_if<DataChangeEvent>(&event)) {
        w.key("op").string(op_word(data->op));
        if (schema) {
            std::vector<bool> hidden = sensitive.mask(data->table, *schema);
            if (data->before) write_row(w.key("before"), *data->before, *schema, hidden);
            if (data->after) write_row(w.key("after"), *data->after, *schema, hidden);
        }
    } else {
        w.key("op").string("schema-change");
        w.key("change").string(format_schema_change(*as_schema_change(event)));
    }
    w.end_object();
    line.push_back('\n');
    return line;
}

}  // namespace cdcd
