#pragma once
// Compiled expression trees: every node has its result type, its children and a function
// pointer chosen at compile time for the argument types, so evaluation does no lookups.
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "pipeline/data/row.h"
#include "pipeline/data/table_id.h"
#include "pipeline/event/events.h"
#include "pipeline/transform/compile/datum.h"
#include "pipeline/transform/functions/zone.h"
#include "pipeline/types/data_type.h"

namespace cdcd::transform {

/// Everything an expression can see while one row is evaluated.
struct EvalContext {
    RowView row;
    TableId table;
    const char* op_string = "+I";  // __data_event_type__
    const EventMeta* meta = nullptr;
    std::int64_t now_millis = 0;  // one instant per batch: see now()
    bool now_pending = false;     // set per batch; the clock is read on first use only
    /// The batch being evaluated (TransformOperator counts them): a value an expression keeps
    /// for one batch (per_batch.h) is reused only while this is unchanged.
    std::uint64_t batch = 0;
    const Zone* zone = nullptr;  // pipeline.local-time-zone
    Arena arena;

    /// `zone`'s UTC offset at an instant (seconds). The span of instants that share the last
    /// offset looked up is kept: successive events are close in time, so they rarely need a
    /// lookup (which costs a search, for some zones a computation of the year's rules).
    std::int32_t zone_offset_at(std::int64_t epoch_seconds) {
        if (epoch_seconds < offset_from_ || epoch_seconds >= offset_until_ || offset_zone_ != zone)
            refresh_offset(epoch_seconds);
        return offset_;
    }

    std::int64_t now() {
        if (now_pending) {
            now_millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
            now_pending = false;
        }
        return now_millis;
    }

  private:
    void refresh_offset(std::int64_t epoch_seconds) {
        const Zone& z = zone ? *zone : *Zone::utc();
        offset_ = z.offset_at_instant(epoch_seconds, &offset_from_, &offset_until_);
        offset_zone_ = zone;
    }
    const Zone* offset_zone_ = nullptr;
    std::int64_t offset_from_ = 0, offset_until_ = 0;  // empty until the first lookup
    std::int32_t offset_ = 0;
};

struct Node;
using NodePtr = std::unique_ptr<Node>;
using EvalFn = Datum (*)(const Node&, EvalContext&);
struct BatchContext;
/// Positions of the rows of a batch to evaluate, ascending (batch.h).
using Selection = std::span<const std::uint32_t>;
/// A column-at-a-time evaluator (batch.h): the node's value for each selected row i into out[i].
using BatchFn = void (*)(const Node&, BatchContext&, Selection, Datum* out);

struct Node {
    EvalFn fn = nullptr;
    BatchFn batch = nullptr;  // column-at-a-time evaluator (batch.h); null: row by row
    DataType type = DataType::boolean();
    std::vector<NodePtr> args;
    int column = -1;         // column reference: position in the upstream row
    Datum constant;          // literal value (strings point into `text`)
    std::string text;        // literal bytes, metadata key, unit, ...
    std::int64_t param = 0;  // function-specific (scale, unit, flags)
    std::int64_t param2 = 0;
    std::shared_ptr<const void> state;  // compiled regex, date format, ...
    bool is_constant = false;           // literal (or folded constant): value known at compile time
    bool null_literal = false;
    bool reads_clock = false;     // NOW(), LOCALTIMESTAMP, ...: one value per batch
    bool batch_constant = false;  // depends on nothing but constants and the clock (per_batch.h)
    bool connector_function = false;  // added by a connector (may act on the world: batch.h)
    int interval = 0;  // 1: INTERVAL months, 2: INTERVAL millis (value in constant.i)
    // Fused integer nodes (operand.h): the column or constant value of args[0] and args[1],
    // copied here so that reading an operand takes no trip through args.
    std::int64_t operand[2] = {0, 0};

    Datum eval(EvalContext& c) const { return fn(*this, c); }
    template <typename T>
    const T& st() const {
        return *static_cast<const T*>(state.get());
    }
};

/// A problem found while resolving names and types; pos is the 0-based offset in the expression.
struct CompileError : std::runtime_error {
    CompileError(int pos, const std::string& message) : std::runtime_error(message), pos(pos) {}
    int pos;
};

/// An expression that type-checks but cannot do what it seems to (an `=` that is never TRUE):
/// reported as a warning; pos is the 0-based offset in the expression.
struct CompileNote {
    int pos = 0;
    std::string message;
};

/// A call with the wrong number of arguments: wrong whatever the argument types, so `cdcd
/// validate` reports it without the table's schema.
struct ArityError : CompileError {
    using CompileError::CompileError;
};

/// A failure while evaluating a row (failed CAST, division by zero, ...).
struct EvalError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace cdcd::transform
