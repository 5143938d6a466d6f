// PostgreSQL types to DataType as Flink CDC's Postgres connector maps them, and the refusals.
#include "sources/postgres/type_mapping.h"

#include <catch2/catch.hpp>

using namespace cdcd;
using namespace cdcd::postgres;

namespace {

std::string mapped(Oid type, std::int32_t typmod = -1, bool is_enum = false) {
    auto m = map_type({type, typmod, is_enum, "t"});
    if (auto* refusal = std::get_if<TypeRefusal>(&m)) return "refused: " + refusal->reason;
    return std::get<DataType>(m).to_string();
}

// numeric(p, s)'s atttypmod.
std::int32_t numeric(int p, int s) {
    return ((p << 16) | s) + 4;
}

}  // namespace

TEST_CASE("type mapping: numbers") {
    CHECK(mapped(oid::kBool) == "BOOLEAN");
    CHECK(mapped(oid::kInt2) == "SMALLINT");
    CHECK(mapped(oid::kInt4) == "INT");
    CHECK(mapped(oid::kInt8) == "BIGINT");
    CHECK(mapped(oid::kOid) == "BIGINT");
    CHECK(mapped(oid::kFloat4) == "FLOAT");
    CHECK(mapped(oid::kFloat8) == "DOUBLE");
    CHECK(mapped(oid::kNumeric, numeric(10, 2)) == "DECIMAL(10, 2)");
    CHECK(mapped(oid::kNumeric, numeric(38, 38)) == "DECIMAL(38, 38)");
    // Flink CDC: no precision, or one above 38, is DECIMAL(38, 0).
    CHECK(mapped(oid::kNumeric) == "DECIMAL(38, 0)");
    CHECK(mapped(oid::kNumeric, numeric(50, 4)) == "DECIMAL(38, 0)");
    CHECK(mapped(oid::kNumeric, numeric(5, 2047)).rfind("refused", 0) == 0);  // negative scale
}

TEST_CASE("type mapping: characters, binaries and text-valued types") {
    CHECK(mapped(oid::kVarchar, 255 + 4) == "VARCHAR(255)");
    CHECK(mapped(oid::kVarchar) == "STRING");
    CHECK(mapped(oid::kBpchar, 3 + 4) == "CHAR(3)");
    CHECK(mapped(oid::kChar) == "CHAR(1)");
    CHECK(mapped(oid::kText) == "STRING");
    CHECK(mapped(oid::kBytea) == "BYTES");
    for (Oid o : {oid::kUuid, oid::kJson, oid::kJsonb, oid::kXml, oid::kInet, oid::kCidr,
                  oid::kMacaddr, oid::kMacaddr8, oid::kInt4range, oid::kNumrange, oid::kInt8range,
                  oid::kTsrange, oid::kTstzrange, oid::kDaterange})
        CHECK(mapped(o) == "STRING");
    CHECK(mapped(16500, -1, true) == "STRING");  // a user-defined enum
    // Extension types, known by name.
    CHECK(std::get<DataType>(map_type({16600, -1, false, "citext"})).to_string() == "STRING");
    CHECK(std::get<DataType>(map_type({16700, -1, false, "public.ltree"})).to_string() == "STRING");
    // hstore.handling.mode json: STRING; ltree[] an array of them.
    CHECK(std::get<DataType>(map_type({16800, -1, false, "hstore"})).to_string() == "STRING");
    CHECK(std::get<DataType>(map_type({16801, -1, false, "public.ltree[]"})).to_string() ==
          "ARRAY<STRING>");
    CHECK(std::get<DataType>(map_type({16801, -1, false, "public._ltree"})).to_string() ==
          "ARRAY<STRING>");
    // A built-in type is never taken for an extension's by its name.
    CHECK(std::holds_alternative<TypeRefusal>(map_type({1040, -1, false, "hstore"})));
    CHECK(mapped(oid::kPoint) == "STRING");
    // Debezium's default for the rest.
    CHECK(mapped(oid::kBit, 1) == "BOOLEAN");
    // Debezium's defaults: money.fraction.digits 2, interval.handling.mode numeric.
    CHECK(mapped(oid::kMoney) == "DECIMAL(38, 2)");
    CHECK(mapped(oid::kInterval) == "BIGINT");
}

