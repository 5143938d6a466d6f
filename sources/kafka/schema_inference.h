#pragma once
// Per-TableId schemas inferred from messages, with the spec's merge rules:
//   a new field → a nullable column appended (CreateTableEvent for the first message, then
//   AddColumnEvent); a missing field → NULL (no DropColumnEvent); a value that does not fit its
//   column → the column widened to least_common_type (same type, other precision → the wider;
//   different types → the common supertype; timestamps keep the largest precision; decimals
//   keep the larger scale and integer digits) announced by an AlterColumnTypeEvent.
// Rows are then built straight from the images with RowBuilder.
// Fields are looked up by hash, so a message costs time linear in its fields; the columns of a
// table, of all tables and the number of tables are bounded by MessageLimits (LimitError).
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "formats/json/field_value.h"
#include "formats/json/message_limits.h"
#include "pipeline/connector/stream.h"
#include "pipeline/schema/schema_json.h"

namespace cdcd::kafka {

class SchemaInference {
  public:
    explicit SchemaInference(const MessageLimits& limits = {}) : limits_(limits) {}
    void restore(const TableSchemas& tables);
    bool knows(TableId table) const { return tables_.count(table) != 0; }
    /// Whether evolve() would leave the table as it is: it has a column for every field of
    /// `images`, of a type that holds the field's value.
    bool fits_as_is(TableId table, const std::vector<const Image*>& images) {
        return knows(table) && fits_unchanged(this->table(table), images);
    }
    const Schema* schema(TableId table) const;

    /// Evolves the table's schema to hold every field of `images`, appending the schema change
    /// events to `out`. `primary_keys` is used when the table is created. Throws LimitError,
    /// changing nothing, when the table would be one too many or have too many columns.
    void evolve(TableId table, const std::vector<const Image*>& images,
                const std::vector<std::string>* primary_keys, EventBatch& out);
    /// Builds a row of the table's current schema from `image`; nullopt with *error when a value
    /// cannot be converted.
    std::optional<Row> build(TableId table, const Image& image, std::string* error);

  private:
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const {
            return std::hash<std::string_view>()(s);
        }
    };
    struct Table {
        Schema schema;
        std::unordered_map<std::string, int, Hash, std::equal_to<>> index;
        void reindex();
        /// The column named `name`, or -1. Messages of one table usually list fields in column
        /// order: position `hint` is tried first, inline, before the index.
        int find(std::string_view name, std::size_t hint) const {
            const auto& cols = schema.columns();
            if (hint < cols.size() && std::string_view(cols[hint].name) == name)
                return static_cast<int>(hint);
            return find_indexed(name);
        }
        int find_indexed(std::string_view name) const;
    };
    Table& table(TableId id);
    /// True when every field of `images` has its column in `t` and fits its type: the schema
    /// stays as it is (a message like the last ones). Sets each field's column as it goes.
    static bool fits_unchanged(const Table& t, const std::vector<const Image*>& images);
    /// Throws LimitError when `table` cannot have `columns` columns.
    void check_columns(TableId table, std::size_t columns) const;

    MessageLimits limits_;
    std::unordered_map<TableId, Table> tables_;
    std::size_t total_columns_ = 0;  // of every table in tables_
    TableId last_id_;
    Table* last_ = nullptr;
};

}  // namespace cdcd::kafka
