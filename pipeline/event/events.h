#pragma once
// Flink CDC's change events (flink-cdc-common event/*): schema changes and data changes.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "pipeline/data/row.h"
#include "pipeline/data/table_id.h"
#include "pipeline/schema/schema.h"

namespace cdcd {

struct CreateTableEvent {
    TableId table;
    Schema schema;
};

struct ColumnWithPosition {
    enum class Position { First, Last, Before, After };
    Column column;
    Position position = Position::Last;
    std::string existed_column;  // for Before / After
};

struct AddColumnEvent {
    TableId table;
    std::vector<ColumnWithPosition> added;
};

struct DropColumnEvent {
    TableId table;
    std::vector<std::string> dropped;
};

struct RenameColumnEvent {
    TableId table;
    std::vector<std::pair<std::string, std::string>> renames;  // old → new, in order
};

struct AlterColumnTypeEvent {
    TableId table;
    std::vector<std::pair<std::string, DataType>> new_types;  // in order
    std::vector<std::pair<std::string, DataType>> old_types;
    std::vector<std::pair<std::string, std::string>> comments;
};

struct DropTableEvent {
    TableId table;
};

struct TruncateTableEvent {
    TableId table;
};

struct AlterTableCommentEvent {
    TableId table;
    std::string comment;
};

enum class OpType : std::uint8_t { Insert, Update, Delete, Replace };

/// Source metadata of one event (Kafka topic/partition/offset, MNS fields...). Usually empty, so
/// it is a small vector rather than a map: no allocation on the hot path.
using EventMeta = std::vector<std::pair<std::string, std::string>>;

struct DataChangeEvent {
    TableId table;
    OpType op = OpType::Insert;
    std::optional<Row> before;
    std::optional<Row> after;
    EventMeta meta;

    DataChangeEvent() = default;
    /// Each image from a Row, an optional Row or std::nullopt, constructed where it stays (a
    /// constructor, not an aggregate: emplace_back constructs a change in its batch's slot, which
    /// clang before 16 cannot do for an aggregate).
    template <typename Before, typename After>
    DataChangeEvent(TableId table, OpType op, Before&& before, After&& after, EventMeta&& meta)
        : table(table),
          op(op),
          before(std::forward<Before>(before)),
          after(std::forward<After>(after)),
          meta(std::move(meta)) {}

    static DataChangeEvent insert(TableId table, Row after, EventMeta meta = {});
    static DataChangeEvent update(TableId table, Row before, Row after, EventMeta meta = {});
    static DataChangeEvent remove(TableId table, Row before, EventMeta meta = {});
    static DataChangeEvent replace(TableId table, Row after, EventMeta meta = {});
};

using SchemaChangeEvent =
    std::variant<CreateTableEvent, AddColumnEvent, DropColumnEvent, RenameColumnEvent,
                 AlterColumnTypeEvent, DropTableEvent, TruncateTableEvent, AlterTableCommentEvent>;

using Event = std::variant<DataChangeEvent, CreateTableEvent, AddColumnEvent, DropColumnEvent,
                           RenameColumnEvent, AlterColumnTypeEvent, DropTableEvent,
                           TruncateTableEvent, AlterTableCommentEvent>;

/// The schema change type tags of `include.schema.changes` / `exclude.schema.changes`.
enum class SchemaChangeType : std::uint8_t {
    CreateTable,
    AddColumn,
    DropColumn,
    RenameColumn,
    AlterColumnType,
    DropTable,
    TruncateTable,
    AlterTableComment,
};

inline bool is_data_change(const Event& e) {
    return e.index() == 0;
}
TableId table_of(const Event& e);
TableId table_of(const SchemaChangeEvent& e);
SchemaChangeType schema_change_type(const Event& e);  // precondition: !is_data_change(e)
SchemaChangeType schema_change_type(const SchemaChangeEvent& e);
const char* schema_change_tag(SchemaChangeType t);  // "add.column", ...
std::optional<SchemaChangeEvent> as_schema_change(const Event& e);
Event to_event(SchemaChangeEvent e);
/// A copy of a schema change event addressed to another table.
SchemaChangeEvent with_table(SchemaChangeEvent e, TableId table);

/// Flink's op short strings: +I, -U/+U, -D; REPLACE has none in Flink and prints as +U here.
const char* op_name(OpType op);  // INSERT, UPDATE, DELETE, REPLACE

}  // namespace cdcd
