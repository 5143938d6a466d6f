#include "pipeline/schema/schema_change_filter.h"

namespace cdcd {

std::vector<SchemaChangeType> SchemaChangeFilter::resolve_tag(const std::string& tag) {
    using T = SchemaChangeType;
    if (tag == "add") return {T::AddColumn};
    if (tag == "alter") return {T::AlterColumnType};
    if (tag == "create") return {T::CreateTable};
    if (tag == "drop") return {T::DropColumn, T::DropTable};
    if (tag == "rename") return {T::RenameColumn};
    if (tag == "table")
        return {T::CreateTable, T::DropTable, T::TruncateTable, T::AlterTableComment};
    if (tag == "column") return {T::AddColumn, T::AlterColumnType, T::DropColumn, T::RenameColumn};
    if (tag == "all") {
        std::vector<T> all;
        for (std::size_t i = 0; i < kTypes; ++i) all.push_back(static_cast<T>(i));
        return all;
    }
    for (std::size_t i = 0; i < kTypes; ++i) {
        if (tag == schema_change_tag(static_cast<T>(i))) return {static_cast<T>(i)};
    }
    return {};
}

SchemaChangeFilter SchemaChangeFilter::create(const std::vector<std::string>& include,
                                              const std::vector<std::string>& exclude,
                                              bool has_exclude, SchemaChangeBehavior behavior,
                                              config::Diagnostics& diags,
                                              const config::SourceLocation& where) {
    auto resolve_all = [&](const std::vector<std::string>& tags, const char* key) {
        std::bitset<kTypes> set;
        for (const auto& tag : tags) {
            auto types = resolve_tag(tag);
            if (types.empty())
                diags.error(where, std::string(key) + ": Unknown schema change event type: " + tag);
            for (auto t : types) set.set(static_cast<std::size_t>(t));
        }
        return set;
    };
    std::bitset<kTypes> included = resolve_all(include, "include.schema.changes");
    std::bitset<kTypes> excluded = resolve_all(exclude, "exclude.schema.changes");
    if (include.empty()) {
        included.set();
    } else if (!excluded.test(static_cast<std::size_t>(SchemaChangeType::CreateTable))) {
        // A sink must learn a table before anything else can be applied to it.
        included.set(static_cast<std::size_t>(SchemaChangeType::CreateTable));
    }
    if (!has_exclude && behavior == SchemaChangeBehavior::Lenient) {
        excluded.set(static_cast<std::size_t>(SchemaChangeType::DropTable));
        excluded.set(static_cast<std::size_t>(SchemaChangeType::TruncateTable));
    }
    SchemaChangeFilter filter;
    filter.accepted_ = included & ~excluded;
    return filter;
}

std::string SchemaChangeFilter::to_string() const {
    std::string s = "[";
    bool first = true;
    for (std::size_t i = 0; i < kTypes; ++i) {
        if (!accepted_.test(i)) continue;
        if (!first) s += ", ";
        first = false;
        s += schema_change_tag(static_cast<SchemaChangeType>(i));
    }
    return s + "]";
}

}  // namespace cdcd
