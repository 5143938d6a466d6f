#include "pipeline/transform/compile/per_batch.h"

#include <string>

#include "pipeline/transform/compile/batch.h"
#include "pipeline/transform/compile/types.h"

namespace cdcd::transform {

namespace {

// The value kept for one batch; strings are copied, since the row's arena is reset between rows.
struct BatchValue {
    mutable bool valid = false;
    mutable std::uint64_t batch = 0;
    mutable Datum value;
    mutable std::string bytes;
};

Datum eval_once_per_batch(const Node& n, EvalContext& c) {
    const auto& kept = n.st<BatchValue>();
    if (kept.valid && kept.batch == c.batch) return kept.value;
    Datum d = n.args[0]->eval(c);
    if (!d.null && value_class(n.type.root()) == ValueClass::Bytes) {
        kept.bytes.assign(d.s.data(), d.s.size());
        d.s = kept.bytes;
    }
    kept.value = d;
    kept.batch = c.batch;
    kept.valid = true;
    return d;
}

// The one value, for every row.
void batch_once_per_batch(const Node& n, BatchContext& b, Selection sel, Datum* out) {
    b.enter(sel.front());
    const Datum d = eval_once_per_batch(n, b.c);
    for (std::uint32_t i : sel) out[i] = d;
}

}  // namespace

NodePtr evaluate_once_per_batch(NodePtr n) {
    auto w = std::make_unique<Node>();
    w->fn = eval_once_per_batch;
    w->batch = batch_once_per_batch;
    w->type = n->type;
    w->batch_constant = true;
    w->state = std::make_shared<BatchValue>();
    w->args.push_back(std::move(n));
    return w;
}

}  // namespace cdcd::transform
