#include "pipeline/transform/compile/batch.h"

#include <new>

namespace cdcd::transform {

void eval_rows(const Node& n, BatchContext& b, Selection sel, Datum* out) {
    for (std::uint32_t i : sel) {
        b.enter(i);
        ::new (at(out, i)) Datum(n.fn(n, b.c));
    }
}

bool may_evaluate_in_batches(const Node& n) {
    if (n.connector_function) return false;
    for (const auto& a : n.args)
        if (!may_evaluate_in_batches(*a)) return false;
    return true;
}

}  // namespace cdcd::transform
