#include "sources/postgres/postgis_geometry.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "sources/postgres/java_rendering.h"

namespace cdcd::postgres {

namespace {

// WKB geometry kinds JTS reads (the OGC simple features); others it refuses.
enum Kind : std::uint32_t {
    kPoint = 1,
    kLineString = 2,
    kPolygon = 3,
    kMultiPoint = 4,
    kMultiLineString = 5,
    kMultiPolygon = 6,
    kCollection = 7,
};
// EWKB's flags in the type word (PostGIS); ISO WKB adds 1000, 2000 or 3000 to the kind instead.
constexpr std::uint32_t kHasZ = 0x80000000U, kHasM = 0x40000000U, kHasSrid = 0x20000000U;
// Collections nest; past this depth the input is taken as hostile.
constexpr int kMaxDepth = 64;

struct Coordinate {
    double x, y;
};
using Sequence = std::vector<Coordinate>;

struct Geometry {
    std::uint32_t kind = kPoint;
    std::vector<Sequence> sequences;  // a point's (0 or 1 coordinate), a line's, a polygon's rings
    std::vector<Geometry> parts;      // of a multi-geometry or collection
};

struct ParseError {
    std::string why;
};

class Reader {
  public:
    explicit Reader(std::string bytes) : bytes_(std::move(bytes)) {}

    std::size_t left() const { return bytes_.size() - pos_; }

    std::uint8_t byte() {
        need(1);
        return static_cast<std::uint8_t>(bytes_[pos_++]);
    }
    std::uint32_t u32(bool little) {
        need(4);
        std::uint32_t v = 0;
        for (int i = 0; i < 4; ++i) {
            const auto b = static_cast<std::uint8_t>(bytes_[pos_ + static_cast<std::size_t>(i)]);
            v |= static_cast<std::uint32_t>(b) << (little ? 8 * i : 8 * (3 - i));
        }
        pos_ += 4;
        return v;
    }
    double f64(bool little) {
        need(8);
        std::uint64_t v = 0;
        for (int i = 0; i < 8; ++i) {
            const auto b = static_cast<std::uint8_t>(bytes_[pos_ + static_cast<std::size_t>(i)]);
            v |= static_cast<std::uint64_t>(b) << (little ? 8 * i : 8 * (7 - i));
        }
        pos_ += 8;
        return std::bit_cast<double>(v);
    }

