#pragma once
// The `csv` Kafka key (reference §6.3): Flink's CSV row [TableId, pk1, …] written by Jackson's
// CsvGenerator with its default minimal quoting and no trailing line separator:
//   "default_namespace.default_schema.table1",1
// Jackson quotes a string column when it is longer than 24 characters, or contains a character
// below ',' + 1 (control characters, space, '!', '"', '#', …, ','); quotes inside are doubled.
// Numbers and booleans are never quoted; NULL is an empty column.
#include <string>
#include <string_view>

#include "formats/json/change_key.h"

namespace cdcd::csv {

/// Appends `s` as one CSV column with Jackson's minimal quoting.
void append_column(std::string& out, std::string_view s);

/// Appends the CSV key of `event` to `out`.
void write_csv_key(std::string& out, const DataChangeEvent& event, const json::KeyColumns& key);

}  // namespace cdcd::csv
