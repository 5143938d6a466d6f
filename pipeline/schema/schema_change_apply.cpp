#include "pipeline/schema/schema_change_apply.h"

#include <algorithm>

namespace cdcd {

namespace {

std::string where(const TableId& t) {
    return " in table " + t.str();
}

struct Applier {
    const Schema& schema;

    Schema operator()(const CreateTableEvent& e) const { return e.schema; }

    Schema operator()(const AddColumnEvent& e) const {
        Schema out = schema;
        auto& cols = out.mutable_columns();
        for (const auto& add : e.added) {
            if (out.index_of(add.column.name) >= 0)
                throw SchemaChangeError("column `" + add.column.name + "` already exists" +
                                        where(e.table));
            using P = ColumnWithPosition::Position;
            size_t at = cols.size();
            if (add.position == P::First) {
                at = 0;
            } else if (add.position == P::Before || add.position == P::After) {
                int i = out.index_of(add.existed_column);
                if (i < 0)
                    throw SchemaChangeError("column `" + add.existed_column + "` of " +
                                            (add.position == P::Before ? "BEFORE" : "AFTER") +
                                            " does not exist" + where(e.table));
                at = static_cast<size_t>(i) + (add.position == P::After ? 1 : 0);
            }
            cols.insert(cols.begin() + static_cast<std::ptrdiff_t>(at), add.column);
        }
        return out;
    }

    Schema operator()(const DropColumnEvent& e) const {
        Schema out = schema;
        auto& cols = out.mutable_columns();
        for (const auto& name : e.dropped) {
            if (out.index_of(name) < 0)
                throw SchemaChangeError("cannot drop unknown column `" + name + "`" +
                                        where(e.table));
            cols.erase(std::remove_if(cols.begin(), cols.end(),
                                      [&](const Column& c) { return c.name == name; }),
                       cols.end());
        }
        auto pks = out.primary_keys();
        pks.erase(std::remove_if(pks.begin(), pks.end(),
                                 [&](const std::string& k) {
                                     return std::find(e.dropped.begin(), e.dropped.end(), k) !=
                                            e.dropped.end();
                                 }),
                  pks.end());
        out.set_primary_keys(pks);
        return out;
    }

    Schema operator()(const RenameColumnEvent& e) const {
        Schema out = schema;
        for (const auto& [from, to] : e.renames) {
            int i = schema.index_of(from);
            if (i < 0)
                throw SchemaChangeError("cannot rename unknown column `" + from + "`" +
                                        where(e.table));
            out.mutable_columns()[static_cast<size_t>(i)].name = to;
        }
        auto rename_keys = [&](std::vector<std::string> keys) {
            for (auto& k : keys)
                for (const auto& [from, to] : e.renames)
                    if (k == from) {
                        k = to;
                        break;
                    }
            return keys;
        };
        out.set_primary_keys(rename_keys(out.primary_keys()));
        out.set_partition_keys(rename_keys(out.partition_keys()));
        return out;
    }

    Schema operator()(const AlterColumnTypeEvent& e) const {
        Schema out = schema;
        for (const auto& [name, type] : e.new_types) {
            int i = out.index_of(name);
            if (i < 0)
                throw SchemaChangeError("cannot alter type of unknown column `" + name + "`" +
                                        where(e.table));
            out.mutable_columns()[static_cast<size_t>(i)].type = type;
        }
        for (const auto& [name, comment] : e.comments) {
            int i = out.index_of(name);
            if (i >= 0) out.mutable_columns()[static_cast<size_t>(i)].comment = comment;
        }
        return out;
    }

    Schema operator()(const DropTableEvent&) const { return schema; }
    Schema operator()(const TruncateTableEvent&) const { return schema; }
    Schema operator()(const AlterTableCommentEvent& e) const {
        Schema out = schema;
        out.set_comment(e.comment);
        return out;
    }
};

}  // namespace

Schema apply_schema_change(const Schema& schema, const SchemaChangeEvent& event) {
    return std::visit(Applier{schema}, event);
}

}  // namespace cdcd
