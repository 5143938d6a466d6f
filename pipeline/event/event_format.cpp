#include "pipeline/event/event_format.h"

#include "pipeline/data/field_format.h"
#include "pipeline/util/java_hash_map.h"

namespace cdcd {

namespace {

const char* position_name(ColumnWithPosition::Position p) {
    switch (p) {
        case ColumnWithPosition::Position::First:
            return "FIRST";
        case ColumnWithPosition::Position::Last:
            return "LAST";
        case ColumnWithPosition::Position::Before:
            return "BEFORE";
        case ColumnWithPosition::Position::After:
            return "AFTER";
    }
    return "?";
}

// A Java HashMap<String, V>.toString(): {k1=v1, k2=v2} in HashMap order.
template <typename V, typename F>
std::string java_map(const std::vector<std::pair<std::string, V>>& entries, F render) {
    std::vector<std::string> keys;
    keys.reserve(entries.size());
    for (const auto& [k, v] : entries) keys.push_back(k);
    std::string s = "{";
    bool first = true;
    for (std::size_t i : java_hash_map_order(keys)) {
        if (!first) s += ", ";
        first = false;
        s += entries[i].first + "=" + render(entries[i].second);
    }
    return s + "}";
}

std::string list(const std::vector<std::string>& items) {
    std::string s = "[";
    for (size_t i = 0; i < items.size(); ++i) {
        if (i) s += ", ";
        s += items[i];
    }
    return s + "]";
}

struct Formatter {
    std::string operator()(const CreateTableEvent& e) const {
        return "CreateTableEvent{tableId=" + e.table.str() + ", schema=" + e.schema.to_string() +
               "}";
    }
    std::string operator()(const AddColumnEvent& e) const {
        std::string s = "AddColumnEvent{tableId=" + e.table.str() + ", addedColumns=[";
        for (size_t i = 0; i < e.added.size(); ++i) {
            const auto& c = e.added[i];
            if (i) s += ", ";
            s += "ColumnWithPosition{column=" + c.column.to_string() +
                 ", position=" + position_name(c.position) +
                 ", existedColumnName=" + (c.existed_column.empty() ? "null" : c.existed_column) +
                 "}";
        }
        return s + "]}";
    }
    std::string operator()(const DropColumnEvent& e) const {
        return "DropColumnEvent{tableId=" + e.table.str() +
               ", droppedColumnNames=" + list(e.dropped) + "}";
    }
    std::string operator()(const RenameColumnEvent& e) const {
        return "RenameColumnEvent{tableId=" + e.table.str() +
               ", nameMapping=" + java_map(e.renames, [](const std::string& v) { return v; }) + "}";
    }
    std::string operator()(const AlterColumnTypeEvent& e) const {
        auto type = [](const DataType& t) { return t.to_string(); };
        return "AlterColumnTypeEvent{tableId=" + e.table.str() +
               ", typeMapping=" + java_map(e.new_types, type) +
               ", oldTypeMapping=" + java_map(e.old_types, type) +
               ", comments=" + java_map(e.comments, [](const std::string& v) { return v; }) + "}";
    }
    std::string operator()(const DropTableEvent& e) const {
        return "DropTableEvent{tableId=" + e.table.str() + "}";
    }
    std::string operator()(const TruncateTableEvent& e) const {
        return "TruncateTableEvent{tableId=" + e.table.str() + "}";
    }
    std::string operator()(const AlterTableCommentEvent& e) const {
        return "AlterTableCommentEvent{tableId=" + e.table.str() + ", comment=" + e.comment + "}";
    }
};

}  // namespace

std::string format_schema_change(const SchemaChangeEvent& event) {
    return std::visit(Formatter{}, event);
}

std::string format_meta(const EventMeta& meta) {
    if (meta.empty()) return "()";
    return "(" + java_map(meta, [](const std::string& v) { return v; }) + ")";
}

std::string format_data_change(const DataChangeEvent& e, const Schema& schema) {
    std::string s = "DataChangeEvent{tableId=" + e.table.str() + ", before=";
    s += e.before ? format_row(e.before->view(), schema) : "[]";
    s += ", after=";
    s += e.after ? format_row(e.after->view(), schema) : "[]";
    s += ", op=";
    s += op_name(e.op);
    s += ", meta=" + format_meta(e.meta) + "}";
    return s;
}

}  // namespace cdcd
