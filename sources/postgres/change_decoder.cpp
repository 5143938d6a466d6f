#include "sources/postgres/change_decoder.h"

#include <stdexcept>

#include "pipeline/data/field_format.h"
#include "pipeline/schema/schema_change_apply.h"
#include "sources/postgres/schema_diff.h"
#include "sources/postgres/text_values.h"
#include "sources/postgres/type_mapping.h"

namespace cdcd::postgres {

TableFilter::TableFilter(std::string database, const std::string& tables,
                         const std::optional<std::string>& exclude, bool include_database)
    : database_(std::move(database)), include_database_(include_database) {
    std::string error;
    include_ = Selectors::parse(tables, &error);
    if (!include_) throw std::invalid_argument("tables: " + error);
    if (exclude) {
        exclude_ = Selectors::parse(*exclude, &error);
        if (!exclude_) throw std::invalid_argument("tables.exclude: " + error);
    }
}

bool TableFilter::captures(const std::string& schema, const std::string& table) const {
    const TableId full = TableId::of(database_, schema, table);
    return include_->matches(full) && !(exclude_ && exclude_->matches(full));
}

TableId TableFilter::table_id(const std::string& schema, const std::string& table) const {
    return include_database_ ? TableId::of(database_, schema, table) : TableId::of(schema, table);
}

ChangeDecoder::ChangeDecoder(TableFilter filter, SchemaLookup lookup, bool schema_changes,
                             ValueModes modes)
    : filter_(std::move(filter)),
      lookup_(std::move(lookup)),
      schema_changes_(schema_changes),
      modes_(modes) {}

void ChangeDecoder::add_known(const TableId& table, const Schema& schema) {
    known_[table] = schema;
}

namespace {

/// Whether the Relation's columns are the schema's: the same names in order, of the same types
/// (nullability is not in a Relation message).
std::optional<std::string> relation_differs(
    const RelationMessage& m, const Schema& schema,
    const std::function<PgColumnType(const RelationColumn&)>& type_of, const ValueModes& modes) {
    if (m.columns.size() != schema.size())
        return "it has " + std::to_string(m.columns.size()) + " columns, the known schema " +
               std::to_string(schema.size());
    for (std::size_t i = 0; i < m.columns.size(); ++i) {
        const RelationColumn& c = m.columns[i];
        const Column& known = schema.columns()[i];
        if (c.name != known.name)
            return "column " + std::to_string(i + 1) + " is `" + c.name + "`, was `" + known.name +
                   "`";
        auto mapped = map_type(type_of(c), modes);
        // An enum maps only with the catalog's help: a known STRING column of an unknown oid is
        // taken as unchanged.
        if (auto* type = std::get_if<DataType>(&mapped)) {
            if (!type->equals_ignoring_nullability(known.type))
                return "column `" + c.name + "` is " + type->to_string() + ", was " +
                       known.type.to_string();
        } else if (!known.type.is_string()) {
            return "column `" + c.name + "` changed its type, to one cdcd refuses: " +
                   std::get<TypeRefusal>(mapped).reason;
        }
    }
    return std::nullopt;
}

}  // namespace

PgColumnType ChangeDecoder::column_type(const RelationColumn& c) {
    auto name = type_names_.find(c.type_oid);
    if (c.type_oid >= oid::kFirstNormalOid && resolve_type_) {
        auto it = resolved_types_.find(c.type_oid);
        if (it == resolved_types_.end())
            it = resolved_types_.emplace(c.type_oid, resolve_type_(c.type_oid)).first;
        PgColumnType type = it->second;
        // A domain's typmod is the one it declared (a column of a domain has none); any other
        // type's is the column's.
        if (type.domain.empty()) type.type_modifier = c.type_modifier;
        // Dropped since: at least the name the Type message gave, for the refusal.
        if (type.type_name.empty() && name != type_names_.end()) type.type_name = name->second;
        return type;
    }
    return {c.type_oid, c.type_modifier, false,
            name == type_names_.end() ? std::string() : name->second};
}

void ChangeDecoder::on_relation(const RelationMessage& m, EventBatch& out) {
    Relation r;
    r.captured = filter_.captures(m.namespace_name, m.relation_name);
    if (!r.captured) {
        relations_[m.relation_oid] = std::move(r);
        return;
    }
    r.table = filter_.table_id(m.namespace_name, m.relation_name);
    r.schema_name = m.namespace_name;
    r.table_name = m.relation_name;
    if (auto known = known_.find(r.table); known != known_.end()) {
        auto type_of = [this](const RelationColumn& c) { return column_type(c); };
        auto why = relation_differs(m, known->second, type_of, modes_);
        if (why && schema_changes_) {
            known->second = evolve(r.table, known->second, m, out);
            why.reset();
        }
        if (why) throw std::runtime_error(changed_table_refusal(r.table, *why));
        r.schema = known->second;
    } else {
        r.schema = lookup_(m);
        if (auto why = relation_differs(
                m, r.schema, [this](const RelationColumn& c) { return column_type(c); }, modes_))
            throw std::runtime_error("postgres source: the catalog's columns of table " +
                                     r.table.str() + " are not those of its Relation message (" +
                                     *why + "); was it altered meanwhile?");
        known_[r.table] = r.schema;
        out.push_back(CreateTableEvent{r.table, r.schema});
    }
    for (const Column& c : r.schema.columns()) r.types.push_back(c.type);
    for (const RelationColumn& c : m.columns) r.forms.push_back(text_form(column_type(c), modes_));
    r.key_indexes = r.schema.primary_key_indexes();
    relations_[m.relation_oid] = std::move(r);
}

Schema ChangeDecoder::evolve(const TableId& table, const Schema& known, const RelationMessage& m,
                             EventBatch& out) {
    // Types from the Relation message, which is as of the change; the catalog is as of now (later
    // DDL may have changed it again), so it only adds what a Relation cannot say: NOT NULL, and
    // that a type of its own is an enum.
    const Schema catalog = lookup_(m);
    std::vector<Column> now;
    now.reserve(m.columns.size());
    for (const RelationColumn& c : m.columns) {
        const Column* current = catalog.find(c.name);
        auto mapped = map_type(column_type(c), modes_);
        if (auto* type = std::get_if<DataType>(&mapped)) {
            const bool same = current && current->type.equals_ignoring_nullability(*type);
            now.push_back(Column{c.name, same ? current->type : *type, {}, {}});
        } else if (current && current->type.is_string()) {
            now.push_back(*current);
        } else {
            throw std::runtime_error("postgres source: table " + table.str() + " column `" +
                                     c.name + "`: " + std::get<TypeRefusal>(mapped).reason);
        }
    }
    return append_schema_changes(table, known, now, out);
}

const ChangeDecoder::Relation* ChangeDecoder::relation(Oid oid) const {
    auto it = relations_.find(oid);
    if (it == relations_.end())
        throw std::runtime_error("postgres source: change of relation " + std::to_string(oid) +
                                 " before its Relation message");
    return it->second.captured ? &it->second : nullptr;
}

std::optional<std::pair<TableId, const Schema*>> ChangeDecoder::captured(Oid oid) const {
    auto it = relations_.find(oid);
    if (it == relations_.end() || !it->second.captured) return std::nullopt;
    return std::make_pair(it->second.table, &it->second.schema);
}

std::optional<Row> ChangeDecoder::to_row(const Relation& r, const TupleData& tuple,
                                         const TupleData* old, std::string* error) const {
    if (tuple.size() != r.types.size()) {
        *error = "tuple of " + std::to_string(tuple.size()) + " columns for a table of " +
                 std::to_string(r.types.size());
        return std::nullopt;
    }
    RowBuilder row(tuple.size());
    for (std::size_t i = 0; i < tuple.size(); ++i) {
        const TupleValue* value = &tuple[i];
        if (value->kind == TupleValue::Kind::UnchangedToast && old && i < old->size() &&
            (*old)[i].kind == TupleValue::Kind::Text)
            value = &(*old)[i];
        switch (value->kind) {
            case TupleValue::Kind::Null:
                row.set_null(i);
                break;
            case TupleValue::Kind::UnchangedToast: {
                const DataType& type = r.types[i];
                if (!type.is_character() && !type.is_binary()) {
                    *error = "column `" + r.schema.columns()[i].name +
                             "` is an unchanged TOASTed value of type " + type.to_string() +
                             ", which has no placeholder";
                    return std::nullopt;
                }
                row.set_bytes(i, kUnavailableValue);
                break;
            }
            case TupleValue::Kind::Text:
                if (auto why = set_text_value(row, i, r.types[i], value->text, r.forms[i])) {
                    *error = "column `" + r.schema.columns()[i].name + "`: " + *why;
                    return std::nullopt;
                }
                break;
        }
    }
    return std::move(row).build();
}

bool ChangeDecoder::key_changed(const Relation& r, const TupleData& old, const TupleData& now) {
    // Debezium compares the key of the before image with the after image's: a key column the old
    // tuple lacks (NULL) counts as changed too. The server's text of a value is canonical, so
    // equal values have equal text. A key column left out as unchanged TOAST did not change.
    for (int i : r.key_indexes) {
        const auto k = static_cast<std::size_t>(i);
        if (k >= old.size() || k >= now.size()) return false;  // to_row refused these already
        const TupleValue& a = old[k];
        const TupleValue& b = now[k];
        if (b.kind == TupleValue::Kind::UnchangedToast ||
            a.kind == TupleValue::Kind::UnchangedToast)
            continue;
        if (a.kind != b.kind || a.text != b.text) return true;
    }
    return false;
}

EventMeta ChangeDecoder::meta(const Relation& r) const {
    if (metadata_.empty()) return {};
    return metadata_of(metadata_, filter_.database(), r.schema_name, r.table_name, commit_time_ms_);
}

std::string ChangeDecoder::position(const Relation& r, char op) {
    return std::string("table ") + r.table.str() + " " +
           (op == 'I'   ? "insert"
            : op == 'U' ? "update"
                        : "delete");
}

std::size_t ChangeDecoder::decode(const PgoutputMessage& message, EventBatch& out,
                                  std::vector<BadRecord>& bad) {
    auto bad_record = [&](const Relation& r, char op, const std::string& error) {
        bad.push_back(BadRecord{"parse-error", position(r, op), error, {}});
    };
    if (const auto* m = std::get_if<RelationMessage>(&message)) {
        on_relation(*m, out);
        return 0;
    }
    if (const auto* m = std::get_if<TypeMessage>(&message)) {
        // pg_catalog's types come without a schema.
        type_names_[m->type_oid] =
            m->namespace_name.empty() ? m->type_name : m->namespace_name + "." + m->type_name;
        resolved_types_.erase(m->type_oid);  // the type may have been dropped and its oid reused
        return 0;
    }
    if (const auto* m = std::get_if<InsertMessage>(&message)) {
        const Relation* r = relation(m->relation_oid);
        if (!r) return 0;
        std::string error;
        auto after = to_row(*r, m->new_tuple, nullptr, &error);
        if (!after) {
            bad_record(*r, 'I', error);
        } else {
            append_insert(out, r->table, std::move(*after), meta(*r));
        }
        return 1;
    }
    if (const auto* m = std::get_if<UpdateMessage>(&message)) {
        const Relation* r = relation(m->relation_oid);
        if (!r) return 0;
        std::string error;
        const TupleData* old = m->old_kind ? &m->old_tuple : nullptr;
        // 'O' (REPLICA IDENTITY FULL) is the whole old row; 'K' only the key columns, the
        // others NULL, as Debezium's before image.
        auto after = to_row(*r, m->new_tuple, old && *m->old_kind == 'O' ? old : nullptr, &error);
        std::optional<Row> before;
        if (after && old) before = to_row(*r, *old, nullptr, &error);
        if (!after || (old && !before)) {
            bad_record(*r, 'U', error);
            return 1;
        }
        if (before && key_changed(*r, *old, m->new_tuple)) {
            append_delete(out, r->table, std::move(*before), meta(*r));
            append_insert(out, r->table, std::move(*after), meta(*r));
            return 2;
        }
        append_update(out, r->table, std::move(before), std::move(*after), meta(*r));
        return 1;
    }
    if (const auto* m = std::get_if<DeleteMessage>(&message)) {
        const Relation* r = relation(m->relation_oid);
        if (!r) return 0;
        std::string error;
        auto before = to_row(*r, m->old_tuple, nullptr, &error);
        if (!before) {
            bad_record(*r, 'D', error);
        } else {
            append_delete(out, r->table, std::move(*before), meta(*r));
        }
        return 1;
    }
    if (const auto* m = std::get_if<TruncateMessage>(&message)) {
        std::size_t n = 0;
        for (Oid oid : m->relation_oids)
            if (const Relation* r = relation(oid)) {
                out.push_back(TruncateTableEvent{r->table});
                ++n;
            }
        return n;
    }
    // Begin, Commit, Origin and logical decoding messages carry no change.
    return 0;
}

}  // namespace cdcd::postgres
