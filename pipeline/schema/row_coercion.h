#pragma once
// Coerces rows of an upstream schema to an evolved sink schema by column name
// (SchemaMergingUtils#coerceRow / #coerceObject). The column mapping and per-column conversion
// are computed once per (upstream schema, sink schema) pair; rows then go through by position.
#include <vector>

#include "pipeline/data/row.h"
#include "pipeline/data/time_zone.h"
#include "pipeline/schema/schema.h"

namespace cdcd {

class RowCoercion {
  public:
    RowCoercion(const Schema& upstream, const Schema& sink, TimeZone zone);

    /// The schemas are equal: rows pass through untouched.
    bool identity() const { return identity_; }
    /// A row of the sink schema: missing columns NULL, extra columns dropped, differing types
    /// converted (widening; a value that cannot be converted becomes NULL, as in Flink's
    /// tolerance mode).
    Row coerce(RowView row) const;

    enum class Kind : std::uint8_t { Null, Copy, Convert };
    struct Field {
        Kind kind = Kind::Null;
        std::size_t source = 0;
        bool variable = false;  // Copy: the value lives in the variable part
        DataType from = DataType::string();
        DataType to = DataType::string();
    };

  private:
    void convert(RowBuilder& out, std::size_t i, RowView row, const Field& f) const;

    bool identity_ = false;
    std::vector<Field> fields_;
    TimeZone zone_;
};

}  // namespace cdcd
