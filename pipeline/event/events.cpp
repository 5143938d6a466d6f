#include "pipeline/event/events.h"

namespace cdcd {

DataChangeEvent DataChangeEvent::insert(TableId table, Row after, EventMeta meta) {
    return DataChangeEvent{table, OpType::Insert, std::nullopt, std::move(after), std::move(meta)};
}
DataChangeEvent DataChangeEvent::update(TableId table, Row before, Row after, EventMeta meta) {
    return DataChangeEvent{table, OpType::Update, std::move(before), std::move(after),
                           std::move(meta)};
}
DataChangeEvent DataChangeEvent::remove(TableId table, Row before, EventMeta meta) {
    return DataChangeEvent{table, OpType::Delete, std::move(before), std::nullopt, std::move(meta)};
}
DataChangeEvent DataChangeEvent::replace(TableId table, Row after, EventMeta meta) {
    return DataChangeEvent{table, OpType::Replace, std::nullopt, std::move(after), std::move(meta)};
}

TableId table_of(const Event& e) {
    return std::visit([](const auto& v) { return v.table; }, e);
}
TableId table_of(const SchemaChangeEvent& e) {
    return std::visit([](const auto& v) { return v.table; }, e);
}

SchemaChangeType schema_change_type(const SchemaChangeEvent& e) {
    return static_cast<SchemaChangeType>(e.index());
}
SchemaChangeType schema_change_type(const Event& e) {
    return static_cast<SchemaChangeType>(e.index() - 1);
}

const char* schema_change_tag(SchemaChangeType t) {
    switch (t) {
        case SchemaChangeType::CreateTable:
            return "create.table";
        case SchemaChangeType::AddColumn:
            return "add.column";
        case SchemaChangeType::DropColumn:
            return "drop.column";
        case SchemaChangeType::RenameColumn:
            return "rename.column";
        case SchemaChangeType::AlterColumnType:
            return "alter.column.type";
        case SchemaChangeType::DropTable:
            return "drop.table";
        case SchemaChangeType::TruncateTable:
            return "truncate.table";
        case SchemaChangeType::AlterTableComment:
            return "alter.table.comment";
    }
    return "?";
}

std::optional<SchemaChangeEvent> as_schema_change(const Event& e) {
    return std::visit(
        [](const auto& v) -> std::optional<SchemaChangeEvent> {
            if constexpr (std::is_same_v<std::decay_t<decltype(v)>, DataChangeEvent>) {
                return std::nullopt;
            } else {
                return SchemaChangeEvent(v);
            }
        },
        e);
}

Event to_event(SchemaChangeEvent e) {
    return std::visit([](auto&& v) { return Event(std::forward<decltype(v)>(v)); }, std::move(e));
}

SchemaChangeEvent with_table(SchemaChangeEvent e, TableId table) {
    std::visit([table](auto& v) { v.table = table; }, e);
    return e;
}

const char* op_name(OpType op) {
    switch (op) {
        case OpType::Insert:
            return "INSERT";
        case OpType::Update:
            return "UPDATE";
        case OpType::Delete:
            return "DELETE";
        case OpType::Replace:
            return "REPLACE";
    }
    return "?";
}

}  // namespace cdcd
