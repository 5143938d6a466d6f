#pragma once
// A table's schema: columns, primary key, partition keys, options (Flink CDC's Schema).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/types/data_type.h"

namespace cdcd {

struct Column {
    std::string name;
    DataType type = DataType::string();
    std::string comment;
    std::optional<std::string> default_value;

    /// "`name` TYPE" [+ " 'comment'"] [+ " 'default'"], as Flink CDC prints columns
    /// (Column#asSummaryString: `` and '' escaping in the name and the comment).
    std::string to_string() const;
    friend bool operator==(const Column&, const Column&) = default;
};

class Schema {
  public:
    Schema() = default;
    Schema(std::vector<Column> columns, std::vector<std::string> primary_keys = {},
           std::vector<std::string> partition_keys = {},
           std::map<std::string, std::string> options = {}, std::string comment = {});

    const std::vector<Column>& columns() const { return columns_; }
    std::vector<Column>& mutable_columns() { return columns_; }
    const std::vector<std::string>& primary_keys() const { return primary_keys_; }
    const std::vector<std::string>& partition_keys() const { return partition_keys_; }
    const std::map<std::string, std::string>& options() const { return options_; }
    const std::string& comment() const { return comment_; }
    void set_primary_keys(std::vector<std::string> keys) { primary_keys_ = std::move(keys); }
    void set_partition_keys(std::vector<std::string> keys) { partition_keys_ = std::move(keys); }
    void set_options(std::map<std::string, std::string> options) { options_ = std::move(options); }
    void set_comment(std::string comment) { comment_ = std::move(comment); }

    std::size_t size() const { return columns_.size(); }
    /// Position of a column by exact name, or -1.
    int index_of(std::string_view name) const;
    const Column* find(std::string_view name) const;
    std::vector<std::string> column_names() const;
    /// Positions of the primary-key columns, in key order.
    std::vector<int> primary_key_indexes() const;

    /// `columns={`a` INT,`b` STRING}, primaryKeys=a, options=()` — the body of Schema.toString().
    std::string to_string() const;
    friend bool operator==(const Schema&, const Schema&) = default;

  private:
    std::vector<Column> columns_;
    std::vector<std::string> primary_keys_;
    std::vector<std::string> partition_keys_;
    std::map<std::string, std::string> options_;
    std::string comment_;
};

/// Builds schemas readably in code and tests.
class SchemaBuilder {
  public:
    SchemaBuilder& column(std::string name, DataType type, std::string comment = {});
    SchemaBuilder& primary_key(std::vector<std::string> keys);
    SchemaBuilder& partition_key(std::vector<std::string> keys);
    SchemaBuilder& option(std::string key, std::string value);
    SchemaBuilder& comment(std::string comment);
    Schema build() const;

  private:
    std::vector<Column> columns_;
    std::vector<std::string> primary_keys_, partition_keys_;
    std::map<std::string, std::string> options_;
    std::string comment_;
};

}  // namespace cdcd
