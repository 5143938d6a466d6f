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
using oid::kFirstNormalOid;

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

/// The type's own name, without the schema format_type or a Type message may put before it.
std::string_view bare_name(const PgColumnType& c) {
    const std::string_view name = c.type_name;
    return name.substr(name.rfind('.') + 1);
}

/// hstore, an extension type: known by name, as Debezium's TypeRegistry knows it.
bool is_hstore(const PgColumnType& c) {
    return c.type_oid >= kFirstNormalOid && bare_name(c) == "hstore";
}

/// A numeric typmod whose scale is negative or above its precision (PostgreSQL 15 allows both;
/// the scale is stored as 11 bits, two's complement).
bool odd_numeric_scale(std::int32_t typmod) {
    if (typmod < kVarHeaderSize) return false;
    const int precision = ((typmod - kVarHeaderSize) >> 16) & 0xFFFF;
    const int scale = (typmod - kVarHeaderSize) & 0xFFFF;
    return precision > 0 && scale > precision;
}

TypeRefusal refuse(const PgColumnType& c, const std::string& why) {
    std::string name = c.type_name.empty() ? "oid " + std::to_string(c.type_oid) : c.type_name;
    if (!c.domain.empty()) name = c.domain + " (a domain over " + name + ")";
    return TypeRefusal{"type " + name + " is not supported: " + why};
}

/// PostGIS's geometry and geography, known by name as Debezium's TypeRegistry knows them
/// (format_type prints geometry(Point,4326) for a column with a type modifier).
bool is_postgis(const PgColumnType& c) {
    if (c.type_oid < kFirstNormalOid) return false;
    std::string_view name = bare_name(c);
    if (name.ends_with("[]")) return false;
    name = name.substr(0, name.find('('));
    return name == "geometry" || name == "geography";
}

/// Arrays of PostGIS's types: format_type's name or the array type's own (a Type message's).
bool is_postgis_array(const PgColumnType& c) {
    if (c.type_oid < kFirstNormalOid) return false;
    std::string_view name = bare_name(c);
    if (name.starts_with("_")) return name == "_geometry" || name == "_geography";
    return name.ends_with("[]") && (name.starts_with("geometry") || name.starts_with("geography"));
}

/// Why a type map_type has no case for is refused.
TypeRefusal refuse_unmapped(const PgColumnType& c) {
    const std::string_view name = bare_name(c);
    if (is_postgis_array(c))
        return refuse(c,
                      "cdcd does not implement arrays of PostGIS geometry and geography yet "
                      "(Flink CDC maps geometry[] as ARRAY<STRING>)");
    if (name.ends_with("[]") || (c.type_oid >= kFirstNormalOid && name.starts_with("_")))
        return refuse(c,
                      "Flink CDC maps arrays of boolean, bytea, \"char\", smallint, integer, "
                      "bigint, real, double precision, numeric, char, varchar, text, uuid, date, "
                      "time, timestamp, timestamptz, interval and ltree only (its connector fails "
                      "on others)");
    if (c.type_oid < kFirstNormalOid)
        return refuse(
            c, "Flink CDC has no mapping for this built-in type (its connector fails on it)");
    return refuse(c,
                  "Flink CDC maps no type of an extension or a user but enums, domains (as their "
                  "base types), citext, ltree, hstore and PostGIS geometry and geography (its "
                  "connector fails on others)");
}

}  // namespace

