#pragma once
// Java's HashMap iteration order for String keys, so that maps printed by cdcd (rename mappings,
// event meta) read exactly as Flink CDC prints them.
#include <string>
#include <vector>

namespace cdcd {

/// Java String.hashCode() of UTF-16 code units (ASCII/BMP text as most identifiers are).
int java_string_hash(const std::string& s);
/// Indexes of `keys` (distinct, in insertion order) in the order a java.util.HashMap holding them
/// iterates: by bucket, then insertion order within a bucket (no treeification for small maps).
std::vector<std::size_t> java_hash_map_order(const std::vector<std::string>& keys);

}  // namespace cdcd
