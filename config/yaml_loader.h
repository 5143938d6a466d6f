// Loads a YAML file into a ConfigNode tree that remembers where every node came from, and reports
// what yaml-cpp alone would not: tabs used for indentation and duplicate keys in a map.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/diagnostics.h"

namespace cdcd::config {

enum class NodeKind { Null, Scalar, Map, List };

std::string_view to_string(NodeKind kind);  // "null", "scalar", "map", "list"

struct MapEntry;

struct ConfigNode {
    NodeKind kind = NodeKind::Null;
    std::string scalar;    // text of a Scalar node (already interpolated once resolved)
    SourceLocation where;  // start of the node
    int offset = -1;       // byte offset of the node's start in the file text, -1 if unknown
    std::vector<MapEntry> entries;  // Map: entries in file order (keys are unique after loading)
    std::vector<ConfigNode> items;  // List: items in file order

    bool is_null() const { return kind == NodeKind::Null; }
    bool is_scalar() const { return kind == NodeKind::Scalar; }
    bool is_map() const { return kind == NodeKind::Map; }
    bool is_list() const { return kind == NodeKind::List; }

    // Map lookup by exact key; nullptr when absent or when this is not a map.
    const ConfigNode* find(std::string_view key) const;
    const MapEntry* find_entry(std::string_view key) const;
};

struct MapEntry {
    std::string key;
    SourceLocation key_where;
    ConfigNode value;
};

// A loaded file: its name, its text (for precise positions inside scalars) and its tree.
struct YamlDocument {
    std::string file;
    std::string text;
    ConfigNode root;  // Null for an empty file

    // 1-based line/column of a byte offset in text.
    SourceLocation location_at(std::size_t offset) const;
};

// What a pipeline (or secrets) file may hold: far more than any real pipeline needs, small
// enough that a hostile file (a "billion laughs" of nested aliases, a 100k-deep `[[[...`) is
// refused in milliseconds instead of exhausting memory or the stack.
inline constexpr std::size_t kMaxYamlBytes = 16 * 1024 * 1024;  // file text, checked first
inline constexpr std::size_t kMaxYamlNodes = 100'000;  // nodes built, each alias counting its copy
inline constexpr std::size_t kMaxYamlDepth = 64;       // nested maps and lists

// Parse YAML text. Errors (syntax, tab indentation, duplicate keys, several documents) are added
// to diags; nullopt when the text could not be turned into a tree. A file over one of the limits
// above is an error naming the limit and the position where it was reached. Duplicate keys are
// reported but the document is still returned (the first occurrence wins).
std::optional<YamlDocument> load_yaml_string(std::string_view text, const std::string& display_name,
                                             Diagnostics& diags);

// Read and parse a file; a missing or unreadable file is a diagnostic too.
std::optional<YamlDocument> load_yaml_file(const std::string& path, Diagnostics& diags);

}  // namespace cdcd::config
