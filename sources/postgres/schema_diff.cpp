#include "sources/postgres/schema_diff.h"

#include <stdexcept>

#include "pipeline/schema/schema_change_apply.h"

namespace cdcd::postgres {

std::optional<std::string> columns_differ(const Schema& known, const std::vector<Column>& now) {
    if (now.size() != known.size())
        return "it has " + std::to_string(now.size()) + " columns, the known schema " +
               std::to_string(known.size());
    for (std::size_t i = 0; i < now.size(); ++i) {
        const Column& was = known.columns()[i];
        if (now[i].name != was.name)
            return "column " + std::to_string(i + 1) + " is `" + now[i].name + "`, was `" +
                   was.name + "`";
        if (!now[i].type.equals_ignoring_nullability(was.type))
            return "column `" + now[i].name + "` is " + now[i].type.to_string() + ", was " +
                   was.type.to_string();
    }
    return std::nullopt;
}

std::string changed_table_refusal(const TableId& table, const std::string& why) {
    return "postgres source: the columns of table " + table.str() + " changed (" + why +
           "); with schema-change.enabled false a changed table stops the source: set it to true, "
           "or restart with --reset-state after the change";
}

Schema append_schema_changes(const TableId& table, const Schema& known,
                             const std::vector<Column>& now, EventBatch& out) {
    const std::vector<Column>& before = known.columns();
    std::vector<SchemaChangeEvent> changes;
    bool same_names = now.size() == before.size();
    bool same_types = now.size() == before.size();
    for (std::size_t i = 0; i < now.size() && i < before.size(); ++i) {
        same_names = same_names && now[i].name == before[i].name;
        same_types = same_types && now[i].type.equals_ignoring_nullability(before[i].type);
    }
    auto in = [](const std::vector<Column>& columns, const std::string& name) {
        for (const Column& c : columns)
            if (c.name == name) return true;
        return false;
    };
    if (!same_names && same_types) {
        // The same columns in the same places, some under new names: renames, unless a new
        // name is an old column's (columns moved; told apart below as drops and adds).
        RenameColumnEvent rename{table, {}};
        bool renamed_only = true;
        for (std::size_t i = 0; i < now.size(); ++i)
            if (now[i].name != before[i].name) {
                renamed_only = renamed_only && !in(before, now[i].name);
                rename.renames.emplace_back(before[i].name, now[i].name);
            }
        if (renamed_only) changes.emplace_back(std::move(rename));
        same_names = renamed_only;
    }
    if (!same_names) {
        DropColumnEvent drop{table, {}};
        for (const Column& c : before)
            if (!in(now, c.name)) drop.dropped.push_back(c.name);
        if (!drop.dropped.empty()) changes.emplace_back(std::move(drop));
        AddColumnEvent add{table, {}};
        for (std::size_t i = 0; i < now.size(); ++i) {
            if (in(before, now[i].name)) continue;
            ColumnWithPosition added{now[i], ColumnWithPosition::Position::Last, {}};
            if (i == 0) {
                added.position = ColumnWithPosition::Position::First;
            } else if (i + 1 < now.size()) {
                added.position = ColumnWithPosition::Position::After;
                added.existed_column = now[i - 1].name;
            }
            add.added.push_back(std::move(added));
        }
        if (!add.added.empty()) changes.emplace_back(std::move(add));
    }
    AlterColumnTypeEvent alter{table, {}, {}, {}};
    for (const Column& c : now)
        if (const Column* old = known.find(c.name);
            old && !c.type.equals_ignoring_nullability(old->type)) {
            alter.new_types.emplace_back(c.name, c.type);
            alter.old_types.emplace_back(c.name, old->type);
        }
    if (!alter.new_types.empty()) changes.emplace_back(std::move(alter));
    Schema evolved = known;
    for (auto& change : changes) {
        evolved = apply_schema_change(evolved, change);
        out.push_back(to_event(std::move(change)));
    }
    // What the events cannot say (a reordering): the table as it is now, announced anew.
    if (evolved.column_names() != Schema(now).column_names())
        throw std::runtime_error("postgres source: the columns of table " + table.str() +
                                 " changed in a way no schema change event describes (were "
                                 "columns reordered?)");
    return evolved;
}

}  // namespace cdcd::postgres
