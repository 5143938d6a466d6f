#include "sources/values/event_sets.h"

#include <functional>
#include <map>

namespace cdcd::values {

namespace {

const TableId& table1() {
    static const TableId id = TableId::of("default_namespace", "default_schema", "table1");
    return id;
}
const TableId& table2() {
    static const TableId id = TableId::of("default_namespace", "default_schema", "table2");
    return id;
}

Schema two_strings() {
    return SchemaBuilder()
        .column("col1", DataType::string())
        .column("col2", DataType::string())
        .primary_key({"col1"})
        .build();
}

Row strings(std::initializer_list<const char*> values) {
    RowBuilder b(values.size());
    size_t i = 0;
    for (const char* v : values) b.set_string(i++, v);
    return std::move(b).build();
}

EventMeta meta(const char* key, const char* value) {
    return {{key, value}};
}

AddColumnEvent add_string_column(TableId table, const char* name) {
    return AddColumnEvent{table,
                          {ColumnWithPosition{Column{name, DataType::string(), "", std::nullopt},
                                              ColumnWithPosition::Position::Last, ""}}};
}

std::vector<Event> single_split_single_table() {
    TableId t = table1();
    return {
        CreateTableEvent{t, two_strings()},
        DataChangeEvent::insert(t, strings({"1", "1"})),
        DataChangeEvent::insert(t, strings({"2", "2"})),
        DataChangeEvent::insert(t, strings({"3", "3"})),
        add_string_column(t, "col3"),
        RenameColumnEvent{t, {{"col2", "newCol2"}, {"col3", "newCol3"}}},
        DropColumnEvent{t, {"newCol2"}},
        DataChangeEvent::remove(t, strings({"1", "1"})),
        DataChangeEvent::update(t, strings({"2", ""}), strings({"2", "x"})),
    };
}

std::vector<Event> single_split_single_table_with_default_value() {
    auto events = single_split_single_table();
    TableId t = table1();
    events.push_back(AddColumnEvent{
        t,
        {ColumnWithPosition{Column{"colWithDefault", DataType::string(), "", std::string("flink")},
                            ColumnWithPosition::Position::Last, ""}}});
    events.push_back(RenameColumnEvent{t, {{"colWithDefault", "newColWithDefault"}}});
    return events;
}

std::vector<Event> single_split_multi_tables() {
    TableId t1 = table1(), t2 = table2();
    return {
        CreateTableEvent{t1, two_strings()},
        CreateTableEvent{t2, two_strings()},
        DataChangeEvent::insert(t1, strings({"1", "1"})),
        DataChangeEvent::insert(t1, strings({"2", "2"})),
        DataChangeEvent::insert(t1, strings({"3", "3"})),
        add_string_column(t1, "col3"),
        DataChangeEvent::insert(t2, strings({"1", "1"})),
        DataChangeEvent::insert(t2, strings({"2", "2"})),
        DataChangeEvent::insert(t2, strings({"3", "3"})),
        RenameColumnEvent{t1, {{"col2", "newCol2"}, {"col3", "newCol3"}}},
        DropColumnEvent{t1, {"newCol2"}},
        DataChangeEvent::remove(t1, strings({"1", "1"})),
        DataChangeEvent::update(t1, strings({"2", "2"}), strings({"2", "x"})),
    };
}

std::vector<Event> multi_splits_single_table() {
    TableId t = table1();
    CreateTableEvent create{t, two_strings()};
    return {
        // split 1
        create,
        DataChangeEvent::insert(t, strings({"1", "1"})),
        DataChangeEvent::insert(t, strings({"2", "2"})),
        // split 2
        create,
        DataChangeEvent::insert(t, strings({"3", "3"})),
        DataChangeEvent::insert(t, strings({"4", "4"})),
        // split 3
        create,
        DataChangeEvent::insert(t, strings({"5", "5"})),
        DataChangeEvent::insert(t, strings({"6", "6"})),
        // split 4
        create,
        DataChangeEvent::remove(t, strings({"2", "2"})),
        DataChangeEvent::remove(t, strings({"4", "4"})),
        DataChangeEvent::remove(t, strings({"6", "6"})),
        add_string_column(t, "col3"),
        DataChangeEvent::update(t, strings({"1", "1", ""}), strings({"1", "1", "x"})),
        DataChangeEvent::update(t, strings({"3", "3", ""}), strings({"3", "3", "x"})),
    };
}

std::vector<Event> transform_table() {
    TableId t = table1();
    return {
        CreateTableEvent{t, two_strings()},
        DataChangeEvent::insert(t, strings({"1", "1"}), meta("op_ts", "1")),
        DataChangeEvent::insert(t, strings({"2", "2"}), meta("op_ts", "2")),
        DataChangeEvent::insert(t, strings({"3", "3"}), meta("op_ts", "3")),
        add_string_column(t, "col3"),
        RenameColumnEvent{t, {{"col2", "newCol2"}, {"col3", "newCol3"}}},
        DropColumnEvent{t, {"newCol2"}},
        DataChangeEvent::remove(t, strings({"1", "1"}), meta("op_ts", "4")),
        DataChangeEvent::update(t, strings({"2", ""}), strings({"2", "x"}), meta("op_ts", "5")),
    };
}

Row class_row(const char* cls, std::int64_t a, std::optional<std::int64_t> b,
              std::optional<const char*> pkg) {
    RowBuilder r(3);
    r.set_string(0, cls).set_long(1, a);
    if (b) r.set_long(2, *b);
    if (pkg) r.set_string(2, *pkg);
    return std::move(r).build();
}

std::vector<Event> complex_column_name_table() {
    TableId t = table1();
    Schema schema = SchemaBuilder()
                        .column("class", DataType::string())
                        .column("foo-bar", DataType::int_())
                        .column("bar-foo", DataType::int_())
                        .primary_key({"class"})
                        .build();
    return {
        CreateTableEvent{t, schema},
        DataChangeEvent::insert(t, class_row("class0", 0, 0, std::nullopt),
                                meta("timestamp-type", "type0")),
        DataChangeEvent::insert(t, class_row("class1", 1, 10, std::nullopt),
                                meta("timestamp-type", "type1")),
        DataChangeEvent::insert(t, class_row("class2", 2, 100, std::nullopt),
                                meta("timestamp-type", "type2")),
        add_string_column(t, "import-package"),
        RenameColumnEvent{t, {{"bar-foo", "bar-baz"}}},
        DropColumnEvent{t, {"bar-baz"}},
        DataChangeEvent::remove(t, class_row("class1", 1, std::nullopt, ""),
                                meta("timestamp-type", "type1")),
        DataChangeEvent::update(t, class_row("class2", 2, std::nullopt, ""),
                                class_row("new-class2", 20, std::nullopt, "new-package2"),
                                meta("timestamp-type", "type2")),
    };
}

// cdcd's own set (not in Flink CDC's ValuesDataSourceHelper): table1 is truncated between two
// inserts, table2 dropped after its rows, for sinks that apply DROP and TRUNCATE TABLE.
std::vector<Event> truncate_and_drop_tables() {
    TableId t1 = table1(), t2 = table2();
    return {
        CreateTableEvent{t1, two_strings()},
        DataChangeEvent::insert(t1, strings({"1", "1"})),
        DataChangeEvent::insert(t1, strings({"2", "2"})),
        TruncateTableEvent{t1},
        DataChangeEvent::insert(t1, strings({"3", "3"})),
        CreateTableEvent{t2, two_strings()},
        DataChangeEvent::insert(t2, strings({"1", "1"})),
        DropTableEvent{t2},
    };
}

const std::map<std::string, std::function<std::vector<Event>()>>& fixed_sets() {
    static const std::map<std::string, std::function<std::vector<Event>()>> sets = {
        {"SINGLE_SPLIT_SINGLE_TABLE", single_split_single_table},
        {"SINGLE_SPLIT_SINGLE_TABLE_WITH_DEFAULT_VALUE",
         single_split_single_table_with_default_value},
        {"SINGLE_SPLIT_MULTI_TABLES", single_split_multi_tables},
        {"MULTI_SPLITS_SINGLE_TABLE", multi_splits_single_table},
        {"TRANSFORM_TABLE", transform_table},
        {"COMPLEX_COLUMN_NAME_TABLE", complex_column_name_table},
        {"TRUNCATE_AND_DROP_TABLES", truncate_and_drop_tables},
    };
    return sets;
}

}  // namespace

const std::vector<std::string>& event_set_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n;
        for (const auto& [name, fn] : fixed_sets()) n.push_back(name);
        n.push_back("GENERATED");
        return n;
    }();
    return names;
}

std::optional<std::vector<Event>> fixed_event_set(const std::string& name) {
    auto it = fixed_sets().find(name);
    if (it == fixed_sets().end()) return std::nullopt;
    return it->second();
}

}  // namespace cdcd::values
