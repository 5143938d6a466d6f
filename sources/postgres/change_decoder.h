#pragma once
// Turns decoded pgoutput messages (pgoutput_decoder.h) of the captured tables into cdcd events:
// a Relation announces a table (CreateTableEvent the first time it is seen; with schema changes
// on, a Relation that differs from the known schema becomes DropColumn / AddColumn /
// AlterColumnType / RenameColumn events, as far as they can be told apart), Insert / Update /
// Delete become data changes with the values parsed from their text (text_values.h), Truncate a
// TruncateTableEvent. Tables the selectors leave out are dropped. No connection: the schema of a
// table seen for the first time comes from a lookup the caller provides (the catalog).
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "pipeline/connector/bad_records.h"
#include "pipeline/connector/stream.h"
#include "pipeline/route/selectors.h"
#include "pipeline/schema/schema_json.h"
#include "sources/postgres/metadata.h"
#include "sources/postgres/pgoutput_decoder.h"

namespace cdcd::postgres {

/// Which tables are captured (`tables`, `tables.exclude`, matched as database.schema.table) and
/// how their ids are written (table-id.include-database).
class TableFilter {
  public:
    /// Throws std::invalid_argument when a selector does not parse.
    TableFilter(std::string database, const std::string& tables,
                const std::optional<std::string>& exclude, bool include_database);
    bool captures(const std::string& schema, const std::string& table) const;
    TableId table_id(const std::string& schema, const std::string& table) const;
    const std::string& database() const { return database_; }

  private:
    std::string database_;
    std::shared_ptr<const Selectors> include_, exclude_;  // shared: filters are copied
    bool include_database_;
};

/// Debezium's unavailable.value.placeholder: what an unchanged TOASTed text or bytea column of an
/// update carries when the message holds no old value for it.
inline constexpr std::string_view kUnavailableValue = "__debezium_unavailable_value";

class ChangeDecoder {
  public:
    /// The current schema of a table (mapped types, NOT NULL, primary key); throws when a column
    /// type is refused.
    using SchemaLookup = std::function<Schema(const RelationMessage&)>;

    /// `schema_changes` (schema-change.enabled): a changed table becomes schema change events;
    /// otherwise it stops the decoder.
    ChangeDecoder(TableFilter filter, SchemaLookup lookup, bool schema_changes = false);

    /// metadata.list: the meta each data change carries.
    void set_metadata(std::vector<MetadataField> fields) { metadata_ = std::move(fields); }
    /// The commit time of the transaction being decoded (its Begin message), for op_ts.
    void set_commit_time(std::int64_t unix_ms) { commit_time_ms_ = unix_ms; }

    /// Tables announced before (restored state, or the snapshot): no CreateTableEvent again.
    void add_known(const TableId& table, const Schema& schema);

    /// The schema announced for `table`; nullptr when none was.
    const Schema* known(const TableId& table) const {
        auto it = known_.find(table);
        return it == known_.end() ? nullptr : &it->second;
    }
    /// The table and current schema of relation `oid` when it is captured and announced.
    std::optional<std::pair<TableId, const Schema*>> captured(Oid oid) const;

    /// Appends the events of `message` to `out`. A value that cannot be parsed is appended to
    /// `bad` (the change is dropped); a table whose columns changed throws std::runtime_error.
    /// Returns the number of data changes of captured tables (for transaction progress).
    std::size_t decode(const PgoutputMessage& message, EventBatch& out,
                       std::vector<BadRecord>& bad);

  private:
    struct Relation {
        bool captured = false;
        TableId table;
        std::string schema_name, table_name;
        Schema schema;
        std::vector<DataType> types;
    };
    void on_relation(const RelationMessage& m, EventBatch& out);
    /// The schema change events that turn `known` into the table `m` describes; appended to
    /// `out`, returning the new schema.
    Schema evolve(const TableId& table, const Schema& known, const RelationMessage& m,
                  EventBatch& out);
    const Relation* relation(Oid oid) const;
    /// The row of `tuple`, or why it cannot be made. `old` supplies unchanged TOASTed values.
    std::optional<Row> to_row(const Relation& r, const TupleData& tuple, const TupleData* old,
                              std::string* error) const;
    /// The before image of a key-only old tuple: key columns set, the others NULL.
    static std::string position(const Relation& r, char op);
    EventMeta meta(const Relation& r) const;

    TableFilter filter_;
    SchemaLookup lookup_;
    bool schema_changes_;
    std::vector<MetadataField> metadata_;
    std::int64_t commit_time_ms_ = 0;
    std::unordered_map<TableId, Schema> known_;
    std::unordered_map<Oid, Relation> relations_;
};

}  // namespace cdcd::postgres
