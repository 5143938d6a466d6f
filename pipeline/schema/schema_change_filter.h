#pragma once
// The sink's include.schema.changes / exclude.schema.changes (Flink CDC's
// YamlPipelineDefinitionParser#toSinkDef + ChangeEventUtils#resolveSchemaEvolutionOptions).
#include <bitset>
#include <string>
#include <vector>

#include "config/diagnostics.h"
#include "pipeline/event/events.h"

namespace cdcd {

enum class SchemaChangeBehavior { Ignore, Lenient, TryEvolve, Evolve, Exception };

class SchemaChangeFilter {
  public:
    /// Accepts every type.
    SchemaChangeFilter() { accepted_.set(); }

    /// included = union of the include tags (every type when the list is empty); when an include
    /// list is given, create.table is added unless explicitly excluded; when no exclude list is
    /// present and the behavior is LENIENT, drop.table and truncate.table are excluded; the
    /// result is included minus excluded. Unknown tags are reported at `where`.
    static SchemaChangeFilter create(const std::vector<std::string>& include,
                                     const std::vector<std::string>& exclude, bool has_exclude,
                                     SchemaChangeBehavior behavior, config::Diagnostics& diags,
                                     const config::SourceLocation& where);

    /// The types a tag names: exact (add.column ...) or family (add, alter, create, drop,
    /// rename, table, column, all). Empty for an unknown tag.
    static std::vector<SchemaChangeType> resolve_tag(const std::string& tag);

    bool accepts(SchemaChangeType type) const {
        return accepted_.test(static_cast<std::size_t>(type));
    }
    /// Accepted tags in SchemaChangeType order, for logs and tests: "[create.table, add.column]".
    std::string to_string() const;

  private:
    static constexpr std::size_t kTypes =
        static_cast<std::size_t>(SchemaChangeType::AlterTableComment) + 1;
    std::bitset<kTypes> accepted_;
};

}  // namespace cdcd