  private:
    void need(std::size_t n) const {
        if (left() < n)
            throw ParseError{"it ends at byte " + std::to_string(bytes_.size()) + ", inside a " +
                             std::to_string(n) + "-byte field"};
    }
    std::string bytes_;
    std::size_t pos_ = 0;
};

struct Header {
    bool little = false;
    std::uint32_t kind = 0;
    int dimensions = 2;
    std::optional<std::int32_t> srid;
};

Header read_header(Reader& in) {
    Header h;
    const std::uint8_t order = in.byte();
    if (order > 1) throw ParseError{"byte order " + std::to_string(order) + " is neither 0 nor 1"};
    h.little = order == 1;
    const std::uint32_t type = in.u32(h.little);
    // As JTS reads it: the kind in the low 16 bits modulo 1000, dimensions from the EWKB flags or
    // the ISO thousands.
    const std::uint32_t iso = (type & 0xFFFFU) / 1000;
    h.kind = (type & 0xFFFFU) % 1000;
    const bool z = (type & kHasZ) != 0 || iso == 1 || iso == 3;
    const bool m = (type & kHasM) != 0 || iso == 2 || iso == 3;
    h.dimensions = 2 + (z ? 1 : 0) + (m ? 1 : 0);
    if ((type & kHasSrid) != 0) h.srid = static_cast<std::int32_t>(in.u32(h.little));
    return h;
}

std::uint32_t count(Reader& in, const Header& h, std::size_t min_bytes_each) {
    const std::uint32_t n = in.u32(h.little);
    // Each element takes bytes: a count beyond what is left is no geometry (and no allocation).
    if (static_cast<std::uint64_t>(n) * min_bytes_each > in.left())
        throw ParseError{"it counts " + std::to_string(n) + " elements in " +
                         std::to_string(in.left()) + " bytes"};
    return n;
}

Sequence read_sequence(Reader& in, const Header& h, std::uint32_t n) {
    Sequence seq;
    seq.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        Coordinate c{in.f64(h.little), in.f64(h.little)};
        for (int d = 2; d < h.dimensions; ++d) (void)in.f64(h.little);  // Z and M are dropped
        if (std::isnan(c.x) || std::isnan(c.y))
            throw ParseError{
                "it has a NaN coordinate, whose rendering by Flink CDC (JTS makes "
                "such a point an empty one) cdcd does not reproduce"};
        seq.push_back(c);
    }
    return seq;
}

/// A ring as JTS's lenient reader makes it valid: fewer than 4 coordinates are padded with the
/// first, an open one is closed with it.
void ensure_valid_ring(Sequence& ring) {
    const std::size_t n = ring.size();
    if (n == 0) return;
    if (n <= 3) {
        ring.resize(4, ring.front());
    } else if (ring.front().x != ring.back().x || ring.front().y != ring.back().y) {
        ring.push_back(ring.front());
    }
}

Geometry read_geometry(Reader& in, int depth, std::optional<std::int32_t>* srid) {
    if (depth > kMaxDepth)
        throw ParseError{"its collections nest deeper than " + std::to_string(kMaxDepth)};
    const Header h = read_header(in);
    if (srid && h.srid) *srid = h.srid;
    const std::size_t coordinate_bytes = 8 * static_cast<std::size_t>(h.dimensions);
    Geometry g;
    g.kind = h.kind;
    switch (h.kind) {
        case kPoint:
            g.sequences.push_back(read_sequence(in, h, 1));
            break;
        case kLineString:
            g.sequences.push_back(read_sequence(in, h, count(in, h, coordinate_bytes)));
            break;
        case kPolygon: {
            const std::uint32_t rings = count(in, h, 4);
            for (std::uint32_t i = 0; i < rings; ++i) {
                Sequence ring = read_sequence(in, h, count(in, h, coordinate_bytes));
                ensure_valid_ring(ring);
                if (i > 0 && !ring.empty() && g.sequences.front().empty())
                    throw ParseError{"its polygon has an empty shell but holes, which JTS refuses"};
                g.sequences.push_back(std::move(ring));
            }
            break;
        }
        case kMultiPoint:
        case kMultiLineString:
        case kMultiPolygon:
        case kCollection: {
            const std::uint32_t parts = count(in, h, 5);
            for (std::uint32_t i = 0; i < parts; ++i) {
                Geometry part = read_geometry(in, depth + 1, nullptr);
                // A multi-geometry holds its own kind only, as JTS checks.
                if (h.kind != kCollection && part.kind != h.kind - 3)
                    throw ParseError{"a multi-geometry of kind " + std::to_string(h.kind) +
                                     " holds one of kind " + std::to_string(part.kind)};
                g.parts.push_back(std::move(part));
            }
            break;
        }
        default:
            // 8 to 17: circular strings, compound curves, curve polygons, multi-curves and
            // -surfaces, polyhedral surfaces, TINs and triangles.
            throw ParseError{"it is of WKB kind " + std::to_string(h.kind) +
                             (h.kind >= 8 && h.kind <= 17
                                  ? " (a curve, surface, TIN or triangle), which JTS's reader, "
                                    "and so Flink CDC, does not read"
                                  : ", which is no geometry kind")};
    }
    return g;
}

void append_coordinates(const Geometry& g, std::vector<Coordinate>& out) {
    for (const Sequence& s : g.sequences) out.insert(out.end(), s.begin(), s.end());
    for (const Geometry& p : g.parts) append_coordinates(p, out);
}

std::string shortest_plain(double v);

// The fraction digits of JTS's WKT of a geometry of the default (floating) precision model:
// PrecisionModel.getMaximumSignificantDigits, which OrdinateFormat takes as fraction digits.
constexpr int kWktFractionDigits = 16;

/// An ordinate as JTS's WKT writes it (OrdinateFormat: Java's DecimalFormat with pattern "0", at
/// most 16 fraction digits, HALF_EVEN): Java's shortest digits in plain notation, `1`,
/// `0.00001`, `10000000`, `-0`; with more fraction digits than 16 the value rounded there (as
/// DecimalFormat decides a tie by the exact value, so does printf), `-0` for a negative one that
/// rounds to zero.
std::string wkt_number(double v) {
    if (!std::isfinite(v))
        throw ParseError{"it has an infinite coordinate, whose WKT by JTS cdcd does not reproduce"};
    std::string plain = shortest_plain(v);
    const std::size_t dot = plain.find('.');
    if (dot == std::string::npos || plain.size() - dot - 1 <= kWktFractionDigits) return plain;
    char buffer[400];  // DBL_MAX has 309 integer digits
    std::snprintf(buffer, sizeof buffer, "%.*f", kWktFractionDigits, v);
    std::string rounded = buffer;
    while (rounded.back() == '0') rounded.pop_back();
    if (rounded.back() == '.') rounded.pop_back();
    return rounded;
}

/// Java's shortest digits of finite `v` (Double.toString's) in plain notation.
std::string shortest_plain(double v) {
    const std::string java = java::double_string(v);  // d.dddE±n or plain d.ddd
    std::string sign;
    std::string_view text = java;
    if (text.front() == '-') {
        sign = "-";
        text.remove_prefix(1);
    }
    int exponent = 0;
    if (const std::size_t e = text.find('E'); e != std::string_view::npos) {
        exponent = std::stoi(std::string(text.substr(e + 1)));
        text = text.substr(0, e);
    }
    const std::size_t dot = text.find('.');
    std::string digits = std::string(text.substr(0, dot)) + std::string(text.substr(dot + 1));
    int point = static_cast<int>(dot) + exponent;  // digits before the decimal point
    if (point <= 0) {
        digits.insert(0, static_cast<std::size_t>(-point) + 1, '0');
        point = 1;
    } else if (static_cast<std::size_t>(point) > digits.size()) {
        digits.append(static_cast<std::size_t>(point) - digits.size(), '0');
    }
    std::string whole = digits.substr(0, static_cast<std::size_t>(point));
    std::string fraction = digits.substr(static_cast<std::size_t>(point));
    while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
    const std::size_t lead = whole.find_first_not_of('0');
    whole = lead == std::string::npos ? "0" : whole.substr(lead);
    return sign + whole + (fraction.empty() ? "" : "." + fraction);
}

void append_sequence_wkt(const Sequence& s, std::string& out) {
    if (s.empty()) {
        out += "EMPTY";
        return;
    }
    out += '(';
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (i > 0) out += ", ";
        out += wkt_number(s[i].x) + " " + wkt_number(s[i].y);
    }
    out += ')';
}

