// PostGIS values from hostile bytes: the input is EWKB, given to the reader as the hex text the
// server prints. It renders Flink CDC's JSON or refuses with a reason; nothing may escape.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sources/postgres/postgis_geometry.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string hex;
    hex.reserve(2 * size);
    for (std::size_t i = 0; i < size; ++i) {
        hex += kHex[data[i] >> 4];
        hex += kHex[data[i] & 0xF];
    }
    std::string why;
    auto json = cdcd::postgres::geometry_json(hex, &why);
    if (json.has_value() != why.empty()) __builtin_trap();  // a value, or a reason: one of the two
    return 0;
}
