#pragma once
// The `route` block: maps upstream table ids to sink table ids exactly as Flink CDC's
// TableIdRouter does (§2 of the reference): `source-table` is a Java regex over the whole
// identifier where `.` is a literal dot, `\.` any character and `,` separates alternatives;
// `sink-table` takes `$n` group references or the `replace-symbol` token.
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "config/diagnostics.h"
#include "config/pipeline_def.h"
#include "pipeline/data/table_id.h"

namespace re2 {
class RE2;
}

namespace cdcd {

enum class RouteMode { AllMatch, FirstMatch };

/// A sink-table that resolves to an invalid table id for some upstream table.
struct RouteError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Router {
  public:
    /// Compiles every rule; bad patterns and bad sink tables go to `diags` with the rule's
    /// position. The returned router skips rules that failed (the caller stops on !diags.ok()).
    static Router create(const std::vector<config::RouteDef>& routes, RouteMode mode,
                         config::Diagnostics& diags);
    /// No rules: every table routes to itself.
    Router();
    Router(Router&&) noexcept;
    Router& operator=(Router&&) noexcept;
    ~Router();

    /// Sink tables of an upstream table: every matching rule's target in rule order (ALL_MATCH,
    /// duplicates kept) or the first one (FIRST_MATCH); the table itself when nothing matches.
    /// Cached per table. Throws RouteError when a target does not parse as a table id.
    /// Not thread-safe (the cache is filled on first use).
    const std::vector<TableId>& route(TableId upstream) const;

    /// The translated regular expression of rule i (RE2 syntax), for tests and diagnostics.
    const std::string& pattern(std::size_t i) const;
    std::size_t size() const;

    /// Flink's translation of a `source-table` value into a Java regex (before RE2 adaptation).
    static std::string source_table_to_regex(const std::string& source_table);

  private:
    struct Rule;
    std::vector<std::unique_ptr<Rule>> rules_;
    RouteMode mode_ = RouteMode::AllMatch;
    mutable std::unordered_map<TableId, std::vector<TableId>> cache_;
};

}  // namespace cdcd
