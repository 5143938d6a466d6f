#include "pipeline/data/table_id.h"

#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace cdcd {

namespace {

// Interned ids live for the whole process; there are few tables and many events.
struct Interner {
    std::mutex mutex;
    std::unordered_map<std::string, std::unique_ptr<TableId::Impl>> by_key;

    const TableId::Impl* intern(std::string_view ns, std::string_view schema,
                                std::string_view table) {
        std::string key;
        key.reserve(ns.size() + schema.size() + table.size() + 2);
        key.append(ns).push_back('\0');
        key.append(schema).push_back('\0');
        key.append(table);
        std::lock_guard lock(mutex);
        auto& slot = by_key[key];
        if (!slot) {
            slot = std::make_unique<TableId::Impl>();
            slot->ns = ns;
            slot->schema = schema;
            slot->table = table;
            for (std::string_view part : {ns, schema, table}) {
                if (part.empty()) continue;
                if (!slot->text.empty()) slot->text.push_back('.');
                slot->text.append(part);
            }
        }
        return slot.get();
    }
};

Interner& interner() {
    static Interner* instance = new Interner();  // never destroyed: ids may outlive statics
    return *instance;
}

// The empty id, interned once: interning takes a lock and a hash (~300 instructions), and ids
// are default-constructed on hot paths (a default DataChangeEvent, a partitioner's first run).
const TableId::Impl* empty_id() {
    static const TableId::Impl* const empty = interner().intern("", "", "");
    return empty;
}

}  // namespace

TableId::TableId() : impl_(empty_id()) {}

TableId TableId::of(std::string_view table) {
    return TableId(interner().intern("", "", table));
}
TableId TableId::of(std::string_view schema, std::string_view table) {
    return TableId(interner().intern("", schema, table));
}
TableId TableId::of(std::string_view ns, std::string_view schema, std::string_view table) {
    return TableId(interner().intern(ns, schema, table));
}

std::optional<TableId> TableId::parse(std::string_view text) {
    std::vector<std::string_view> parts;
    size_t start = 0;
    while (true) {
        size_t dot = text.find('.', start);
        parts.push_back(text.substr(start, dot == std::string_view::npos ? dot : dot - start));
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    for (auto p : parts) {
        if (p.empty()) return std::nullopt;
    }
    switch (parts.size()) {
        case 1:
            return of(parts[0]);
        case 2:
            return of(parts[0], parts[1]);
        case 3:
            return of(parts[0], parts[1], parts[2]);
        default:
            return std::nullopt;
    }
}

int TableId::part_count() const {
    return (impl_->ns.empty() ? 0 : 1) + (impl_->schema.empty() ? 0 : 1) +
           (impl_->table.empty() ? 0 : 1);
}

}  // namespace cdcd
