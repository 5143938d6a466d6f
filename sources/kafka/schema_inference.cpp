#include "sources/kafka/schema_inference.h"

#include "formats/json/message_parser.h"
#include "pipeline/types/type_merging.h"

namespace cdcd::kafka {

void SchemaInference::Table::reindex() {
    index.clear();
    for (std::size_t i = 0; i < schema.columns().size(); ++i)
        index.emplace(schema.columns()[i].name, static_cast<int>(i));
}

int SchemaInference::Table::find_indexed(std::string_view name) const {
    auto it = index.find(name);
    return it == index.end() ? -1 : it->second;
}

void SchemaInference::restore(const TableSchemas& tables) {
    tables_.clear();
    last_ = nullptr;
    total_columns_ = 0;
    for (const auto& [id, schema] : tables) {
        Table& t = tables_[id];
        t.schema = schema;
        t.reindex();
        total_columns_ += schema.size();
    }
}

const Schema* SchemaInference::schema(TableId id) const {
    auto it = tables_.find(id);
    return it == tables_.end() ? nullptr : &it->second.schema;
}

SchemaInference::Table& SchemaInference::table(TableId id) {
    if (last_ && last_id_ == id) return *last_;
    Table& t = tables_[id];
    last_id_ = id;
    last_ = &t;
    return t;
}

void SchemaInference::check_columns(TableId id, std::size_t columns) const {
    if (columns > limits_.max_columns_per_table)
        throw LimitError("table " + id.str() + " would have more than " +
                         std::to_string(limits_.max_columns_per_table) +
                         " columns, the limit of a table's inferred columns; raise " +
                         MessageLimits::kColumnsOption + " to accept such messages");
    const std::size_t existing = tables_.count(id) ? tables_.at(id).schema.size() : 0;
    if (total_columns_ - existing + columns > limits_.max_total_columns)
        throw LimitError("table " + id.str() + " would take the columns of all inferred tables " +
                         "past " + std::to_string(limits_.max_total_columns) +
                         ", the limit of the source's inferred columns; raise " +
                         MessageLimits::kTotalColumnsOption + " to accept such messages");
}

bool SchemaInference::fits_unchanged(const Table& t, const std::vector<const Image*>& images) {
    const auto& cols = t.schema.columns();
    for (const Image* image : images) {
        for (std::size_t k = 0; k < image->size(); ++k) {
            const FieldValue& v = (*image)[k];
            const int idx = t.find(v.name, k);
            v.column = idx;
            if (idx < 0 || !fits(v, cols[static_cast<std::size_t>(idx)].type)) return false;
        }
    }
    return true;
}

void SchemaInference::evolve(TableId id, const std::vector<const Image*>& images,
                             const std::vector<std::string>* primary_keys, EventBatch& out) {
    const bool creating = !knows(id);
    if (creating && tables_.size() >= limits_.max_tables)
        throw LimitError("table " + id.str() + " would be one more than the " +
                         std::to_string(limits_.max_tables) +
                         " tables this source tracks, its limit; raise " +
                         MessageLimits::kTablesOption + " to accept such messages");
    Table* existing = creating ? nullptr : &table(id);
    if (existing && fits_unchanged(*existing, images)) return;
    const std::size_t width = existing ? existing->schema.size() : 0;
    // New columns and widened types, in the order their fields first appear; indexed by name
    // (views into the images, which outlive this call).
    std::vector<Column> added;
    std::unordered_map<std::string_view, std::size_t> added_at;
    std::vector<std::pair<std::string, DataType>> altered;  // name → new type
    std::unordered_map<std::string_view, std::size_t> altered_at;
    for (const Image* image : images) {
        for (std::size_t k = 0; k < image->size(); ++k) {
            const FieldValue& v = (*image)[k];
            int idx = existing ? existing->find(v.name, k) : -1;
            v.column = idx;
            if (idx < 0) {
                auto [at, fresh] = added_at.emplace(v.name, added.size());
                if (fresh) {
                    check_columns(id, width + added.size() + 1);
                    // A column added to an existing table is nullable (spec), whatever a
                    // Connect schema declares: the table's earlier rows have no value for it.
                    DataType type = inferred_type(v);
                    if (!creating) type = type.with_nullable(true);
                    added.push_back(Column{std::string(v.name), std::move(type), {}, std::nullopt});
                } else if (Column& c = added[at->second]; !fits(v, c.type)) {
                    c.type = least_common_type(c.type, inferred_type(v));
                }
                continue;
            }
            auto alter = altered_at.find(v.name);
            const DataType& current =
                alter != altered_at.end()
                    ? altered[alter->second].second
                    : existing->schema.columns()[static_cast<std::size_t>(idx)].type;
            if (fits(v, current)) continue;
            DataType merged = least_common_type(current, inferred_type(v));
            if (merged == current) continue;
            if (alter != altered_at.end()) {
                altered[alter->second].second = std::move(merged);
            } else {
                altered_at.emplace(v.name, altered.size());
                altered.emplace_back(std::string(v.name), std::move(merged));
            }
        }
    }
    if (creating) {
        std::vector<std::string> keys;
        if (primary_keys)
            for (const auto& k : *primary_keys)
                if (added_at.count(k)) keys.push_back(k);
        Table& t = table(id);
        total_columns_ += added.size();
        t.schema = Schema(std::move(added), std::move(keys));
        t.reindex();
        out.push_back(CreateTableEvent{id, t.schema});
        return;
    }
    Table& t = *existing;
    if (!added.empty()) {
        // As apply_schema_change would (each one last), without its search per column.
        AddColumnEvent add{id, {}};
        auto& columns = t.schema.mutable_columns();
        for (auto& c : added) {
            t.index.emplace(c.name, static_cast<int>(columns.size()));
            columns.push_back(c);
            add.added.push_back(
                ColumnWithPosition{std::move(c), ColumnWithPosition::Position::Last, {}});
        }
        total_columns_ += added.size();
        out.push_back(std::move(add));
    }
    if (!altered.empty()) {
        AlterColumnTypeEvent alter{id, {}, {}, {}};
        for (auto& [name, type] : altered) {
            Column& c = t.schema.mutable_columns()[static_cast<std::size_t>(t.index.at(name))];
            alter.old_types.emplace_back(name, c.type);
            c.type = type;
            alter.new_types.emplace_back(name, std::move(type));
        }
        out.push_back(std::move(alter));
    }
}

std::optional<Row> SchemaInference::build(TableId id, const Image& image, std::string* error) {
    Table& t = table(id);
    const auto& cols = t.schema.columns();
    std::size_t hint = 0;
    for (const auto& v : image) hint += v.text.size() + 16;
    RowBuilder row(cols.size(), hint);
    for (std::size_t k = 0; k < image.size(); ++k) {
        const FieldValue& v = image[k];
        int idx = v.column >= 0 ? v.column : t.find(v.name, k);
        if (idx < 0) continue;  // cannot happen after evolve()
        const auto& col = cols[static_cast<std::size_t>(idx)];
        if (!store(row, static_cast<std::size_t>(idx), v, col.type)) {
            if (error)
                *error = "field " + col.name + ": cannot store '" + std::string(v.text) + "' as " +
                         col.type.to_string();
            return std::nullopt;
        }
    }
    return std::move(row).build();
}

}  // namespace cdcd::kafka
