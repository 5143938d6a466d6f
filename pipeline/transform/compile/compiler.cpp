#include "pipeline/transform/compile/compiler.h"

#include <charconv>
#include <set>

#include "pipeline/data/temporal.h"
#include "pipeline/transform/compile/batch.h"
#include "pipeline/transform/compile/operand.h"
#include "pipeline/transform/compile/per_batch.h"
#include "pipeline/transform/functions/functions.h"

namespace cdcd::transform {

bool builtin_metadata(std::string_view name, BuiltinMetadata* which) {
    BuiltinMetadata w;
    if (name == "__namespace_name__")
        w = BuiltinMetadata::Namespace;
    else if (name == "__schema_name__")
        w = BuiltinMetadata::Schema;
    else if (name == "__table_name__")
        w = BuiltinMetadata::Table;
    else if (name == "__data_event_type__")
        w = BuiltinMetadata::EventType;
    else
        return false;
    if (which) *which = w;
    return true;
}

Datum eval_long_column(const Node& n, EvalContext& c) {
    if (c.row.is_null(n.column)) return Datum{};
    return Datum::of_long(c.row.get_long(n.column));
}
Datum eval_bytes_column(const Node& n, EvalContext& c) {
    if (c.row.is_null(n.column)) return Datum{};
    return Datum::of_string(c.row.get_bytes(n.column));
}

namespace {

Datum eval_constant(const Node& n, EvalContext&) {
    return n.constant;
}
Datum eval_column(const Node& n, EvalContext& c) {
    return read_field(c.row, n.column, n.type);
}
Datum eval_double_column(const Node& n, EvalContext& c) {
    if (c.row.is_null(n.column)) return Datum{};
    return Datum::of_double(c.row.get_double(n.column));
}
Datum eval_namespace(const Node&, EvalContext& c) {
    return Datum::of_string(c.table.namespace_name());
}
Datum eval_schema_name(const Node&, EvalContext& c) {
    return Datum::of_string(c.table.schema_name());
}
Datum eval_table_name(const Node&, EvalContext& c) {
    return Datum::of_string(c.table.table_name());
}
Datum eval_event_type(const Node&, EvalContext& c) {
    return Datum::of_string(c.op_string);
}

Datum eval_source_meta(const Node& n, EvalContext& c) {
    if (!c.meta) return Datum{};
    for (const auto& [k, v] : *c.meta) {
        if (k != n.text) continue;
        Datum d;
        switch (n.type.root()) {
            case TypeRoot::TinyInt:
            case TypeRoot::SmallInt:
            case TypeRoot::Int:
            case TypeRoot::BigInt: {
                std::int64_t x = 0;
                auto r = std::from_chars(v.data(), v.data() + v.size(), x);
                if (r.ec != std::errc() || r.ptr != v.data() + v.size())
                    throw EvalError("metadata column " + n.text + " is not a number: '" + v + "'");
                return Datum::of_long(x);
            }
            case TypeRoot::Timestamp:
            case TypeRoot::TimestampLtz: {  // a source writes instants as epoch milliseconds
                std::int64_t ms = 0;
                auto r = std::from_chars(v.data(), v.data() + v.size(), ms);
                if (r.ec != std::errc() || r.ptr != v.data() + v.size())
                    throw EvalError("metadata column " + n.text + " is not epoch milliseconds: '" +
                                    v + "'");
                return Datum::of_timestamp(Timestamp{ms, 0});
            }
            case TypeRoot::Boolean:
                return Datum::of_bool(v == "true" || v == "TRUE");
            case TypeRoot::Double:
            case TypeRoot::Float:
                return Datum::of_double(std::strtod(v.c_str(), nullptr));
            default:
                return Datum::of_string(v);
        }
        (void)d;
    }
    return Datum{};
}

NodePtr literal(const Expr& e) {
    auto n = std::make_unique<Node>();
    n->fn = eval_constant;
    n->is_constant = true;
    const std::string& t = e.name;
    switch (e.literal) {
        case LiteralKind::Null:
            n->type = DataType::string();
            n->null_literal = true;
            break;
        case LiteralKind::Boolean:
            n->type = DataType::boolean().not_null();
            n->constant = Datum::of_bool(t == "TRUE");
            break;
        case LiteralKind::Integer: {
            std::int64_t v = 0;
            auto r = std::from_chars(t.data(), t.data() + t.size(), v);
            if (r.ec == std::errc() && r.ptr == t.data() + t.size()) {
                n->constant = Datum::of_long(v);
                n->type = (v >= INT32_MIN && v <= INT32_MAX ? DataType::int_() : DataType::bigint())
                              .not_null();
                break;
            }
            Decimal d;
            std::size_t digits = t.size() - (t[0] == '-' ? 1 : 0);
            if (digits > 38 || !Decimal::parse(t, 0, d))
                throw CompileError(e.pos, "numeric literal '" + t + "' out of range");
            n->constant = Datum::of_decimal(d.unscaled);
            n->type = DataType::decimal(static_cast<int>(digits), 0).not_null();
            break;
        }
        case LiteralKind::Decimal: {
            auto dot = t.find('.');
            int scale = static_cast<int>(t.size() - dot - 1);
            std::string digits;
            for (char ch : t)
                if (std::isdigit(static_cast<unsigned char>(ch))) digits.push_back(ch);
            auto nz = digits.find_first_not_of('0');
            int precision = nz == std::string::npos ? 1 : static_cast<int>(digits.size() - nz);
            precision = std::max(precision, scale);
            if (precision > 38)
                throw CompileError(e.pos, "numeric literal '" + t + "' out of range");
            Decimal d;
            if (!Decimal::parse(t, scale, d))
                throw CompileError(e.pos, "bad numeric literal '" + t + "'");
            n->constant = Datum::of_decimal(d.unscaled);
            n->type = DataType::decimal(std::max(precision, 1), scale).not_null();
            break;
        }
        case LiteralKind::Double:
            n->constant = Datum::of_double(std::strtod(t.c_str(), nullptr));
            n->type = DataType::double_().not_null();
            break;
        case LiteralKind::String:
            n->text = t;
            n->type = DataType::char_(std::max<int>(1, static_cast<int>(t.size()))).not_null();
            n->constant = Datum::of_string(n->text);
            break;
        case LiteralKind::Date: {
            auto d = temporal::parse_date(t);
            if (!d) throw CompileError(e.pos, "illegal DATE literal '" + t + "'");
            n->constant = Datum::of_long(*d);
            n->type = DataType::date().not_null();
            break;
        }
        case LiteralKind::Time: {
            auto d = temporal::parse_time(t);
            if (!d) throw CompileError(e.pos, "illegal TIME literal '" + t + "'");
            n->constant = Datum::of_long(*d);
            n->type = DataType::time(0).not_null();
            break;
        }
        case LiteralKind::Timestamp: {
            auto d = temporal::parse_timestamp(t);
            if (!d) throw CompileError(e.pos, "illegal TIMESTAMP literal '" + t + "'");
            n->constant = Datum::of_timestamp(*d);
            auto dot = t.find('.');
            int p = dot == std::string::npos
                        ? 0
                        : static_cast<int>(std::min<std::size_t>(9, t.size() - dot - 1));
            n->type = DataType::timestamp(p).not_null();
            break;
        }
    }
    // A string constant must point at the node's own bytes even after moves of the node.
    return n;
}

class Compiler {
  public:
    Compiler(const Scope& scope, std::size_t& visited) : scope_(scope), visited_(visited) {}