std::variant<DataType, TypeRefusal> map_type(const PgColumnType& c, const ValueModes& modes) {
    const std::int32_t typmod = c.type_modifier;
    if (!c.element_domain.empty())
        return refuse(c, "an array of domain " + c.element_domain + " (over " +
                             c.element_domain_base +
                             "); Flink CDC's connector fails on it, as Debezium resolves a domain "
                             "column to its base type but not the elements of an array (an array "
                             "of the base type is mapped, and so is a domain over one)");
    switch (c.type_oid) {
        case oid::kBool:
            return DataType::boolean();
        case oid::kBit:
        case oid::kVarbit:
            // Flink CDC: BOOLEAN for a length of 1, else BINARY(length in bits); bit varying
            // without a length has the JDBC driver's unknown length, Integer.MAX_VALUE.
            if (typmod == 1) return DataType::boolean();
            return DataType::binary(typmod < 1 ? DataType::kMaxLength : static_cast<int>(typmod));
        case oid::kBytea:
            // binary.handling.mode base64 and hex: the encoded text.
            return modes.binary == ValueModes::Binary::Bytes ? DataType::bytes()
                                                             : DataType::string();
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
            // decimal.handling.mode double and string: every numeric is a DOUBLE / its text.
            if (modes.decimal == ValueModes::Decimal::Double) return DataType::double_();
            if (modes.decimal == ValueModes::Decimal::String) {
                if (odd_numeric_scale(typmod))
                    return refuse(c,
                                  "a numeric with a negative scale or one above its precision "
                                  "(PostgreSQL 15) under decimal.handling.mode string: Debezium "
                                  "1.9.8 predates these scales and cdcd does not reproduce its "
                                  "text of them");
                return DataType::string();
            }
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
            switch (modes.decimal) {
                case ValueModes::Decimal::Double:
                    return DataType::double_();
                case ValueModes::Decimal::String:
                    return DataType::string();
                case ValueModes::Decimal::Precise:
                    break;
            }
            return DataType::decimal(kMaxDecimalPrecision, modes.money_fraction_digits);
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
        case oid::kPoint:  // Flink CDC writes Debezium's point structure as JSON text
            return DataType::string();
        case oid::kLine:
        case oid::kLseg:
        case oid::kBox:
        case oid::kPath:
        case oid::kPolygon:
        case oid::kCircle:
            return refuse(c,
                          "Flink CDC maps no geometric type but point (its connector fails on "
                          "this one)");
        case oid::kTsvector:
        case oid::kTsquery:
            return refuse(c, "Flink CDC has no mapping for text search types");
        case oid::kDate:
            return DataType::date();
        case oid::kTime:
            return DataType::time(time_precision(typmod));
        case oid::kTimestamp:
            return DataType::timestamp(time_precision(typmod));
        case oid::kTimestamptz:
            return DataType::timestamp_ltz(time_precision(typmod));
        case oid::kInterval:
            // interval.handling.mode numeric: microseconds; string: Debezium's ISO 8601 text.
            return modes.interval == ValueModes::Interval::Numeric ? DataType::bigint()
                                                                   : DataType::string();
        case oid::kTimetz:
            return refuse(c,
                          "Flink CDC has no mapping for time with time zone (its connector fails "
                          "on it)");
        default:
            if (c.is_enum) return DataType::string();
            // Types of extensions have no fixed oid: known by name (format_type's, which is
            // schema-qualified when the schema is not on the search path).
            if (const std::string_view name = bare_name(c);
                c.type_oid >= kFirstNormalOid && (name == "citext" || name == "ltree"))
                return DataType::string();
            // hstore.handling.mode json (Debezium's default): the map as JSON text; map: a map.
            if (is_hstore(c))
                return modes.hstore == ValueModes::Hstore::Json
                           ? DataType::string()
                           : DataType::map(DataType::string(), DataType::string());
            // Flink CDC writes PostGIS's geometry and geography as JSON text.
            if (is_postgis(c)) return DataType::string();
            // ltree[]: format_type's name, or the array type's own (a Type message's).
            if (const std::string_view name = bare_name(c);
                c.type_oid >= kFirstNormalOid && (name == "ltree[]" || name == "_ltree"))
                return DataType::array(DataType::string());
            // An array's typmod is its element's.
            if (Oid element = array_element(c.type_oid)) {
                PgColumnType of_element = c;
                of_element.type_oid = element;
                of_element.is_enum = false;
                auto mapped = map_type(of_element, modes);
                if (auto* type = std::get_if<DataType>(&mapped)) return DataType::array(*type);
                return mapped;
            }
            return refuse_unmapped(c);
    }
}

TextForm text_form(const PgColumnType& c, const ValueModes& modes) {
    if (Oid element = array_element(c.type_oid))
        return text_form({element, c.type_modifier, false, c.type_name}, modes);
    switch (c.type_oid) {
        case oid::kNumeric:
            return modes.decimal == ValueModes::Decimal::String ? TextForm::NumericText
                                                                : TextForm::Native;
        case oid::kMoney:
            return modes.decimal == ValueModes::Decimal::Double   ? TextForm::MoneyDouble
                   : modes.decimal == ValueModes::Decimal::String ? TextForm::MoneyText
                                                                  : TextForm::Native;
        case oid::kBytea:
            return modes.binary == ValueModes::Binary::Base64 ? TextForm::Base64
                   : modes.binary == ValueModes::Binary::Hex  ? TextForm::Hex
                                                              : TextForm::Native;
        case oid::kInterval:
            return modes.interval == ValueModes::Interval::String ? TextForm::IntervalIso
                                                                  : TextForm::Native;
        case oid::kBit:
        case oid::kVarbit:
            return c.type_modifier == 1 ? TextForm::Native : TextForm::BitString;
        case oid::kPoint:
            return TextForm::Point;
        default:
            if (is_postgis(c)) return TextForm::Geometry;
            if (!is_hstore(c)) return TextForm::Native;
            return modes.hstore == ValueModes::Hstore::Json ? TextForm::Hstore
                                                            : TextForm::HstoreMap;
    }
}

}  // namespace cdcd::postgres
