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
#include "sources/postgres/type_mapping.h"

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
    /// otherwise it stops the decoder. `modes`: the value modes types are mapped under (the
    /// lookup's schemas must be mapped under the same).
    ChangeDecoder(TableFilter filter, SchemaLookup lookup, bool schema_changes = false,
                  ValueModes modes = {});

    /// The catalog's view of a type created after initdb (catalog.h resolve_types): a domain as
    /// its base type, an enum marked. A Relation message gives a domain column's own oid (and
    /// typmod -1); without a resolver such a type is known only by the name its Type message gave,
    /// which for a domain is its base type's, without the length or precision.
    using TypeResolver = std::function<PgColumnType(Oid type_oid)>;
    void set_type_resolver(TypeResolver resolver) { resolve_type_ = std::move(resolver); }

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
        std::vector<TextForm> forms;   // per column, as types
        std::vector<int> key_indexes;  // of the primary key's columns
    };
    /// A Relation column's type: a type created after initdb as the resolver answers (once per
    /// oid until its next Type message), else named as the Type message before it named it
    /// (pgoutput sends one for every such type: extension types such as hstore are known by name).
    PgColumnType column_type(const RelationColumn& c);
    /// Whether an update's old tuple holds another primary key than its new one, which Debezium
    /// (and so Flink CDC) emits as a delete and an insert.
    static bool key_changed(const Relation& r, const TupleData& old, const TupleData& now);
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
    ValueModes modes_;
    std::vector<MetadataField> metadata_;
    std::int64_t commit_time_ms_ = 0;
    std::unordered_map<TableId, Schema> known_;
    std::unordered_map<Oid, Relation> relations_;
    std::unordered_map<Oid, std::string> type_names_;  // from Type messages: schema.name
    TypeResolver resolve_type_;
    std::unordered_map<Oid, PgColumnType> resolved_types_;
};

}  // namespace cdcd::postgres
