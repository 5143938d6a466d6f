#include "sources/postgres/type_mapping.h"

namespace cdcd::postgres {

namespace {

// Flink CDC's DecimalType.MAX_PRECISION and DEFAULT_SCALE: a numeric without a precision, or
// with one above 38, becomes DECIMAL(38, 0).
constexpr int kMaxDecimalPrecision = 38;
constexpr int kDefaultDecimalScale = 0;
// time, timestamp and timestamptz without a declared precision keep microseconds.
constexpr int kDefaultTimePrecision = 6;
// varlena typmods carry VARHDRSZ (4) on top of the declared length.
constexpr std::int32_t kVarHeaderSize = 4;

int time_precision(std::int32_t typmod) {
    return typmod < 0 ? kDefaultTimePrecision : static_cast<int>(typmod);
}

/// The element type of the array types Flink CDC maps (PgOid.*_ARRAY), or 0.
Oid array_element(Oid array) {
    struct Pair {
        Oid array, element;
    };
    static constexpr Pair kArrays[] = {
        {1000, oid::kBool},     {1001, oid::kBytea},   {1002, oid::kChar},
        {1005, oid::kInt2},     {1007, oid::kInt4},    {1009, oid::kText},
        {1014, oid::kBpchar},   {1015, oid::kVarchar}, {1016, oid::kInt8},
        {1021, oid::kFloat4},   {1022, oid::kFloat8},  {1115, oid::kTimestamp},
        {1182, oid::kDate},     {1183, oid::kTime},    {1185, oid::kTimestamptz},
        {1187, oid::kInterval}, {1231, oid::kNumeric}, {2951, oid::kUuid},
    };
    for (const Pair& p : kArrays)
        if (p.array == array) return p.element;
    return 0;
}

TypeRefusal refuse(const PgColumnType& c, const std::string& why) {
    std::string name = c.type_name.empty() ? "oid " + std::to_string(c.type_oid) : c.type_name;
    return TypeRefusal{"type " + name + " is not supported: " + why};
}

}  // namespace

std::variant<DataType, TypeRefusal> map_type(const PgColumnType& c) {
    const std::int32_t typmod = c.type_modifier;
    switch (c.type_oid) {
        case oid::kBool:
            return DataType::boolean();
        case oid::kBit:
            if (typmod == 1) return DataType::boolean();
            return refuse(c,
                          "bit(n) with n > 1 (Flink CDC's BINARY(n) of Debezium's bit bytes) "
                          "is not implemented yet");
        case oid::kVarbit:
            return refuse(c, "bit varying is not implemented yet");
        case oid::kBytea:
            return DataType::bytes();
        case oid::kInt2:
            return DataType::smallint();
        case oid::kInt4:
            return DataType::int_();
        case oid::kInt8:
        case oid::kOid:
            return DataType::bigint();
        case oid::kFloat4:
            return DataType::float_();
        case oid::kFloat8:
            return DataType::double_();
        case oid::kNumeric: {
            if (typmod < kVarHeaderSize)
                return DataType::decimal(kMaxDecimalPrecision, kDefaultDecimalScale);
            const int precision = ((typmod - kVarHeaderSize) >> 16) & 0xFFFF;
            const int scale = (typmod - kVarHeaderSize) & 0xFFFF;
            if (precision <= 0 || precision > kMaxDecimalPrecision)
                return DataType::decimal(kMaxDecimalPrecision, kDefaultDecimalScale);
            // PostgreSQL 15 allows a negative scale or one above the precision (stored as 11
            // bits, two's complement); Flink's DECIMAL cannot hold either.
            if (scale > precision)
                return refuse(c, "numeric(" + std::to_string(precision) +
                                     ", ...) with a negative scale or one above the precision");
            return DataType::decimal(precision, scale);
        }
        case oid::kMoney:
            // Debezium's money.fraction.digits default.
            return DataType::decimal(kMaxDecimalPrecision, 2);
        case oid::kChar:
            return DataType::char_(1);
        case oid::kBpchar:
            if (typmod < kVarHeaderSize) return DataType::char_(DataType::kMaxLength);
            return DataType::char_(typmod - kVarHeaderSize);
        case oid::kVarchar:
            if (typmod < kVarHeaderSize) return DataType::string();
            return DataType::varchar(typmod - kVarHeaderSize);
        case oid::kText:
        case oid::kUuid:
        case oid::kJson:
        case oid::kJsonb:
        case oid::kXml:
        case oid::kInet:
        case oid::kCidr:
        case oid::kMacaddr:
        case oid::kMacaddr8:
        case oid::kInt4range:
        case oid::kNumrange:
        case oid::kInt8range:
        case oid::kTsrange:
        case oid::kTstzrange:
        case oid::kDaterange:
            return DataType::string();
        case oid::kPoint:
            return refuse(c,
                          "Flink CDC emits point as Debezium's geometry structure, which cdcd "
                          "does not reproduce yet");
        case oid::kDate:
            return DataType::date();
        case oid::kTime:
            return DataType::time(time_precision(typmod));
        case oid::kTimestamp:
            return DataType::timestamp(time_precision(typmod));
        case oid::kTimestamptz:
            return DataType::timestamp_ltz(time_precision(typmod));
        case oid::kInterval:
            // Debezium's interval.handling.mode numeric: microseconds.
            return DataType::bigint();
        case oid::kTimetz:
            return refuse(c, "Flink CDC has no mapping for time with time zone");
        default:
            if (c.is_enum) return DataType::string();
            // Types of extensions have no fixed oid: known by name (format_type's, which is
            // schema-qualified when the schema is not on the search path).
            if (const std::string name = c.type_name.substr(c.type_name.rfind('.') + 1);
                name == "citext" || name == "ltree")
                return DataType::string();
            // An array's typmod is its element's.
            if (Oid element = array_element(c.type_oid)) {
                auto mapped = map_type({element, typmod, false, c.type_name});
                if (auto* type = std::get_if<DataType>(&mapped)) return DataType::array(*type);
                return mapped;
            }
            return refuse(c,
                          "Flink CDC has no mapping for it, or cdcd does not implement it yet "
                          "(arrays of other types, hstore, geometry, geography)");
    }
}

}  // namespace cdcd::postgres
