#pragma once
// PostgreSQL column types to cdcd's DataType, as Flink CDC's Postgres pipeline connector maps them
// (PostgresTypeUtils, under the Debezium properties it reads: ValueModes; Debezium's defaults are
// decimal.handling.mode precise, binary.handling.mode bytes, interval.handling.mode numeric,
// hstore.handling.mode json, money.fraction.digits 2). A type this slice does not map is refused
// with the reason.
#include <cstdint>
#include <string>
#include <variant>

#include "pipeline/types/data_type.h"
#include "sources/postgres/pgoutput_decoder.h"

namespace cdcd::postgres {

/// Built-in type OIDs (pg_type.dat) that the mapping names.
namespace oid {
inline constexpr Oid kBool = 16, kBytea = 17, kChar = 18, kInt8 = 20, kInt2 = 21, kInt4 = 23,
                     kText = 25, kOid = 26, kJson = 114, kXml = 142, kPoint = 600, kCidr = 650,
                     kFloat4 = 700, kFloat8 = 701, kMacaddr8 = 774, kMoney = 790, kMacaddr = 829,
                     kInet = 869, kBpchar = 1042, kVarchar = 1043, kDate = 1082, kTime = 1083,
                     kTimestamp = 1114, kTimestamptz = 1184, kInterval = 1186, kTimetz = 1266,
                     kBit = 1560, kVarbit = 1562, kNumeric = 1700, kUuid = 2950, kJsonb = 3802,
                     kInt4range = 3904, kNumrange = 3906, kTsrange = 3908, kTstzrange = 3910,
                     kDaterange = 3912, kInt8range = 3926, kLseg = 601, kPath = 602, kBox = 603,
                     kPolygon = 604, kLine = 628, kCircle = 718, kTsvector = 3614, kTsquery = 3615;
/// Types created after initdb (extensions, enums, domains, their arrays) have oids from here on.
inline constexpr Oid kFirstNormalOid = 16384;
}  // namespace oid

/// A column's type as the catalog (pg_attribute) or a Relation message gives it. A domain is
/// given as its base type, as Debezium's TypeRegistry resolves it (Flink CDC maps a column by
/// its root type): the domains it is over followed to a type that is not one, with the typmod
/// the nearest of them declared (catalog.h resolve_types).
struct PgColumnType {
    Oid type_oid = 0;
    std::int32_t type_modifier = -1;  // atttypmod; -1 when none
    bool is_enum = false;             // pg_type.typtype = 'e' (user-defined enum)
    std::string type_name;  // format_type(): "integer", "citext", "public.ltree"; for refusals
    /// The declared domain (format_type) when the column's type is one; the fields above are
    /// then its base type's.
    std::string domain = {};
    /// When the type is an array whose elements are of a domain: that domain, and the type it is
    /// over (Debezium resolves no array's elements, so Flink CDC's connector fails on it).
    std::string element_domain = {}, element_domain_base = {};
};

/// The Debezium properties (`debezium.*`) that Flink CDC's type mapping and Debezium's value
/// converters both read, so that they change a column's type and its values together.
struct ValueModes {
    enum class Decimal { Precise, Double, String };  // decimal.handling.mode
    enum class Binary { Bytes, Base64, Hex };        // binary.handling.mode (bytea)
    enum class Interval { Numeric, String };         // interval.handling.mode
    enum class Hstore { Json, Map };                 // hstore.handling.mode
    Decimal decimal = Decimal::Precise;
    Binary binary = Binary::Bytes;
    Interval interval = Interval::Numeric;
    Hstore hstore = Hstore::Json;
    int money_fraction_digits = 2;  // money.fraction.digits: money's scale under precise
};

struct TypeRefusal {
    std::string reason;
};

/// The DataType (nullable) Flink CDC gives the column, or why cdcd refuses it.
std::variant<DataType, TypeRefusal> map_type(const PgColumnType& column,
                                             const ValueModes& modes = {});

/// How the server's text of a value becomes what Flink CDC emits, where the DataType alone does
/// not say: Debezium's bytes of a bit string, the JSON Flink writes for a point and for PostGIS's
/// geometry and geography (postgis_geometry.h), and Debezium's JSON of an hstore
/// (hstore.handling.mode json). The modes' forms: NumericText a numeric as text
/// (decimal.handling.mode string), MoneyDouble / MoneyText money as a double / its Java text
/// (double / string), IntervalIso an interval as Debezium's ISO 8601 text (interval string),
/// Base64 / Hex bytea encoded (binary.handling.mode), HstoreMap an hstore as a map (map).
enum class TextForm {
    Native,
    BitString,
    Point,
    Hstore,
    Geometry,
    NumericText,
    MoneyDouble,
    MoneyText,
    IntervalIso,
    Base64,
    Hex,
    HstoreMap,
};

/// The TextForm of a column that map_type maps (an array's: its elements').
TextForm text_form(const PgColumnType& column, const ValueModes& modes = {});

}  // namespace cdcd::postgres
