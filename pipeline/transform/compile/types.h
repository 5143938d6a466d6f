#pragma once
// Type rules of the expression language (Calcite's deductions as Flink CDC sees them) and the
// conversions between rows, Datums and Java-style text.
#include <cstdint>
#include <string_view>
#include <vector>

#include "pipeline/data/decimal_arithmetic.h"
#include "pipeline/data/row.h"
#include "pipeline/transform/compile/datum.h"
#include "pipeline/types/data_type.h"

namespace cdcd::transform {

bool is_numeric(const DataType& t);
bool is_integral(const DataType& t);
bool is_approx(const DataType& t);  // FLOAT, DOUBLE
bool is_text(const DataType& t);    // CHAR, VARCHAR
bool is_temporal(const DataType& t);
/// An exact numeric type as DECIMAL(p, s) (integers as DECIMAL(digits, 0)).
DataType as_decimal(const DataType& t);
/// Calcite's leastRestrictive for CASE/COALESCE/IF/IN; nullopt when incompatible.
std::optional<DataType> least_restrictive(const std::vector<DataType>& types);
/// Java class family used by Object.equals: numbers of different widths are never equal.
int java_class(const DataType& t);

/// How a value of a type is held, in a Datum and in a binary row's slot.
enum class ValueClass : std::uint8_t { Long, Double, Decimal, Timestamp, Zoned, Bytes };
inline ValueClass value_class(TypeRoot root) {
    switch (root) {
        case TypeRoot::Boolean:
        case TypeRoot::TinyInt:
        case TypeRoot::SmallInt:
        case TypeRoot::Int:
        case TypeRoot::BigInt:
        case TypeRoot::Date:
        case TypeRoot::Time:
            return ValueClass::Long;
        case TypeRoot::Float:
        case TypeRoot::Double:
            return ValueClass::Double;
        case TypeRoot::Decimal:
            return ValueClass::Decimal;
        case TypeRoot::Timestamp:
        case TypeRoot::TimestampLtz:
            return ValueClass::Timestamp;
        case TypeRoot::TimestampTz:
            return ValueClass::Zoned;
        default:
            return ValueClass::Bytes;
    }
}

/// Reads field i of a row of the given type.
Datum read_field(RowView row, std::size_t i, const DataType& type);
/// Writes a datum of the given type into field i.
void write_field(RowBuilder& b, std::size_t i, const Datum& d, const DataType& type);
/// Java's toString of the internal value (what CAST(x AS STRING) and CONCAT produce).
std::string_view to_java_string(const Datum& d, const DataType& type, Arena& arena);
/// Value as double (numeric types only).
double to_double(const Datum& d, const DataType& type);

}  // namespace cdcd::transform
