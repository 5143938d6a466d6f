#pragma once
// One transform rule bound to one table schema: the output schema, compiled projection columns
// and filter, and the evaluation of a row.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/event/events.h"
#include "pipeline/transform/compile/batch.h"
#include "pipeline/transform/compile/compiler.h"
#include "pipeline/transform/compile/types.h"

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

/// A CompileNote of a rule's projection or filter.
struct BindNote {
    bool in_filter = false;
    CompileNote note;
};

class BoundProjection {
  public:
    /// Throws CompileError (pos inside projection_text, or filter_text when in_filter is set).
    /// `notes`, when given, receives the warnings of the projection's and the filter's
    /// expressions.
    static std::unique_ptr<BoundProjection> bind(
        const ParsedRule& rule, const Schema& upstream,
        const std::vector<SourceMetadataColumn>& meta, const Zone* zone, bool* error_in_filter,
        DecimalPrecisionMode decimal_mode = DecimalPrecisionMode::UpTo19,
        const TransformFunctions* functions = nullptr, std::vector<BindNote>* notes = nullptr);
    const Schema& output() const { return output_; }
    bool has_filter() const { return filter_ != nullptr; }
    bool filter(EvalContext& c) const;
    /// The projected row; written into the last of `spare` when its capacity suffices.
    Row project(EvalContext& c, std::vector<std::string>* spare = nullptr) const;
    /// As project(), but written over `own`, the bytes of the input row c.row views, when
    /// assemble_in_place or compact_in_place allows it: then true. Otherwise false, with the row in
    /// `*out`.
    bool project_over(EvalContext& c, std::string& own, std::vector<std::string>* spare,
                      Row* out) const;
    /// Whether the filter and the columns may be evaluated over batches of rows (batch.h).
    bool evaluates_in_batches() const { return in_batches_; }
    /// The filter's verdict on each selected row i of a batch, into pass[i].
    void filter_batch(BatchContext& b, Selection sel, bool* pass) const;
    /// How many columns are computed (the others are copied).
    std::size_t computed_count() const { return computed_.size(); }
    /// The computed columns over the selected rows of a batch: computed column k of row i into
    /// values[k * stride + i].
    void evaluate_batch(BatchContext& b, Selection sel, Datum* values, std::size_t stride) const;
    /// The projected row of `in`, whose computed column k is values[k * stride]; written into
    /// the last of `spare` when its capacity suffices.
    Row assemble(RowView in, const Datum* values, std::size_t stride,
                 std::vector<std::string>* spare) const;
    /// Whether assemble_in_place may succeed: the output is every upstream column in order
    /// (a leading `*`), then computed columns only, and needs no more words of NULL bits.
    bool assembles_in_place() const { return in_place_; }
    /// Whether the output is every upstream column in order and nothing else (`*` alone): a
    /// row of the upstream arity is its own projection, and is left as it is.
    bool is_identity() const { return identity_; }
    /// Whether `row` is its own projection (is_identity(), and it has the upstream arity).
    bool keeps(RowView row) const { return identity_ && row.arity() == upstream_arity_; }
    /// The bytes the computed values of each of the n input rows (computed column k of row i at
    /// values[k * n + i]) add to its variable part, into bytes[i], a column at a time; past any
    /// capacity when a computed string points into that row's fixed part.
    void computed_bytes(const RowView* rows, const Datum* values, std::size_t n,
                        std::size_t* bytes) const;
    /// The size of the projected row of the input row whose bytes are `own`, whose computed
    /// values add `computed_bytes` (above), when it can be written over them
    /// (assembles_in_place(), the input's variable part in field order, no computed string
    /// pointing into its fixed part, and room in `own`'s capacity); 0 otherwise.
    std::size_t in_place_size(const std::string& own, std::size_t computed_bytes) const;
    /// Writes the projected row over `buf` (the input row's bytes), whose capacity holds
    /// `size`, from in_place_size: no allocation, so it cannot fail.
    void assemble_in_place(std::string& buf, std::size_t size, const Datum* values,
                           std::size_t stride) const noexcept;
    /// Whether the output is some of the upstream columns, in their upstream order, then
    /// computed columns only (`id, name`, `id, UPPER(name) AS up`), and is not written by
    /// assemble_in_place: such a row is written over its input row, the kept fields' bytes
    /// moved to their new places and the computed ones after them.
    bool compacts_in_place() const { return compacts_; }
    /// The size of the projected row of the input row whose bytes are `own`, whose computed
    /// column k is values[k * stride], when it can be written over them: compacts_in_place(),
    /// the upstream arity, the kept fields' variable bytes in field order, apart, past the fixed
    /// part, and room in `own`'s capacity; 0 otherwise. A computed string that points into
    /// `own` is first copied into `arena` (the bytes it points at move or are overwritten).
    std::size_t compact_size(const std::string& own, Datum* values, std::size_t stride,
                             Arena& arena) const;
    /// Writes the projected row over `own`, for which compact_size() gave `size`: its bytes are
    /// those RowBuilder would write for the output row. No allocation, so it cannot fail.
    void compact_in_place(std::string& own, std::size_t size, const Datum* values,
                          std::size_t stride) const noexcept;
    /// The expression text of the column or filter being evaluated when an EvalError happened.
    const std::string& current_text() const { return *current_; }