    NodePtr compile(const Expr& e) {
        if (++visited_ > kMaxCompiledNodes)
            throw CompileError(e.pos, "expression expands to more than " +
                                          std::to_string(kMaxCompiledNodes) +
                                          " nodes (the limit; each reference to a computed "
                                          "column counts its expression again)");
        switch (e.kind) {
            case ExprKind::Literal:
                return literal(e);
            case ExprKind::Column:
                return column(e);
            case ExprKind::Symbol: {
                auto n = std::make_unique<Node>();
                n->fn = eval_constant;
                n->text = e.name;
                n->type = DataType::string().not_null();
                n->is_constant = true;
                n->constant = Datum::of_string(n->text);
                return n;
            }
            case ExprKind::Interval: {
                auto n = std::make_unique<Node>();
                n->fn = eval_constant;
                n->type = DataType::bigint().not_null();
                n->is_constant = true;
                n->interval = e.interval_months ? 1 : 2;
                n->constant = Datum::of_long(e.interval_value);
                return n;
            }
            case ExprKind::Case:
                return call(e, "CASE");
            case ExprKind::Cast:
                return call(e, e.try_cast ? "TRY_CAST" : "CAST");
            case ExprKind::Call:
                return call(e, e.name);
        }
        throw CompileError(e.pos, "unsupported expression");
    }

