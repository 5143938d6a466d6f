#pragma once
// How the JVM side of Flink CDC renders values that it builds itself rather than reads from the
// server, so that cdcd's text is the same byte for byte: Java's Double.toString, the iteration
// order of a java.util.HashMap (Debezium's hstore JSON and Flink's point JSON are written from
// one), and Jackson's escaping of a JSON string.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cdcd::postgres::java {

/// Double.toString (the shortest digits that read back, as JDK 19+ prints them): `7.89`,
/// `100.0`, `-0.0`, `1.0E7`, `1.234E-5`, `NaN`, `Infinity`.
std::string double_string(double value);

/// String.hashCode of UTF-8 `text` (over its UTF-16 code units; a byte that is not UTF-8 counts
/// as U+FFFD, as Java's decoder replaces it).
std::int32_t string_hash(std::string_view text);

/// The order in which a HashMap built with the default constructor iterates over `keys` put in
/// this order: indexes into `keys`, a key put again keeping its first place. Exact while no bucket
/// of a table of 64 or more holds more than 8 keys (Java then turns it into a tree, whose order
/// this does not follow).
std::vector<std::size_t> hash_map_order(const std::vector<std::string>& keys);

/// Appends `text` as a JSON string as Jackson's generator writes it: `"` and `\` escaped,
/// \b \t \n \f \r, other control characters as \u00XX (upper-case hex), the rest as is.
void append_json_string(std::string& out, std::string_view text);

}  // namespace cdcd::postgres::java