  private:
    struct OutField {
        int copy_from = -1;  // upstream position, or -1 for a computed column
        bool variable = false;
        ValueClass slot = ValueClass::Long;  // how it is encoded, from its type
        const Node* expr = nullptr;
        std::size_t value = 0;  // index into values_ for computed columns
    };
    struct ComputedField {
        const Node* expr = nullptr;
        std::size_t field = 0;  // output position
        ValueClass slot = ValueClass::Long;
    };
    void prepare_layout(std::size_t upstream_arity);
    void evaluate(EvalContext& c) const;  // the computed columns of c.row, into values_
    static constexpr std::size_t kNoBlock = ~std::size_t{0};
    // The size of `in`'s variable part when its leading `*` fields copy as one block (their
    // variable parts back to back in field order, covering the input's); kNoBlock when not.
    std::size_t block_size(RowView in) const;
    // compact_size's part for the computed values (those pointing into `own` copied first).
    std::size_t computed_size(const std::string& own, Datum* values, std::size_t stride,
                              Arena& arena) const;
    // compact_in_place's part for the computed fields, their bytes from `cursor` on.
    void write_computed(char* base, std::size_t cursor, const Datum* values,
                        std::size_t stride) const noexcept;
    // Copies that block's NULL bits, slots and variable part into a row of this projection;
    // returns where the next field's variable bytes go.
    std::size_t copy_block(RowView in, char* base, std::size_t fixed) const;

    Schema output_;
    std::vector<BoundColumn> columns_;
    NodePtr filter_;
    std::string filter_text_;
    mutable const std::string* current_ = &filter_text_;
    // The output row's layout: output fields 0..prefix_-1 are upstream fields 0..prefix_-1 (a
    // leading `*`), copied as one block when the input's variable part is in field order.
    std::vector<OutField> fields_;
    std::size_t upstream_arity_ = 0;
    std::size_t prefix_ = 0;
    std::vector<std::uint32_t> prefix_variable_;  // variable-length fields among the prefix
    // The computed fields (values_[k] is computed_[k]'s value) and the copied variable-length
    // fields, in output order, so that sizing the row visits only the fields that need it.
    std::vector<ComputedField> computed_;
    // The computed fields that add bytes to the variable part (strings, decimals, timestamps):
    // their index in computed_ and class.
    struct SizedValue {
        std::uint32_t value;
        ValueClass slot;
    };
    std::vector<SizedValue> computed_sized_;
    std::vector<std::uint32_t> copied_variable_;
    mutable std::vector<Datum> values_;  // computed values of the row being projected
    bool in_batches_ = false;            // evaluates_in_batches()
    bool in_place_ = false;              // assembles_in_place()
    bool identity_ = false;              // is_identity()
    bool compacts_ = false;              // compacts_in_place()
    std::size_t kept_ = 0;               // when it compacts: the output's leading copied fields
    std::size_t in_fixed_ = 0, out_fixed_ = 0;  // RowView::fixed_size of input and output
    // compact_in_place's copy of the kept fields' NULL bits and slots, read before they are
    // overwritten, and their slots in the output.
    mutable std::vector<std::uint64_t> kept_slots_;
    mutable std::vector<std::uint64_t> kept_moved_;
    mutable std::vector<std::uint8_t> kept_nulls_;
};

}  // namespace cdcd::transform
