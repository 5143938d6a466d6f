#pragma once
// The type checker: resolves column references against a table schema and function overloads
// against the registry, producing an executable Node tree.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pipeline/connector/transform_functions.h"
#include "pipeline/schema/schema.h"
#include "pipeline/transform/compile/node.h"
#include "pipeline/transform/syntax/ast.h"

namespace cdcd::transform {

/// A column a source attaches to each event's meta (e.g. op_ts); values are parsed from text.
struct SourceMetadataColumn {
    std::string name;
    DataType type = DataType::string();
};

enum class BuiltinMetadata { Namespace, Schema, Table, EventType };
/// __namespace_name__ etc.; false for other names.
bool builtin_metadata(std::string_view name, BuiltinMetadata* which = nullptr);

/// transform.decimal.precision.mode: the largest precision (and scale) of a DECIMAL in expression
/// types, as Flink CDC's FlinkCdcTypeSystem gives Calcite (UP_TO_19, the default, or UP_TO_38).
/// Column types, CAST targets and deduced result types are capped at it; a value that needs more
/// digits than its type is NULL (DecimalData.fromBigDecimal).
enum class DecimalPrecisionMode { UpTo19, UpTo38 };
inline int max_decimal_precision(DecimalPrecisionMode mode) {
    return mode == DecimalPrecisionMode::UpTo19 ? 19 : 38;
}
/// "UP_TO_19" / "UP_TO_38" (the option's values); nullopt otherwise.
std::optional<DecimalPrecisionMode> parse_decimal_precision_mode(std::string_view text);

struct Scope {
    const Schema* upstream = nullptr;
    const std::vector<SourceMetadataColumn>* source_metadata = nullptr;
    /// Computed projection columns visible by name (the filter sees them before upstream columns).
    const std::vector<std::pair<std::string, const Expr*>>* computed = nullptr;
    /// pipeline.local-time-zone, for folding constant expressions.
    const Zone* zone = nullptr;
    /// Off for `cdcd validate`, which checks expressions without evaluating anything.
    bool fold_constants = true;
    /// TransformOperator passes the pipeline's mode (UP_TO_19 unless set); compile() on its own
    /// types as UP_TO_38.
    DecimalPrecisionMode decimal_mode = DecimalPrecisionMode::UpTo38;
    /// The functions the pipeline's connectors add (connector/transform_functions.h); may be null.
    const TransformFunctions* functions = nullptr;
    /// Where compile() adds its notes; may be null.
    std::vector<CompileNote>* notes = nullptr;
};

/// Most expression nodes one compile() visits. A filter compiles a computed column's expression
/// again at each reference to it, so a filter that refers to a large projection item many times
/// could otherwise expand into billions of nodes.
inline constexpr std::size_t kMaxCompiledNodes = 128 * 1024;

NodePtr compile(const Expr& e, const Scope& scope);

}  // namespace cdcd::transform
