// PostGIS geometry and geography values (hex EWKB as PostgreSQL 15 with PostGIS 3.3 prints them)
// as the JSON Flink CDC writes: coordinates for the simple kinds, JTS's WKT for a collection,
// and the values it cannot render refused with the reason.
#include "sources/postgres/postgis_geometry.h"

#include <catch2/catch.hpp>

using namespace cdcd::postgres;

namespace {

std::string json(std::string_view hex) {
    std::string why;
    auto out = geometry_json(hex, &why);
    return out ? *out : "refused: " + why;
}

}  // namespace

TEST_CASE("postgis geometry: the simple kinds as their coordinates, the SRID when there is one") {
    // The two values of Flink CDC's own PostgresFullTypesITCase.
    CHECK(json("0101000020730C00001C7C613255DE6540787AA52C435C42C0") ==
          R"({"coordinates":"[[174.9479,-36.7208]]","type":"Point","srid":3187})");
    CHECK(json("0105000020E610000001000000010200000002000000A779C7293A2465400B462575025A46C0C66D34"
               "80B7FC6440C3D32B65195246C0") ==
          R"({"coordinates":"[[169.1321,-44.7032],[167.8974,-44.6414]]","type":"MultiLineString",)"
          R"("srid":4326})");
    // No SRID: 0.
    CHECK(json("01010000001C7C613255DE6540787AA52C435C42C0") ==
          R"({"coordinates":"[[174.9479,-36.7208]]","type":"Point","srid":0})");
    // A polygon's shell, then its holes.
    CHECK(
        json("0103000020E6100000020000000500000000000000000000000000000000000000000000000000104000"
             "000000000000000000000000001040000000000000104000000000000000000000000000001040000000"
             "0000000000000000000000000004000000000000000000F03F000000000000F03F000000000000004000"
             "0000000000F03F00000000000000400000000000000040000000000000F03F000000000000F03F") ==
        R"({"coordinates":"[[0.0,0.0],[4.0,0.0],[4.0,4.0],[0.0,4.0],[0.0,0.0],[1.0,1.0],)"
        R"([2.0,1.0],[2.0,2.0],[1.0,1.0]]","type":"Polygon","srid":4326})");
    CHECK(
        json("0104000000020000000101000000000000000000F03F0000000000000040010100000000000000000008"
             "400000000000001040") ==
        R"({"coordinates":"[[1.0,2.0],[3.0,4.0]]","type":"MultiPoint","srid":0})");
    CHECK(json("0106000000020000000103000000010000000400000000000000000000000000000000000000000000"
               "000000F03F0000000000000000000000000000F03F000000000000F03F0000000000000000000000000"
               "00000000103000000010000000400000000000000000014400000000000001440000000000000184000"
               "000000000014400000000000001840000000000000184000000000000014400000000000001440") ==
          R"({"coordinates":"[[0.0,0.0],[1.0,0.0],[1.0,1.0],[0.0,0.0],[5.0,5.0],[6.0,5.0],)"
          R"([6.0,6.0],[5.0,5.0]]","type":"MultiPolygon","srid":0})");
    CHECK(json("010200000000000000") == R"({"coordinates":"[]","type":"LineString","srid":0})");
}

TEST_CASE("postgis geometry: Z and M are dropped, in EWKB and ISO WKB, either byte order") {
    const std::string point = R"({"coordinates":"[[1.0,2.0]]","type":"Point","srid":0})";
    CHECK(json("0101000080000000000000F03F00000000000000400000000000000840") == point);  // Z
    CHECK(json("0101000040000000000000F03F00000000000000400000000000000840") == point);  // M
    CHECK(json("01010000C0000000000000F03F000000000000004000000000000008400000000000001040") ==
          point);                                                                        // ZM
    CHECK(json("01E9030000000000000000F03F00000000000000400000000000000840") == point);  // ISO Z
    CHECK(json("00000000013FF00000000000004000000000000000") == point);  // big-endian
}

