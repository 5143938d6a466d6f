#pragma once
// Checks an existing collection against a table's mapping (field names, types, primary key,
// vector dimensions) and lists every mismatch. Inferred (not overridden) types adopt a
// compatible type of the collection: a string column may feed text/image/geo_point/date_time,
// an ARRAY of integers a vector, a MAP a sparse_vector; a vector without a configured dim takes
// the collection's.
#include <string>
#include <vector>

#include "sinks/vikingdb/control_plane_client.h"
#include "sinks/vikingdb/type_mapping.h"

namespace cdcd::vikingdb {

struct ValidationResult {
    CollectionSpec spec;                  // the mapping to write with (types/dims resolved)
    std::vector<std::string> mismatches;  // empty when compatible
};

ValidationResult validate_collection(const CollectionSpec& wanted, const CollectionInfo& existing);

/// "collection 'x' (table t) is not compatible with the table:\n  - ...", for an error.
std::string mismatch_message(const std::string& collection, const std::string& table,
                             const std::vector<std::string>& mismatches);

}  // namespace cdcd::vikingdb
