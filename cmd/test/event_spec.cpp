#include "cmd/test/event_spec.h"

#include <array>
#include <string_view>

namespace cdcd::cmd_test {

using config::ConfigNode;
using config::Diagnostics;

namespace {

constexpr std::array<std::pair<EventKind, const char*>, 10> kKeys{{
    {EventKind::Create, "create"},
    {EventKind::Insert, "insert"},
    {EventKind::Update, "update"},
    {EventKind::Delete, "delete"},
    {EventKind::AddColumn, "add-column"},
    {EventKind::DropColumn, "drop-column"},
    {EventKind::RenameColumn, "rename-column"},
    {EventKind::AlterColumnType, "alter-column-type"},
    {EventKind::TruncateTable, "truncate-table"},
    {EventKind::DropTable, "drop-table"},
}};

std::string kind_list() {
    std::string out;
    for (const auto& [kind, key] : kKeys) out += std::string(out.empty() ? "" : ", ") + key;
    return out;
}

/// The keys an event of `kind` may have besides its kind key.
std::vector<std::string_view> allowed_keys(EventKind kind) {
    switch (kind) {
        case EventKind::Create:
            return {"columns", "primary-keys"};
        case EventKind::Insert:
            return {"after", "meta"};
        case EventKind::Update:
            return {"before", "after", "meta"};
        case EventKind::Delete:
            return {"before", "meta"};
        case EventKind::AddColumn:
        case EventKind::DropColumn:
            return {"columns"};
        case EventKind::RenameColumn:
            return {"renames"};
        case EventKind::AlterColumnType:
            return {"types"};
        case EventKind::TruncateTable:
        case EventKind::DropTable:
            return {};
    }
    return {};
}

/// The keys an event of `kind` cannot do without (a subset of allowed_keys).
std::vector<std::string_view> required_keys(EventKind kind) {
    switch (kind) {
        case EventKind::Create:
        case EventKind::AddColumn:
        case EventKind::DropColumn:
            return {"columns"};
        case EventKind::Insert:
            return {"after"};
        case EventKind::Update:
            return {"before", "after"};
        case EventKind::Delete:
            return {"before"};
        case EventKind::RenameColumn:
            return {"renames"};
        case EventKind::AlterColumnType:
            return {"types"};
        case EventKind::TruncateTable:
        case EventKind::DropTable:
            return {};
    }
    return {};
}

bool expect_kind(const ConfigNode& node, config::NodeKind kind, const std::string& what,
                 Diagnostics& diags) {
    if (node.kind == kind) return true;
    diags.error(node.where, what + " must be a " + std::string(config::to_string(kind)) +
                                ", not a " + std::string(config::to_string(node.kind)));
    return false;
}

std::optional<DataType> parse_type(const ConfigNode& node, std::string_view text,
                                   const std::string& what, Diagnostics& diags) {
    std::string error;
    auto type = DataType::parse(text, &error);
    if (!type) diags.error(node.where, what + ": " + error);
    return type;
}

/// "name TYPE" or "`name with spaces` TYPE".
std::optional<Column> parse_column(const ConfigNode& node, Diagnostics& diags) {
    if (!expect_kind(node, config::NodeKind::Scalar, "a column", diags)) return std::nullopt;
    std::string_view text = node.scalar;
    Column column;
    std::size_t rest = 0;
    if (!text.empty() && text.front() == '`') {
        std::size_t close = text.find('`', 1);
        if (close == std::string_view::npos) {
            diags.error(node.where, "column `" + node.scalar + "`: the name's ` is not closed");
            return std::nullopt;
        }
        column.name = text.substr(1, close - 1);
        rest = close + 1;
    } else {
        rest = text.find(' ');
        column.name = text.substr(0, rest);
    }
    std::string_view type_text = rest == std::string_view::npos ? "" : text.substr(rest);
    while (!type_text.empty() && type_text.front() == ' ') type_text.remove_prefix(1);
    if (column.name.empty() || type_text.empty()) {
        diags.error(node.where,
                    "column '" + node.scalar +
                        "' must be written as a name and a type, e.g. 'id INT NOT NULL'");
        return std::nullopt;
    }
    if (type_text.find('(') != std::string_view::npos &&
        type_text.find(')') == std::string_view::npos) {
        diags.error(node.where, "the type of column " + column.name + ", '" +
                                    std::string(type_text) +
                                    "', is cut at a comma: in a [...] list a comma ends the item, "
                                    "so quote the column: 'amount DECIMAL(10, 2)'");
        return std::nullopt;
    }
    auto type = parse_type(node, type_text, "the type of column " + column.name, diags);
    if (!type) return std::nullopt;
    column.type = *type;
    return column;
}

std::vector<std::string> parse_names(const ConfigNode& node, const std::string& what,
                                     Diagnostics& diags) {
    std::vector<std::string> names;
    if (!expect_kind(node, config::NodeKind::List, what, diags)) return names;
    for (const auto& item : node.items)
        if (expect_kind(item, config::NodeKind::Scalar, "an item of " + what, diags))
            names.push_back(item.scalar);
    return names;
}

std::optional<RowText> parse_row(const ConfigNode& node, const std::string& what,
                                 Diagnostics& diags) {
    if (!expect_kind(node, config::NodeKind::Map, what, diags)) return std::nullopt;
    RowText row;
    row.where = node.where;
    for (const auto& entry : node.entries) {
        if (entry.value.is_null()) {
            row.fields.emplace_back(entry.key, std::nullopt);
        } else if (expect_kind(entry.value, config::NodeKind::Scalar,
                               "the value of column " + entry.key + " in " + what, diags)) {
            row.fields.emplace_back(entry.key, entry.value.scalar);
        } else {
            return std::nullopt;
        }
        row.field_where.push_back(entry.key_where);
    }
    return row;
}

}  // namespace

const char* event_key(EventKind kind) {
    for (const auto& [k, key] : kKeys)
        if (k == kind) return key;
    return "?";
}

std::optional<EventSpec> parse_event_spec(const ConfigNode& node, Diagnostics& diags) {
    if (!expect_kind(node, config::NodeKind::Map, "an event", diags)) return std::nullopt;
    EventSpec spec;
    spec.where = node.where;
    const config::MapEntry* kind_entry = nullptr;
    for (const auto& [kind, key] : kKeys) {
        const config::MapEntry* entry = node.find_entry(key);
        if (!entry) continue;
        if (kind_entry) {
            diags.error(entry->key_where, "an event has one kind, but this one has both '" +
                                              kind_entry->key + "' and '" + key + "'");
            return std::nullopt;
        }
        kind_entry = entry;
        spec.kind = kind;
    }
    if (!kind_entry) {
        diags.error(node.where, "an event needs one of the keys " + kind_list() +
                                    ", whose value is the table (e.g. insert: app.orders)");
        return std::nullopt;
    }
    const std::size_t errors = diags.size();
    if (expect_kind(kind_entry->value, config::NodeKind::Scalar, "the table of " + kind_entry->key,
                    diags)) {
        auto table = TableId::parse(kind_entry->value.scalar);
        if (!table)
            diags.error(kind_entry->value.where,
                        "'" + kind_entry->value.scalar + "' is not a table id (e.g. app.orders)");
        else
            spec.table = *table;
    }
    const auto allowed = allowed_keys(spec.kind);
    for (const auto& entry : node.entries) {
        if (&entry == kind_entry) continue;
        bool ok = false;
        for (auto key : allowed) ok = ok || entry.key == key;
        if (!ok) {
            std::string list;
            for (auto key : allowed)
                list += std::string(list.empty() ? "" : ", ") + std::string(key);
            diags.error(
                entry.key_where,
                "unexpected key '" + entry.key + "' in a " + kind_entry->key + " event" +
                    (list.empty() ? " (it takes no other key)" : " (allowed: " + list + ")"));
            continue;
        }
        const ConfigNode& value = entry.value;
        if (entry.key == "columns") {
            if (spec.kind == EventKind::DropColumn) {
                spec.names = parse_names(value, "columns", diags);
            } else if (expect_kind(value, config::NodeKind::List, "columns", diags)) {
                for (std::size_t i = 0; i < value.items.size(); ++i) {
                    if (auto column = parse_column(value.items[i], diags)) {
                        spec.columns.push_back(*column);
                    } else if (value.items[i].scalar.find('(') != std::string::npos) {
                        ++i;  // the rest of the type the comma cut off: reported already
                    }
                }
            }
        } else if (entry.key == "primary-keys") {
            spec.primary_keys = parse_names(value, "primary-keys", diags);
        } else if (entry.key == "before") {
            spec.before = parse_row(value, "before", diags);
        } else if (entry.key == "after") {
            spec.after = parse_row(value, "after", diags);
        } else if (entry.key == "meta") {
            if (auto meta = parse_row(value, "meta", diags))
                for (const auto& [k, v] : meta->fields) spec.meta.emplace_back(k, v.value_or(""));
        } else if (entry.key == "renames") {
            if (expect_kind(value, config::NodeKind::Map, "renames", diags))
                for (const auto& rename : value.entries)
                    if (expect_kind(rename.value, config::NodeKind::Scalar,
                                    "the new name of column " + rename.key, diags))
                        spec.renames.emplace_back(rename.key, rename.value.scalar);
        } else if (entry.key == "types") {
            if (expect_kind(value, config::NodeKind::Map, "types", diags))
                for (const auto& t : value.entries)
                    if (expect_kind(t.value, config::NodeKind::Scalar,
                                    "the new type of column " + t.key, diags))
                        if (auto type = parse_type(t.value, t.value.scalar,
                                                   "the new type of column " + t.key, diags))
                            spec.types.emplace_back(t.key, *type);
        }
    }
    // A key that names no column would leave the table without that key: every row would fail.
    if (const ConfigNode* keys = node.find("primary-keys"); keys && diags.size() == errors)
        for (const auto& key : spec.primary_keys) {
            bool found = false;
            for (const auto& column : spec.columns) found = found || column.name == key;
            if (!found) {
                std::string names;
                for (const auto& column : spec.columns)
                    names += (names.empty() ? "" : ", ") + column.name;
                diags.error(keys->where,
                            "primary key '" + key + "' is not one of the columns (" + names + ")");
            }
        }
    for (auto key : required_keys(spec.kind))
        if (!node.find(key))
            diags.error(node.where, std::string("a ") + kind_entry->key + " event needs '" +
                                        std::string(key) + "'");
    if (diags.size() != errors) return std::nullopt;
    return spec;
}

SchemaChangeEvent to_schema_change(const EventSpec& spec, const Schema* current) {
    switch (spec.kind) {
        case EventKind::Create:
            return CreateTableEvent{spec.table, Schema(spec.columns, spec.primary_keys)};
        case EventKind::AddColumn: {
            AddColumnEvent e{spec.table, {}};
            for (const auto& c : spec.columns)
                e.added.push_back({c, ColumnWithPosition::Position::Last, ""});
            return e;
        }
        case EventKind::DropColumn:
            return DropColumnEvent{spec.table, spec.names};
        case EventKind::RenameColumn:
            return RenameColumnEvent{spec.table, spec.renames};
        case EventKind::AlterColumnType: {
            AlterColumnTypeEvent e{spec.table, spec.types, {}, {}};
            if (current)
                for (const auto& [name, type] : spec.types)
                    if (const Column* c = current->find(name))
                        e.old_types.emplace_back(name, c->type);
            return e;
        }
        case EventKind::TruncateTable:
            return TruncateTableEvent{spec.table};
        case EventKind::DropTable:
            return DropTableEvent{spec.table};
        default:
            break;
    }
    return TruncateTableEvent{spec.table};  // unreachable: data changes are not schema changes
}

}  // namespace cdcd::cmd_test
