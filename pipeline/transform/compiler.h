#pragma once
// The type checker: resolves column references against a table schema and function overloads
// against the registry, producing an executable Node tree.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "pipeline/schema/schema.h"
#include "pipeline/transform/ast.h"
#include "pipeline/transform/node.h"

namespace cdcd::transform {

/// A column a source attaches to each event's meta (e.g. op_ts); values are parsed from text.
struct SourceMetadataColumn {
    std::string name;
    DataType type = DataType::string();
};

enum class BuiltinMetadata { Namespace, Schema, Table, EventType };
/// __namespace_name__ etc.; false for other names.
bool builtin_metadata(std::string_view name, BuiltinMetadata* which = nullptr);

struct Scope {
    const Schema* upstream = nullptr;
    const std::vector<SourceMetadataColumn>* source_metadata = nullptr;
    /// Computed projection columns visible by name (the filter sees them before upstream columns).
    const std::vector<std::pair<std::string, const Expr*>>* computed = nullptr;
    /// pipeline.local-time-zone, for folding constant expressions.
    const Zone* zone = nullptr;
    /// Off for `cdcd validate`, which checks expressions without evaluating anything.
    bool fold_constants = true;
};

/// Most expression nodes one compile() visits. A filter compiles a computed column's expression
/// again at each reference to it, so a filter that refers to a large projection item many times
/// could otherwise expand into billions of nodes.
inline constexpr std::size_t kMaxCompiledNodes = 128 * 1024;

NodePtr compile(const Expr& e, const Scope& scope);

}  // namespace cdcd::transform
