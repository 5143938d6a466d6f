#include "sources/kafka/schema_inference.h"

#include "pipeline/schema/schema_change_apply.h"
#include "pipeline/types/type_merging.h"

namespace cdcd::kafka {

void SchemaInference::Table::reindex() {
    index.clear();
    for (std::size_t i = 0; i < schema.columns().size(); ++i)
        index.emplace(schema.columns()[i].name, static_cast<int>(i));
}

int SchemaInference::Table::find(std::string_view name, std::size_t hint) const {
    // Messages of one table usually list fields in column order: try the position first.
    const auto& cols = schema.columns();
    if (hint < cols.size() && cols[hint].name == name) return static_cast<int>(hint);
    auto it = index.find(name);
    return it == index.end() ? -1 : it->second;
}

void SchemaInference::restore(const TableSchemas& tables) {
    tables_.clear();
    last_ = nullptr;
    for (const auto& [id, schema] : tables) {
        Table& t = tables_[id];
        t.schema = schema;
        t.reindex();
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

void SchemaInference::evolve(TableId id, const std::vector<const Image*>& images,
                             const std::vector<std::string>* primary_keys, EventBatch& out) {
    bool creating = !knows(id);
    Table& t = table(id);
    std::vector<Column> added;
    std::vector<std::pair<std::string, DataType>> altered;  // name → new type
    auto pending_add = [&](std::string_view name) -> Column* {
        for (auto& c : added)
            if (c.name == name) return &c;
        return nullptr;
    };
    for (const Image* image : images) {
        for (std::size_t k = 0; k < image->size(); ++k) {
            const FieldValue& v = (*image)[k];
            int idx = t.find(v.name, k);
            v.column = idx;
            if (idx < 0) {
                if (Column* c = pending_add(v.name)) {
                    if (!fits(v, c->type)) c->type = least_common_type(c->type, inferred_type(v));
                } else {
                    added.push_back(
                        Column{std::string(v.name), inferred_type(v), {}, std::nullopt});
                }
                continue;
            }
            const DataType* current = &t.schema.columns()[static_cast<std::size_t>(idx)].type;
            for (auto& [name, type] : altered)
                if (name == v.name) current = &type;
            if (fits(v, *current)) continue;
            DataType merged = least_common_type(*current, inferred_type(v));
            if (merged == *current) continue;
            bool found = false;
            for (auto& [name, type] : altered) {
                if (name == v.name) {
                    type = merged;
                    found = true;
                }
            }
            if (!found) altered.emplace_back(std::string(v.name), merged);
        }
    }
    if (creating) {
        std::vector<std::string> keys;
        if (primary_keys)
            for (const auto& k : *primary_keys)
                if (pending_add(k)) keys.push_back(k);
        t.schema = Schema(std::move(added), std::move(keys));
        t.reindex();
        out.push_back(CreateTableEvent{id, t.schema});
        return;
    }
    if (!added.empty()) {
        AddColumnEvent add{id, {}};
        for (auto& c : added)
            add.added.push_back(
                ColumnWithPosition{std::move(c), ColumnWithPosition::Position::Last, {}});
        t.schema = apply_schema_change(t.schema, add);
        out.push_back(std::move(add));
    }
    if (!altered.empty()) {
        AlterColumnTypeEvent alter{id, {}, {}, {}};
        for (auto& [name, type] : altered) {
            alter.old_types.emplace_back(name, t.schema.find(name)->type);
            alter.new_types.emplace_back(name, type);
        }
        t.schema = apply_schema_change(t.schema, alter);
        out.push_back(std::move(alter));
    }
    if (!added.empty() || !altered.empty()) t.reindex();
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
