#pragma once
// Operands of fused integer nodes: arithmetic and comparisons whose arguments are integer
// columns or non-NULL integer constants read them directly instead of evaluating child nodes
// (one indirect call and one Datum fewer per operand). The choice is made at compile time.
#include <cstdint>

#include "pipeline/transform/compile/batch.h"
#include "pipeline/transform/compile/node.h"

namespace cdcd::transform {

/// The evaluator of upstream columns stored in the row as a 64-bit integer slot.
Datum eval_long_column(const Node& n, EvalContext& c);
/// The evaluator of upstream columns stored as bytes (strings, binaries).
Datum eval_bytes_column(const Node& n, EvalContext& c);
/// True for a column reference whose value is the row's bytes of that column.
inline bool is_bytes_column(const Node& a) {
    return a.fn == &eval_bytes_column && a.column >= 0;
}

enum OperandKind : int { kOperandNode = 0, kOperandColumn = 1, kOperandConstant = 2 };

/// How an integer-typed argument can be read.
inline OperandKind long_operand_kind(const Node& a) {
    if (a.fn == &eval_long_column && a.column >= 0) return kOperandColumn;
    if (a.is_constant && a.interval == 0 && !a.constant.null) return kOperandConstant;
    return kOperandNode;
}

/// Reads an integer operand of kind K into v; false when it is NULL.
template <int K>
inline bool fetch_long(const Node& a, EvalContext& c, std::int64_t& v) {
    if constexpr (K == kOperandColumn) {
        auto col = static_cast<std::size_t>(a.column);
        if (c.row.is_null(col)) return false;
        v = c.row.get_long(col);
        return true;
    } else if constexpr (K == kOperandConstant) {
        v = a.constant.i;
        return true;
    } else {
        Datum d = a.eval(c);
        v = d.i;
        return !d.null;
    }
}

/// Copies the column positions and constant values of n's two operands into n.operand, for
/// fetch_operand; call it on every node whose evaluator pick_long_fn chose.
inline void set_long_operands(Node& n) {
    for (std::size_t i = 0; i < 2; ++i) {
        const Node& a = *n.args[i];
        switch (long_operand_kind(a)) {
            case kOperandColumn:
                n.operand[i] = a.column;
                break;
            case kOperandConstant:
                n.operand[i] = a.constant.i;
                break;
            default:
                break;
        }
    }
}

/// Reads operand i of a fused node, of kind K, into v; false when it is NULL.
template <int K>
inline bool fetch_operand(const Node& n, std::size_t i, EvalContext& c, std::int64_t& v) {
    if constexpr (K == kOperandColumn) {
        auto col = static_cast<std::size_t>(n.operand[i]);
        if (c.row.is_null(col)) return false;
        v = c.row.get_long(col);
        return true;
    } else if constexpr (K == kOperandConstant) {
        v = n.operand[i];
        return true;
    } else {
        Datum d = n.args[i]->eval(c);
        v = d.i;
        return !d.null;
    }
}

/// Reads operand k of a fused node, of kind K, for row i of a batch into v; false when it is
/// NULL. `col` holds the values of a kNode operand.
template <int K>
[[gnu::always_inline]] inline bool batch_operand(const Node& n, std::size_t k,
                                                 const BatchContext& b, const Datum* col,
                                                 std::uint32_t i, std::int64_t& v) {
    if constexpr (K == kOperandColumn) {
        const RowView& r = b.rows.rows[i];
        auto column = static_cast<std::size_t>(n.operand[k]);
        if (r.is_null(column)) return false;
        v = r.get_long(column);
        return true;
    } else if constexpr (K == kOperandConstant) {
        v = n.operand[k];
        return true;
    } else {
        v = col[i].i;
        return !col[i].null;
    }
}

/// The operands of a fused node for each selected row of a batch: both(i, x, y) where neither
/// is NULL, null(i) where one is. As per row, the second operand of a row is evaluated only when
/// the first is not NULL.
template <int KA, int KB, typename Both, typename Null>
[[gnu::always_inline]] inline void for_each_long_operands(const Node& n, BatchContext& b,
                                                          Selection sel, Both&& both, Null&& null) {
    ScratchColumn a(b), c(b);
    if constexpr (KA == kOperandNode) eval_batch(*n.args[0], b, sel, a.get());
    if constexpr (KB == kOperandNode) {
        ScratchSelection second(b);
        std::int64_t x = 0;
        for (std::uint32_t i : sel)
            if (batch_operand<KA>(n, 0, b, a.get(), i, x)) second.push_back(i);
        eval_batch(*n.args[1], b, second.get(), c.get());
    }
    for (std::uint32_t i : sel) {
        std::int64_t x = 0, y = 0;
        if (batch_operand<KA>(n, 0, b, a.get(), i, x) && batch_operand<KB>(n, 1, b, c.get(), i, y))
            both(i, x, y);
        else
            null(i);
    }
}

/// fn<KA, KB> for the operand kinds of a and b.
template <template <int, int> class F>
EvalFn pick_long_fn(const Node& a, const Node& b) {
    static constexpr EvalFn table[3][3] = {
        {F<0, 0>::eval, F<0, 1>::eval, F<0, 2>::eval},
        {F<1, 0>::eval, F<1, 1>::eval, F<1, 2>::eval},
        {F<2, 0>::eval, F<2, 1>::eval, F<2, 2>::eval},
    };
    return table[long_operand_kind(a)][long_operand_kind(b)];
}

/// F<KA, KB>::batch for the operand kinds of n's arguments (after set_long_operands).
template <template <int, int> class F>
BatchFn pick_long_batch(const Node& n) {
    static constexpr BatchFn table[3][3] = {
        {F<0, 0>::batch, F<0, 1>::batch, F<0, 2>::batch},
        {F<1, 0>::batch, F<1, 1>::batch, F<1, 2>::batch},
        {F<2, 0>::batch, F<2, 1>::batch, F<2, 2>::batch},
    };
    return table[long_operand_kind(*n.args[0])][long_operand_kind(*n.args[1])];
}

}  // namespace cdcd::transform