TEST_CASE("type mapping: dates and times keep their declared precision") {
    CHECK(mapped(oid::kDate) == "DATE");
    CHECK(mapped(oid::kTime) == "TIME(6)");
    CHECK(mapped(oid::kTime, 3) == "TIME(3)");
    CHECK(mapped(oid::kTimestamp) == "TIMESTAMP(6)");
    CHECK(mapped(oid::kTimestamp, 0) == "TIMESTAMP(0)");
    CHECK(mapped(oid::kTimestamptz) == "TIMESTAMP_LTZ(6)");
    CHECK(mapped(oid::kTimestamptz, 2) == "TIMESTAMP_LTZ(2)");
}

TEST_CASE(
    "type mapping: bit strings are BOOLEAN for one bit, else BINARY of their length in bits") {
    CHECK(mapped(oid::kBit, 1) == "BOOLEAN");
    CHECK(mapped(oid::kVarbit, 1) == "BOOLEAN");
    CHECK(mapped(oid::kBit, 8) == "BINARY(8)");
    CHECK(mapped(oid::kBit, 3) == "BINARY(3)");
    CHECK(mapped(oid::kVarbit, 20) == "BINARY(20)");
    // bit varying without a length: the JDBC driver's unknown length.
    CHECK(mapped(oid::kVarbit) == "BINARY(2147483647)");
}

TEST_CASE("type mapping: the text forms of bit strings, point and hstore") {
    CHECK(text_form({oid::kBit, 1, false, "bit(1)"}) == TextForm::Native);
    CHECK(text_form({oid::kVarbit, 1, false, "bit varying(1)"}) == TextForm::Native);
    CHECK(text_form({oid::kBit, 8, false, "bit(8)"}) == TextForm::BitString);
    CHECK(text_form({oid::kVarbit, -1, false, "bit varying"}) == TextForm::BitString);
    CHECK(text_form({oid::kPoint, -1, false, "point"}) == TextForm::Point);
    CHECK(text_form({16800, -1, false, "public.hstore"}) == TextForm::Hstore);
    CHECK(text_form({16800, -1, false, "hstore"}) == TextForm::Hstore);
    CHECK(text_form({oid::kText, -1, false, "text"}) == TextForm::Native);
    CHECK(text_form({16801, -1, false, "public.ltree"}) == TextForm::Native);
}

TEST_CASE("type mapping: the types Flink CDC does not map are refused with the reason") {
    for (Oid o : {oid::kTimetz, oid::kLine, oid::kLseg, oid::kBox, oid::kPath, oid::kPolygon,
                  oid::kCircle, oid::kTsvector, oid::kTsquery})
        CHECK(mapped(o).rfind("refused: type t is not supported: Flink CDC ", 0) == 0);
    CHECK(mapped(oid::kTimetz).find("time with time zone") != std::string::npos);
    CHECK(mapped(oid::kCircle).find("no geometric type but point") != std::string::npos);
    auto reason = [](const PgColumnType& c) { return std::get<TypeRefusal>(map_type(c)).reason; };
    const std::string arrays =
        "Flink CDC maps arrays of boolean, bytea, \"char\", smallint, integer, bigint, real, "
        "double precision, numeric, char, varchar, text, uuid, date, time, timestamp, "
        "timestamptz, interval and ltree only (its connector fails on others)";
    CHECK(reason({1040, -1, false, "macaddr[]"}) == "type macaddr[] is not supported: " + arrays);
    CHECK(reason({1017, -1, false, "point[]"}) == "type point[] is not supported: " + arrays);
    // hstore[] as format_type and as its Type message name it.
    CHECK(reason({16802, -1, false, "hstore[]"}) == "type hstore[] is not supported: " + arrays);
    CHECK(reason({16802, -1, false, "public._hstore"}) ==
          "type public._hstore is not supported: " + arrays);
    // A built-in type with no case, and a type of another extension.
    CHECK(reason({3220, -1, false, "pg_lsn"}) ==
          "type pg_lsn is not supported: Flink CDC has no mapping for this built-in type (its "
          "connector fails on it)");
    CHECK(reason({16900, -1, false, "public.cube"}) ==
          "type public.cube is not supported: Flink CDC maps no type of an extension or a user "
          "but enums, domains (as their base types), citext, ltree, hstore and PostGIS geometry "
          "and geography (its connector fails on others)");
    // Arrays of PostGIS's types: ARRAY<STRING> in Flink CDC, not yet in cdcd.
    for (const char* name : {"geometry[]", "public._geometry", "geography(Point,4326)[]"})
        CHECK(reason({17000, -1, false, name}) ==
              std::string("type ") + name +
                  " is not supported: cdcd does not implement arrays of PostGIS geometry and "
                  "geography yet (Flink CDC maps geometry[] as ARRAY<STRING>)");
}