TEST_CASE("postgis geometry: a collection as JTS's WKT, numbers in plain notation") {
    CHECK(json("0107000000020000000101000000000000000000F03F000000000000004001020000000200000000000"
               "000000000000000000000000000000000000000F83FF168E388B5F8E43E") ==
          R"j({"geometries":"GEOMETRYCOLLECTION (POINT (1 2), LINESTRING (0 0, 1.5 0.00001))",)j"
          R"("type":"GeometryCollection","srid":0})");
    CHECK(json("010700000000000000") ==
          R"({"geometries":"GEOMETRYCOLLECTION EMPTY","type":"GeometryCollection","srid":0})");
    // Nested, with an empty line, a polygon, -0 and a number Java prints as 1.23456785E7.
    CHECK(json("01070000000200000001010000000000000000000080000000D0298C674101070000000200000001020"
               "00000000000000103000000010000000400000000000000000000000000000000000000000000000000"
               "F03F0000000000000000000000000000F03F000000000000F03F0000000000000000000000000000000"
               "0") ==
          R"j({"geometries":"GEOMETRYCOLLECTION (POINT (-0 12345678.5), GEOMETRYCOLLECTION )j"
          R"j((LINESTRING EMPTY, POLYGON ((0 0, 1 0, 1 1, 0 0))))","type":"GeometryCollection",)j"
          R"("srid":0})");
}

TEST_CASE("postgis geometry: a collection of empty parts is not empty itself in WKT") {
    // GEOMETRYCOLLECTION(LINESTRING EMPTY, MULTILINESTRING(EMPTY)): JTS writes EMPTY for a
    // collection without parts only.
    CHECK(json("010700000002000000010200000000000000010500000001000000010200000000000000") ==
          R"j({"geometries":"GEOMETRYCOLLECTION (LINESTRING EMPTY, MULTILINESTRING (EMPTY))",)j"
          R"j("type":"GeometryCollection","srid":0})j");
}

TEST_CASE("postgis geometry: WKT numbers have at most 16 fraction digits, rounded half even") {
    // GEOMETRYCOLLECTION(POINT(0.30000000000000004 1e-17), POINT(-1e-17 2^-17), POINT(1e20 1)):
    // 2^-17 = 0.00000762939453125 exactly, a tie at the 17th digit, rounded to the even 2.
    CHECK(json("0107000000030000000101000000343333333333D33F97D44646F50E673C010100000097D44646F50"
               "E67BC000000000000E03E0101000000408CB5781DAF1544000000000000F03F") ==
          R"j({"geometries":"GEOMETRYCOLLECTION (POINT (0.3 0), POINT (-0 0.0000076293945312), )j"
          R"j(POINT (100000000000000000000 1))","type":"GeometryCollection","srid":0})j");
}

TEST_CASE("postgis geometry: what Flink CDC cannot read, or cdcd cannot render, is refused") {
    // POINT EMPTY is NaN, NaN.
    CHECK(json("0101000000000000000000F87F000000000000F87F") ==
          "refused: it has a NaN coordinate, whose rendering by Flink CDC (JTS makes such a point "
          "an empty one) cdcd does not reproduce");
    CHECK(json("01080000000300000000000000000000000000000000000000000000000000F03F000000000000F03F0"
               "0000000000000400000000000000000") ==
          "refused: it is of WKB kind 8 (a curve, surface, TIN or triangle), which JTS's reader, "
          "and so Flink CDC, does not read");
    CHECK(json("0101000000000000000000F03F") ==
          "refused: it ends at byte 13, inside a 8-byte field");
    CHECK(json("0101000000000000000000F03F000000000000004000") ==
          "refused: 1 bytes follow the geometry");
    CHECK(json("02") == "refused: byte order 2 is neither 0 nor 1");
    CHECK(json("") == "refused: it is not hex EWKB");
    CHECK(json("0G") == "refused: it is not hex EWKB");
    // A count larger than the bytes left allocates nothing.
    CHECK(json("0102000000FFFFFFFF") == "refused: it counts 4294967295 elements in 0 bytes");
    // A polygon with an empty shell and a hole, which JTS refuses to build.
    CHECK(
        json("010300000002000000000000000400000000000000000000000000000000000000000000000000F03F00"
             "00000000000000000000000000F03F000000000000F03F00000000000000000000000000000000") ==
        "refused: its polygon has an empty shell but holes, which JTS refuses");
    // A multi-point holding a line.
    CHECK(json("010400000001000000010200000000000000") ==
          "refused: a multi-geometry of kind 4 holds one of kind 2");
}
