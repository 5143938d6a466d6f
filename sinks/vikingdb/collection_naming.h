#pragma once
// Collection names from table ids: `collection-name-template` with ${database}, ${schema},
// ${table}; default the table id with '.' replaced by '_'.
#include <optional>
#include <string>

#include "pipeline/data/table_id.h"

namespace cdcd::vikingdb {

class CollectionNaming {
  public:
    /// Throws std::invalid_argument on an unknown ${...} placeholder or an unterminated one.
    CollectionNaming(std::optional<std::string> name_template, std::string default_database);

    /// ${database}: the namespace of a 3-part id, the schema of a 2-part id (MySQL's database),
    /// default-database for a 1-part id. ${schema}: the schema part (empty when absent).
    /// Throws std::invalid_argument when the result is not a valid collection name
    /// (^[A-Za-z][A-Za-z0-9_]{0,127}$).
    std::string name_of(const TableId& table) const;

    /// Checks the template's placeholders; returns an error message or empty.
    static std::string check_template(const std::string& text);

  private:
    std::optional<std::string> template_;
    std::string default_database_;
};

}  // namespace cdcd::vikingdb
