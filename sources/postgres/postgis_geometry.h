#pragma once
// PostGIS geometry and geography values as Flink CDC's Postgres connector writes them. The server
// prints one as hex EWKB; Debezium passes those bytes on (with the SRID), and Flink CDC reads them
// with JTS's WKBReader and writes JSON from a java.util.HashMap:
// `{"coordinates":"[[x,y],...]","type":"LineString","srid":4326}` (every coordinate of the
// geometry in order, X and Y only; no SRID is 0), or for a GeometryCollection
// `{"geometries":"GEOMETRYCOLLECTION (POINT (1 2), ...)","type":"GeometryCollection","srid":0}`
// (JTS's two-dimensional WKT).
#include <optional>
#include <string>
#include <string_view>

namespace cdcd::postgres {

/// The JSON of the geometry whose hex EWKB is `hex`, or nullopt with `why` set: not hex EWKB
/// (truncated, bytes left over, an unknown byte order), a kind JTS's reader refuses (curves,
/// triangles, TINs, polyhedral surfaces) or a NaN coordinate, whose rendering (JTS makes such a
/// point an empty one) cdcd does not reproduce.
std::optional<std::string> geometry_json(std::string_view hex, std::string* why);

}  // namespace cdcd::postgres
