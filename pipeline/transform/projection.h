#pragma once
// One transform rule bound to one table schema: the output schema, compiled projection columns
// and filter, and the evaluation of a row.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/event/events.h"
#include "pipeline/transform/compiler.h"

namespace cdcd::transform {

/// A parsed rule (once, at start).
struct ParsedRule {
    std::vector<ProjectionItem> items;
    bool has_star = false;
    ExprPtr filter;
    std::string projection_text, filter_text;
    std::vector<std::string> primary_keys, partition_keys;
    std::vector<std::pair<std::string, std::string>> options;
    bool soft_delete = false;
};

struct BoundColumn {
    int copy_from = -1;  // upstream position for plain column references
    NodePtr expr;        // computed otherwise
    const ProjectionItem* item = nullptr;
};

class BoundProjection {
  public:
    /// Throws CompileError (pos inside projection_text, or filter_text when in_filter is set).
    static std::unique_ptr<BoundProjection> bind(const ParsedRule& rule, const Schema& upstream,
                                                 const std::vector<SourceMetadataColumn>& meta,
                                                 const Zone* zone, bool* error_in_filter);
    const Schema& output() const { return output_; }
    bool has_filter() const { return filter_ != nullptr; }
    bool filter(EvalContext& c) const;
    Row project(EvalContext& c) const;
    /// The expression text of the column or filter being evaluated when an EvalError happened.
    const std::string& current_text() const { return *current_; }

  private:
    Schema output_;
    std::vector<BoundColumn> columns_;
    std::vector<bool> variable_;
    NodePtr filter_;
    std::string filter_text_;
    mutable const std::string* current_ = &filter_text_;
    mutable std::size_t size_hint_ = 0;  // variable part of the last row, plus slack
};

}  // namespace cdcd::transform
