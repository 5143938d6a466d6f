#pragma once
// `pipeline.tap.sensitive-columns`: columns whose values a tap never shows (printed as "***").
// Each entry is TABLE_SELECTOR.COLUMN: the table part as in transform `source-table` (1 to 3
// dot-separated, case-insensitive regexes; the part count must equal the table id's), the last
// part a case-insensitive regex for the column name, each matched in full; as in selectors, `\.`
// is the regex's any-char inside a part. `*` alone as a part means any name, and a table part of
// just `*` any table: `*.password`, `app.*.card_\.*`, `app.users.email`. Matched against the
// table and column names at the point tapped.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/data/table_id.h"
#include "pipeline/route/selectors.h"
#include "pipeline/schema/schema.h"

namespace cdcd {

class SensitiveColumns {
  public:
    SensitiveColumns() = default;
    /// nullopt and *error naming the entry when one is malformed.
    static std::optional<SensitiveColumns> parse(const std::vector<std::string>& entries,
                                                 std::string* error);
    bool empty() const { return rules_.empty(); }
    /// One flag per column of `schema` (the schema of `table`): true where the value is hidden.
    std::vector<bool> mask(TableId table, const Schema& schema) const;

  private:
    struct Rule {
        std::shared_ptr<const Selectors> tables;  // null: every table
        std::shared_ptr<const RE2> column;
    };
    std::vector<Rule> rules_;
};

}  // namespace cdcd
