#pragma once
// Column-at-a-time evaluation: an expression evaluated over many rows of one schema at once,
// node by node. A node with a batch evaluator (Node::batch) computes its values for all rows in
// one loop, reading its operands from columns its children computed first; any other node is
// evaluated row by row with its row evaluator, so every expression can be evaluated this way.
// The per-node work a row pays (an indirect call, decoding the operands' kinds, returning a
// Datum) is paid once per batch instead.
//
// Evaluation is exactly as lazy as per row: an operand a row would not evaluate (the second
// operand after a NULL one, a CASE branch not taken) is not evaluated for that row, so a batch
// fails only where a row would.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "pipeline/event/row_prefetch.h"
#include "pipeline/transform/compile/node.h"

namespace cdcd::transform {

/// The rows of one evaluation, and what else each row's expressions see: at most kMaxRows.
class BatchRows {
  public:
    static constexpr std::size_t kMaxRows = 128;

    std::size_t size() const { return size_; }
    void clear() { size_ = 0; }
    void add(RowView row, const char* op, const EventMeta* meta) {
        prefetch_row_bytes(row.bytes());  // read column by column, first from another core
        add_fetched(row, op, meta);
    }
    /// As add(), for a row another batch of this thread has just fetched.
    void add_fetched(RowView row, const char* op, const EventMeta* meta) {
        if (size_ == kMaxRows) throw std::length_error("more rows than a batch holds");
        rows[size_] = row;
        ops[size_] = op;
        metas[size_] = meta;
        ++size_;
    }

    RowView rows[kMaxRows];
    const char* ops[kMaxRows] = {};  // __data_event_type__
    const EventMeta* metas[kMaxRows] = {};

  private:
    std::size_t size_ = 0;
};

/// Scratch columns and selections for the nodes of an evaluation: kept from batch to batch, so
/// evaluating allocates nothing once they have grown.
class BatchScratch {
  public:
    static constexpr std::size_t kRows = BatchRows::kMaxRows;  // per column

    Datum* take_column() {
        if (columns_used_ == columns_.size()) columns_.push_back(std::make_unique<Datum[]>(kRows));
        return columns_[columns_used_++].get();
    }
    void give_back_column() { --columns_used_; }
    std::vector<std::uint32_t>& take_selection() {
        if (selections_used_ == selections_.size()) {
            selections_.push_back(std::make_unique<std::vector<std::uint32_t>>());
            selections_.back()->reserve(kRows);
        }
        auto& s = *selections_[selections_used_++];
        s.clear();
        return s;
    }
    void give_back_selection() { --selections_used_; }

  private:
    std::vector<std::unique_ptr<Datum[]>> columns_;
    std::size_t columns_used_ = 0;
    // Held by pointer: a selection in use keeps its address while others are added.
    std::vector<std::unique_ptr<std::vector<std::uint32_t>>> selections_;
    std::size_t selections_used_ = 0;
};

/// One evaluation: the rows, and the context they share (arena, clock, zone, table). Strings
/// computed for the rows live in `c.arena` until the caller resets it.
struct BatchContext {
    const BatchRows& rows;
    EvalContext& c;
    BatchScratch& scratch;

    /// Points `c` at row i, for a row evaluator.
    void enter(std::uint32_t i) {
        c.row = rows.rows[i];
        c.op_string = rows.ops[i];
        c.meta = rows.metas[i];
    }
};

/// A scratch column for the life of this object.
class ScratchColumn {
  public:
    explicit ScratchColumn(BatchContext& b) : b_(b), data_(b.scratch.take_column()) {}
    ~ScratchColumn() { b_.scratch.give_back_column(); }
    ScratchColumn(const ScratchColumn&) = delete;
    ScratchColumn& operator=(const ScratchColumn&) = delete;
    Datum* get() const { return data_; }
    Datum& operator[](std::uint32_t i) const { return data_[i]; }

  private:
    BatchContext& b_;
    Datum* data_;
};

/// A scratch selection (empty) for the life of this object.
class ScratchSelection {
  public:
    explicit ScratchSelection(BatchContext& b) : b_(b), sel_(b.scratch.take_selection()) {}
    ~ScratchSelection() { b_.scratch.give_back_selection(); }
    ScratchSelection(const ScratchSelection&) = delete;
    ScratchSelection& operator=(const ScratchSelection&) = delete;
    void push_back(std::uint32_t i) { sel_.push_back(i); }
    void clear() { sel_.clear(); }
    bool empty() const { return sel_.empty(); }
    Selection get() const { return Selection(sel_.data(), sel_.size()); }

  private:
    BatchContext& b_;
    std::vector<std::uint32_t>& sel_;
};

/// Where out[i] is, for a placement new: a column's values are constructed in place, since a
/// Datum built elsewhere and copied right after its fields were stored stalls store forwarding.
inline void* at(Datum* out, std::uint32_t i) {
    return static_cast<void*>(&out[i]);
}

/// n's row evaluator on each selected row.
void eval_rows(const Node& n, BatchContext& b, Selection sel, Datum* out);

/// n's value for each selected row i, into out[i] (other entries are left as they are).
inline void eval_batch(const Node& n, BatchContext& b, Selection sel, Datum* out) {
    if (sel.empty()) return;
    if (n.batch)
        n.batch(n, b, sel, out);
    else
        eval_rows(n, b, sel, out);
}

/// The rows of sel whose value in col is not NULL, into out.
inline void select_not_null(Selection sel, const Datum* col, ScratchSelection& out) {
    for (std::uint32_t i : sel)
        if (!col[i].null) out.push_back(i);
}

/// True when no node of the tree is a connector's function: those may act on the world
/// (FETCH_CONTENT reads a file), so they are evaluated once per row, never in a batch that a
/// failure elsewhere would make the caller evaluate again row by row.
bool may_evaluate_in_batches(const Node& n);

}  // namespace cdcd::transform
