#pragma once
// Flink CDC's Selectors for transform `source-table`: comma-separated alternatives, each 1-3
// dot-separated parts; every part is a case-insensitive regex matched in full; the part count
// must equal the TableId's. `\.` is a regex any-char inside a part, `\,` a literal comma. Used by
// transform `source-table` and the Kafka sink's `sink.tableId-to-topic.mapping`; each part is a
// Java regex of regex/.
#include <re2/re2.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/data/table_id.h"

namespace cdcd {

class Selectors {
  public:
    /// nullptr and *error when a part is not a valid regex or has more than 3 parts.
    static std::unique_ptr<Selectors> parse(std::string_view text, std::string* error);
    bool matches(TableId table) const;

  private:
    struct Alternative {
        std::vector<std::unique_ptr<RE2>> parts;
    };
    std::vector<Alternative> alternatives_;
};

}  // namespace cdcd
