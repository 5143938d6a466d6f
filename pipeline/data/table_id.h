#pragma once
// A table identifier (namespace.schema.table, 1 to 3 parts), interned: copying and comparing one
// costs a pointer, so every event can carry it on the hot path.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace cdcd {

class TableId {
  public:
    TableId();  // the empty id; never produced by parse()
    static TableId of(std::string_view table);
    static TableId of(std::string_view schema, std::string_view table);
    static TableId of(std::string_view ns, std::string_view schema, std::string_view table);
    /// Splits on '.' into 1 to 3 parts, like Flink's TableId.parse; nullopt when more or empty.
    static std::optional<TableId> parse(std::string_view text);

    /// Empty string when the part is absent.
    const std::string& namespace_name() const { return impl_->ns; }
    const std::string& schema_name() const { return impl_->schema; }
    const std::string& table_name() const { return impl_->table; }
    bool has_namespace() const { return !impl_->ns.empty(); }
    bool has_schema() const { return !impl_->schema.empty(); }
    int part_count() const;
    /// Non-empty parts joined with '.': `ns.schema.table`, `schema.table` or `table`.
    const std::string& str() const { return impl_->text; }

    friend bool operator==(TableId a, TableId b) { return a.impl_ == b.impl_; }
    friend bool operator!=(TableId a, TableId b) { return a.impl_ != b.impl_; }
    /// Orders by text, for stable output.
    friend bool operator<(TableId a, TableId b) { return a.str() < b.str(); }
    std::size_t hash() const { return std::hash<const void*>()(impl_); }

    struct Impl {
        std::string ns, schema, table, text;
    };

  private:
    explicit TableId(const Impl* impl) : impl_(impl) {}
    const Impl* impl_;
};

}  // namespace cdcd

template <>
struct std::hash<cdcd::TableId> {
    std::size_t operator()(cdcd::TableId id) const noexcept { return id.hash(); }
};