  private:
    NodePtr column(const Expr& e) {
        BuiltinMetadata which;
        if (builtin_metadata(e.name, &which)) {
            auto n = std::make_unique<Node>();
            n->type = DataType::string().not_null();
            switch (which) {
                case BuiltinMetadata::Namespace:
                    n->fn = eval_namespace;
                    break;
                case BuiltinMetadata::Schema:
                    n->fn = eval_schema_name;
                    break;
                case BuiltinMetadata::Table:
                    n->fn = eval_table_name;
                    break;
                case BuiltinMetadata::EventType:
                    n->fn = eval_event_type;
                    break;
            }
            n->text = e.name;
            return n;
        }
        if (scope_.source_metadata) {
            for (const auto& m : *scope_.source_metadata) {
                if (m.name != e.name) continue;
                auto n = std::make_unique<Node>();
                n->type = m.type.with_nullable(true);
                n->fn = eval_source_meta;
                n->text = m.name;
                return n;
            }
        }
        if (scope_.computed) {
            for (const auto& [name, expr] : *scope_.computed) {
                if (name != e.name) continue;
                if (active_.count(name))
                    throw CompileError(e.pos, "column `" + name + "` refers to itself");
                active_.insert(name);
                Scope inner = scope_;
                inner.computed = nullptr;  // projection expressions see upstream columns only
                Compiler sub(inner, visited_);
                auto n = sub.compile(*expr);
                active_.erase(name);
                return n;
            }
        }
        if (scope_.upstream) {
            int idx = scope_.upstream->index_of(e.name);
            if (idx >= 0) {
                auto n = std::make_unique<Node>();
                n->column = idx;
                n->type = scope_.upstream->columns()[idx].type;
                n->text = e.name;
                if (n->type.root() == TypeRoot::Decimal) {
                    // Calcite sees the column's type capped by the decimal precision mode; its
                    // values keep their digits (and scale, rescaled when that is capped too).
                    DataType capped =
                        cap_decimal(n->type, max_decimal_precision(scope_.decimal_mode));
                    if (capped.scale() != n->type.scale()) {
                        n->fn = eval_column;
                        return coerce(std::move(n), capped, e.pos);
                    }
                    n->type = capped;
                }
                switch (value_class(n->type.root())) {
                    case ValueClass::Long:
                        n->fn = eval_long_column;
                        break;
                    case ValueClass::Double:
                        n->fn = eval_double_column;
                        break;
                    case ValueClass::Bytes:
                        n->fn = eval_bytes_column;
                        break;
                    default:
                        n->fn = eval_column;
                        break;
                }
                return n;
            }
        }
        throw CompileError(e.pos, "Column `" + e.name + "` not found in any table");
    }

    NodePtr call(const Expr& e, const std::string& name) {
        std::optional<FunctionRef> fn = lookup_function(name, scope_.functions);
        if (!fn)
            throw CompileError(e.pos, "No match found for function signature " + name + "(...)");
        CallSite site{e, name, {}};
        site.max_decimal_precision = max_decimal_precision(scope_.decimal_mode);
        site.context = fn->context;
        site.notes = scope_.notes;
        for (const auto& a : e.args) site.args.push_back(compile(*a));
        bool all_constant = true;
        bool constant_per_batch = !site.args.empty() && !fn->is_volatile;
        bool any_per_batch = false;
        for (const auto& a : site.args) {
            all_constant &= a->is_constant;
            constant_per_batch &= a->is_constant || a->batch_constant;
            any_per_batch |= a->batch_constant;
        }
        constant_per_batch &= any_per_batch;
        // Arguments of one value per batch, under a call that is not: evaluated once per batch.
        if (scope_.fold_constants && !constant_per_batch)
            for (auto& a : site.args)
                if (worth_evaluating_once_per_batch(*a)) a = evaluate_once_per_batch(std::move(a));
        NodePtr n = fn->build(site);
        if (scope_.fold_constants && all_constant && !n->is_constant && !fn->is_volatile &&
            n->interval == 0)
            fold(n);
        if (!n->is_constant && n->interval == 0 && (n->reads_clock || constant_per_batch))
            n->batch_constant = true;
        if (fn->from_connector && !n->is_constant) n->connector_function = true;
        return n;
    }