TEST_CASE("type mapping: PostGIS geometry and geography are STRING, their JSON made from EWKB") {
    for (const char* name : {"geometry", "public.geography", "geometry(Point,4326)",
                             "public.geography(MultiLineString,4326)"}) {
        CHECK(std::get<DataType>(map_type({17000, 123, false, name})) == DataType::string());
        CHECK(text_form({17000, 123, false, name}) == TextForm::Geometry);
    }
    // Known by name only among the types created after initdb.
    CHECK(std::holds_alternative<TypeRefusal>(map_type({3000, -1, false, "geometry"})));
    CHECK(text_form({3000, -1, false, "geometry"}) == TextForm::Native);
}

TEST_CASE("type mapping: a domain maps as its base type, and a refusal names both") {
    // What catalog.h resolve_types gives for a column of a domain: the base type, the typmod
    // the nearest domain declared, the domain's name.
    auto domain = [](Oid base, std::int32_t typmod, const char* base_name) {
        auto m = map_type({base, typmod, false, base_name, "my_domain"});
        if (auto* refusal = std::get_if<TypeRefusal>(&m)) return "refused: " + refusal->reason;
        return std::get<DataType>(m).to_string();
    };
    CHECK(domain(oid::kInt4, -1, "integer") == "INT");
    CHECK(domain(oid::kVarchar, 20 + 4, "character varying(20)") == "VARCHAR(20)");
    CHECK(domain(oid::kNumeric, numeric(10, 2), "numeric(10,2)") == "DECIMAL(10, 2)");
    CHECK(domain(oid::kTimestamp, 3, "timestamp(3) without time zone") == "TIMESTAMP(3)");
    CHECK(domain(oid::kBit, 8, "bit(8)") == "BINARY(8)");
    CHECK(domain(1007, -1, "integer[]") == "ARRAY<INT>");  // a domain over an array type
    // Over an enum.
    CHECK(std::get<DataType>(map_type({16800, -1, true, "mood", "my_domain"})) ==
          DataType::string());
    CHECK(text_form({oid::kBit, 8, false, "bit(8)", "my_domain"}) == TextForm::BitString);
    CHECK(text_form({oid::kPoint, -1, false, "point", "my_domain"}) == TextForm::Point);
    CHECK(domain(oid::kTsvector, -1, "tsvector") ==
          "refused: type my_domain (a domain over tsvector) is not supported: Flink CDC has no "
          "mapping for text search types");
    CHECK(domain(oid::kTimetz, -1, "time with time zone")
              .rfind("refused: type my_domain (a domain over time with time zone) is not "
                     "supported: Flink CDC has no mapping for time with time zone",
                     0) == 0);
    CHECK(domain(1270, -1, "time with time zone[]")
              .rfind("refused: type my_domain (a domain over time with time zone[]) is not "
                     "supported: Flink CDC maps arrays of boolean",
                     0) == 0);
    // An array of a domain: Debezium resolves no array's elements.
    CHECK(
        std::get<TypeRefusal>(map_type({16950, -1, false, "pos[]", "", "pos", "integer"})).reason ==
        "type pos[] is not supported: an array of domain pos (over integer); Flink CDC's "
        "connector fails on it, as Debezium resolves a domain column to its base type but not "
        "the elements of an array (an array of the base type is mapped, and so is a domain "
        "over one)");
}

TEST_CASE("type mapping: arrays of the mapped types, with their element's modifier") {
    CHECK(mapped(1007) == "ARRAY<INT>");
    CHECK(mapped(1009) == "ARRAY<STRING>");
    CHECK(mapped(1015, 10 + 4) == "ARRAY<VARCHAR(10)>");
    CHECK(mapped(1231, numeric(8, 3)) == "ARRAY<DECIMAL(8, 3)>");
    CHECK(mapped(1185) == "ARRAY<TIMESTAMP_LTZ(6)>");
    CHECK(mapped(2951) == "ARRAY<STRING>");
    CHECK(mapped(1187) == "ARRAY<BIGINT>");
}
