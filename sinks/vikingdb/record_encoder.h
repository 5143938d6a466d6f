#pragma once
// Encodes rows as VikingDB upsert records (one JSON object per row, field → value) and primary
// keys as `ids` values, per the type mapping: vectors checked for dimension and finite values,
// date_time as RFC 3339 with the pipeline's local-time-zone (or the value's own offset), sparse
// vectors as {token: weight}, MAP/ROW as JSON text. Errors name the table and the primary key.
#include <stdexcept>
#include <string>

#include "pipeline/data/row.h"
#include "pipeline/data/table_id.h"
#include "pipeline/data/time_zone.h"
#include "sinks/vikingdb/type_mapping.h"

namespace cdcd::vikingdb {

class EncodeError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

/// RFC 3339 text of a wall-clock time (epoch millis read as local) at a UTC offset:
/// 2025-08-12T12:34:56+08:00, with .SSS when the milliseconds are not zero.
std::string rfc3339(std::int64_t local_millis, int offset_seconds);

class RecordEncoder {
  public:
    RecordEncoder(TableId table, CollectionSpec spec, TimeZone zone);

    /// The primary key as a JSON value (integer or string); throws EncodeError when NULL.
    std::string key_json(RowView row) const;
    /// Appends the row's record object to `out` (`key` is key_json(row)); throws EncodeError
    /// naming the key.
    void encode(RowView row, const std::string& key, std::string& out) const;

    const CollectionSpec& spec() const { return spec_; }
    const TableId& table() const { return table_; }

  private:
    void encode_field(const FieldMapping& f, RowView row, std::string& out,
                      const std::string& key) const;
    std::string date_time(RowView row, std::size_t i, const DataType& type) const;

    TableId table_;
    CollectionSpec spec_;
    TimeZone zone_;
};

}  // namespace cdcd::vikingdb