void append_polygon_wkt(const Geometry& g, std::string& out) {
    // Empty when its shell is (an empty shell has no holes: see read_geometry).
    if (g.sequences.empty() || g.sequences.front().empty()) {
        out += "EMPTY";
        return;
    }
    out += '(';
    for (std::size_t i = 0; i < g.sequences.size(); ++i) {
        if (i > 0) out += ", ";
        append_sequence_wkt(g.sequences[i], out);
    }
    out += ')';
}

/// JTS's WKTWriter (two dimensions, not formatted) of `g`, with its tag.
void append_wkt(const Geometry& g, std::string& out) {
    static constexpr const char* kTags[] = {
        "",           "POINT",           "LINESTRING",   "POLYGON",
        "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION"};
    out += kTags[g.kind];
    out += ' ';
    switch (g.kind) {
        case kPoint:
        case kLineString:
            append_sequence_wkt(g.sequences.front(), out);
            return;
        case kPolygon:
            append_polygon_wkt(g, out);
            return;
        default:
            break;
    }
    // A multi-geometry or collection is EMPTY without parts only; empty parts are written.
    if (g.parts.empty()) {
        out += "EMPTY";
        return;
    }
    out += '(';
    for (std::size_t i = 0; i < g.parts.size(); ++i) {
        if (i > 0) out += ", ";
        const Geometry& part = g.parts[i];
        if (g.kind == kCollection) {
            append_wkt(part, out);
        } else if (g.kind == kMultiPolygon) {
            append_polygon_wkt(part, out);
        } else {
            append_sequence_wkt(part.sequences.front(), out);
        }
    }
    out += ')';
}

std::optional<std::string> unhex(std::string_view hex) {
    if (hex.size() % 2 != 0) return std::nullopt;
    std::string bytes(hex.size() / 2, '\0');
    auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        return -1;
    };
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        const int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return std::nullopt;
        bytes[i] = static_cast<char>((hi << 4) | lo);
    }
    return bytes;
}

}  // namespace

std::optional<std::string> geometry_json(std::string_view hex, std::string* why) {
    auto bytes = unhex(hex);
    if (!bytes || bytes->empty()) {
        *why = "it is not hex EWKB";
        return std::nullopt;
    }
    Reader in(std::move(*bytes));
    std::optional<std::int32_t> srid;
    Geometry g;
    try {
        g = read_geometry(in, 0, &srid);
        if (in.left() != 0)
            throw ParseError{std::to_string(in.left()) + " bytes follow the geometry"};
    } catch (const ParseError& e) {
        *why = e.why;
        return std::nullopt;
    }
    static constexpr const char* kTypes[] = {
        "",           "Point",           "LineString",   "Polygon",
        "MultiPoint", "MultiLineString", "MultiPolygon", "GeometryCollection"};
    // Flink CDC puts "type", then "coordinates" (or "geometries"), then "srid" into a HashMap.
    const bool collection = g.kind == kCollection;
    std::string value;
    if (collection) {
        try {
            append_wkt(g, value);
        } catch (const ParseError& e) {
            *why = e.why;
            return std::nullopt;
        }
    } else {
        // Jackson writes the list of [x, y] arrays; a non-finite double as a string.
        std::vector<Coordinate> coordinates;
        append_coordinates(g, coordinates);
        auto number = [](double v) {
            const std::string s = java::double_string(v);
            return std::isfinite(v) ? s : "\"" + s + "\"";
        };
        value = "[";
        for (std::size_t i = 0; i < coordinates.size(); ++i) {
            if (i > 0) value += ',';
            value += "[" + number(coordinates[i].x) + "," + number(coordinates[i].y) + "]";
        }
        value += ']';
    }
    const std::vector<std::string> keys = {"type", collection ? "geometries" : "coordinates",
                                           "srid"};
    std::string out = "{";
    for (std::size_t k : java::hash_map_order(keys)) {
        if (out.size() > 1) out += ',';
        java::append_json_string(out, keys[k]);
        out += ':';
        if (k == 0) {
            java::append_json_string(out, kTypes[g.kind]);
        } else if (k == 1) {
            java::append_json_string(out, value);
        } else {
            out += std::to_string(srid.value_or(0));
        }
    }
    out += '}';
    return out;
}

}  // namespace cdcd::postgres
