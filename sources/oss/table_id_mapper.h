#pragma once
// Object → TableId: the bucket name by default; with oss-key.to.table-id.matching.pattern (a Java
// regex, regex/java_regex.h), the 1-3 capture groups of a full match of oss://<bucket>/<key>
// (table, namespace.table, namespace.schema.table); objects that do not match are filtered out.
#include <memory>
#include <optional>
#include <string>

#include "pipeline/data/table_id.h"

namespace re2 {
class RE2;
}

namespace cdcd::oss {

class TableIdMapper {
  public:
    /// Throws std::invalid_argument for a bad pattern or a group count outside 1..3.
    explicit TableIdMapper(const std::string& pattern);
    ~TableIdMapper();
    TableIdMapper(TableIdMapper&&) noexcept;

    /// nullopt when the object is filtered out (no match, or an empty group).
    std::optional<TableId> map(const std::string& bucket, const std::string& key) const;

  private:
    std::unique_ptr<re2::RE2> re_;
    int groups_ = 0;
};

}  // namespace cdcd::oss
