#pragma once
// The function registry: every built-in (operators included) is a builder that checks the
// compiled arguments, picks the implementation for their types and returns the call's node.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pipeline/connector/transform_functions.h"
#include "pipeline/transform/compile/node.h"
#include "pipeline/transform/compile/types.h"
#include "pipeline/transform/syntax/ast.h"

namespace cdcd::transform {

struct CallSite {
    const Expr& expr;
    std::string name;                // upper-case
    std::vector<NodePtr> args;       // compiled arguments (Symbol arguments: constant STRING nodes)
    int max_decimal_precision = 38;  // of the scope's DecimalPrecisionMode
    /// A connector's function (TransformFunction::context): what it works with; else null.
    std::shared_ptr<void> context = nullptr;
    /// Scope::notes: where note() goes; may be null.
    std::vector<CompileNote>* notes = nullptr;

    /// A warning about this call (it compiles, but cannot do what it seems to).
    void note(const std::string& message) const {
        if (notes) notes->push_back({expr.pos, message});
    }
    /// Notes an `=` (or IN, or a simple CASE's WHEN) between arguments i and j that is never
    /// TRUE: Flink CDC's `=` is Java's Object.equals, which finds no value of one class equal to
    /// one of another (a BIGINT column and an INT literal).
    void note_never_equal(std::size_t i, std::size_t j, const std::string& what) const;

    [[noreturn]] void fail(const std::string& message) const {
        throw CompileError(expr.pos, message);
    }
    [[noreturn]] void fail_arg(std::size_t i, const std::string& message) const;
    /// Fails with an ArityError: the number of arguments is wrong whatever their types.
    [[noreturn]] void fail_arity(const std::string& message) const {
        throw ArityError(expr.pos, message);
    }
    void arity(std::size_t min, std::size_t max) const;
    bool any_nullable() const;
    const DataType& type(std::size_t i) const { return args[i]->type; }
    /// "UPPER(INT)" style signature, for messages.
    std::string signature() const;
    /// Fails unless argument i is character data (or a NULL literal).
    void require_text(std::size_t i) const;
    void require_numeric(std::size_t i) const;
    void require_integer(std::size_t i) const;
};

using Builder = NodePtr (*)(CallSite&);
using Registry = std::unordered_map<std::string, Builder>;

/// The built-in functions (connectors add theirs per pipeline: see lookup_function()).
const Registry& functions();
/// Built-ins whose value changes between events with equal arguments (never constant-folded).
bool is_volatile(std::string_view name);

/// A function an expression calls: a built-in, else one of the pipeline's connector functions
/// (`extra`, may be null; a built-in of the same name wins). Null when there is none.
struct FunctionRef {
    Builder build = nullptr;
    bool is_volatile = false;
    std::shared_ptr<void> context = nullptr;
    bool from_connector = false;  // TransformFunctions, not a built-in
};
std::optional<FunctionRef> lookup_function(const std::string& name,
                                           const TransformFunctions* extra);

void register_logic(Registry& r);     // comparison, logical, IN, BETWEEN, IS ...
void register_arith(Registry& r);     // + - * / %, ABS, CEIL, FLOOR, ROUND, UUID
void register_string(Registry& r);    // ||, CONCAT, UPPER, SUBSTRING, LPAD, LIKE, ...
void register_regex(Registry& r);     // REGEXP_*
void register_temporal(Registry& r);  // LOCALTIMESTAMP, DATE_FORMAT, TIMESTAMPADD, ...
void register_cond(Registry& r);      // CASE, COALESCE, IF, IFNULL, NULLIF
void register_cast(Registry& r);      // CAST, TRY_CAST
void register_struct(Registry& r);    // ARRAY, MAP, ROW, ITEM, CARDINALITY, ...

NodePtr make_node(EvalFn fn, DataType type, std::vector<NodePtr> args);
/// Wraps `n` in a conversion to `to` when its type differs (implicit coercion of CASE branches,
/// function arguments). Fails (CompileError at pos) when there is no such conversion.
NodePtr coerce(NodePtr n, const DataType& to, int pos);
/// A DECIMAL type capped at `max_precision` digits of precision and scale (Calcite's
/// createSqlType under FlinkCdcTypeSystem).
DataType cap_decimal(const DataType& t, int max_precision);
/// Wraps a DECIMAL-typed expression so that a value with more digits than its type's precision
/// is NULL, as Flink CDC's DecimalData.fromBigDecimal makes a computed column's value.
NodePtr fit_decimal(NodePtr n);
/// Java-equality of two values (numbers of different classes are unequal; NULL equals nothing).
bool values_equal(const Datum& a, const DataType& ta, const Datum& b, const DataType& tb);
/// Order of two non-NULL values of comparable types (numbers across types via double).
int compare_values(const Datum& a, const DataType& ta, const Datum& b, const DataType& tb);
/// True when `<`/`>` can compare the two types.
bool orderable(const DataType& a, const DataType& b);
/// True for CAST/TRY_CAST (or an implicit conversion) to CHAR/VARCHAR: its text is the Java
/// string of its operand, which never fails.
bool is_text_cast(const Node& n);
/// Timestamp ± INTERVAL (from the arithmetic builders).
NodePtr build_interval_arith(CallSite& c, bool minus);

}  // namespace cdcd::transform