    // Evaluates a call whose arguments are all constants once, at compile time.
    void fold(NodePtr& n) const {
        EvalContext ctx;
        ctx.zone = scope_.zone ? scope_.zone : Zone::utc().get();
        Datum d;
        try {
            d = n->eval(ctx);
        } catch (const EvalError&) {
            return;  // keep it: the error surfaces per row, as in Flink
        }
        auto c = std::make_unique<Node>();
        c->fn = eval_constant;
        c->type = n->type;
        c->is_constant = true;
        c->constant = d;
        if (!d.null && (is_text(n->type) || n->type.is_binary() || n->type.is_nested())) {
            c->text.assign(d.s.data(), d.s.size());
            c->constant.s = c->text;
        }
        n = std::move(c);
    }

    const Scope& scope_;
    std::size_t& visited_;  // expression nodes compiled so far, shared with sub-compilers
    std::set<std::string> active_;
};

}  // namespace

std::optional<DecimalPrecisionMode> parse_decimal_precision_mode(std::string_view text) {
    if (text == "UP_TO_19") return DecimalPrecisionMode::UpTo19;
    if (text == "UP_TO_38") return DecimalPrecisionMode::UpTo38;
    return std::nullopt;
}

namespace {

// Column-at-a-time evaluators (batch.h) of constants and upstream columns.
void batch_constant(const Node& n, BatchContext&, Selection sel, Datum* out) {
    for (std::uint32_t i : sel) out[i] = n.constant;
}
// A column of the upstream rows: make(row, column) for each selected row whose value is not NULL.
template <typename Make>
void batch_column(const Node& n, BatchContext& b, Selection sel, Datum* out, Make make) {
    const auto col = static_cast<std::size_t>(n.column);
    for (std::uint32_t i : sel) {
        const RowView& r = b.rows.rows[i];
        if (r.is_null(col))
            ::new (at(out, i)) Datum();
        else
            ::new (at(out, i)) Datum(make(r, col));
    }
}
void batch_long_column(const Node& n, BatchContext& b, Selection sel, Datum* out) {
    batch_column(n, b, sel, out,
                 [](const RowView& r, std::size_t c) { return Datum::of_long(r.get_long(c)); });
}
void batch_double_column(const Node& n, BatchContext& b, Selection sel, Datum* out) {
    batch_column(n, b, sel, out,
                 [](const RowView& r, std::size_t c) { return Datum::of_double(r.get_double(c)); });
}
void batch_bytes_column(const Node& n, BatchContext& b, Selection sel, Datum* out) {
    batch_column(n, b, sel, out,
                 [](const RowView& r, std::size_t c) { return Datum::of_string(r.get_bytes(c)); });
}

// Gives the nodes the builders left without one the column-at-a-time evaluator of their row
// evaluator, where there is one.
void attach_batch_evaluators(Node& n) {
    for (auto& a : n.args) attach_batch_evaluators(*a);
    if (n.batch) return;
    if (n.fn == &eval_constant)
        n.batch = batch_constant;
    else if (n.fn == &eval_long_column && n.column >= 0)
        n.batch = batch_long_column;
    else if (n.fn == &eval_double_column && n.column >= 0)
        n.batch = batch_double_column;
    else if (n.fn == &eval_bytes_column && n.column >= 0)
        n.batch = batch_bytes_column;
}

}  // namespace

NodePtr compile(const Expr& e, const Scope& scope) {
    std::size_t visited = 0;
    Compiler c(scope, visited);
    NodePtr n = c.compile(e);
    if (scope.fold_constants && worth_evaluating_once_per_batch(*n))
        n = evaluate_once_per_batch(std::move(n));
    attach_batch_evaluators(*n);
    return n;
}

}  // namespace cdcd::transform
