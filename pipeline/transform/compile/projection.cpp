#include "pipeline/transform/compile/projection.h"

#include <algorithm>
#include <new>
#include <type_traits>

#include "pipeline/data/field_format.h"
#include "pipeline/transform/compile/types.h"
#include "pipeline/transform/functions/functions.h"

namespace cdcd::transform {
namespace {

// Flink CDC types a computed column by
// CalciteDataTypeConverter#convertCalciteRelDataTypeToDataType, not by the expression's own type:
// nullable, CHAR and VARCHAR of any length as STRING, and the same inside ARRAY, MAP and ROW. Only
// the schema changes: CHAR and STRING values are stored alike.
DataType computed_column_type(const DataType& t) {
    switch (t.root()) {
        case TypeRoot::Char:
        case TypeRoot::Varchar:
            return DataType::string();
        case TypeRoot::Array:
            return DataType::array(computed_column_type(t.element()));
        case TypeRoot::Map:
            return DataType::map(computed_column_type(t.key()), computed_column_type(t.value()));
        case TypeRoot::Row: {
            std::vector<RowField> fields;
            for (const auto& f : t.fields())
                fields.push_back(RowField{
                    f.name, std::make_shared<const DataType>(computed_column_type(*f.type)), ""});
            return DataType::row(std::move(fields));
        }
        default:
            return t.with_nullable(true);
    }
}

bool is_ifnull_call(const Expr& e) {
    return e.kind == ExprKind::Call && e.name == "IFNULL";
}

}  // namespace

std::unique_ptr<BoundProjection> BoundProjection::bind(
    const ParsedRule& rule, const Schema& upstream, const std::vector<SourceMetadataColumn>& meta,
    const Zone* zone, bool* error_in_filter, DecimalPrecisionMode decimal_mode,
    const TransformFunctions* functions, std::vector<BindNote>* notes) {
    auto p = std::make_unique<BoundProjection>();
    *error_in_filter = false;
    std::vector<CompileNote> projection_notes, filter_notes;
    Scope scope{&upstream, &meta, nullptr, zone};
    scope.decimal_mode = decimal_mode;
    scope.functions = functions;
    scope.notes = &projection_notes;
    std::vector<Column> cols;
    std::vector<BoundColumn> bound;
    auto place = [&](Column col, BoundColumn b) {
        for (std::size_t i = 0; i < cols.size(); ++i) {
            if (cols[i].name == col.name) {  // a later item replaces the earlier in its position
                cols[i] = std::move(col);
                bound[i] = std::move(b);
                return;
            }
        }
        cols.push_back(std::move(col));
        bound.push_back(std::move(b));
    };
    for (const auto& item : rule.items) {
        if (item.star) {
            for (std::size_t i = 0; i < upstream.size(); ++i) {
                BoundColumn b;
                b.copy_from = static_cast<int>(i);
                b.item = &item;
                place(upstream.columns()[i], std::move(b));
            }
            continue;
        }
        // Flink reserves every metadata column name, built-in or the source's, and types a
        // metadata column referenced by name NOT NULL
        // (TransformParser#resolveProjectionColumnFromIdentifier).
        auto is_source_meta = [&](const std::string& name) {
            return std::any_of(meta.begin(), meta.end(),
                               [&](const auto& m) { return m.name == name; });
        };
        bool is_meta_name = builtin_metadata(item.name) || is_source_meta(item.name);
        if (is_meta_name && !(item.expr->kind == ExprKind::Column && item.expr->name == item.name))
            throw CompileError(item.pos,
                               "Column name `" + item.name +
                                   "` is reserved as a metadata column; shading it is not allowed");
        BoundColumn b;
        b.item = &item;
        Column col;
        col.name = item.name;
        if (item.expr->kind == ExprKind::Column && !builtin_metadata(item.expr->name) &&
            upstream.index_of(item.expr->name) >= 0 &&
            std::none_of(meta.begin(), meta.end(),
                         [&](const auto& m) { return m.name == item.expr->name; })) {
            int idx = upstream.index_of(item.expr->name);
            b.copy_from = idx;
            col = upstream.columns()[idx];
            col.name = item.name;
        } else {
            NodePtr compiled = compile(*item.expr, scope);
            // Calcite's nullability, before fit_decimal makes every DECIMAL value nullable.
            const bool declared_nullable = compiled->type.nullable();
            b.expr = fit_decimal(std::move(compiled));
            bool metadata_ref =
                item.expr->kind == ExprKind::Column &&
                (builtin_metadata(item.expr->name) || is_source_meta(item.expr->name));
            col.type = computed_column_type(b.expr->type);
            // A metadata column is never null; IFNULL keeps its own nullability (Flink CDC's
            // TransformParser special-cases both).
            if (metadata_ref) col.type = col.type.not_null();
            if (is_ifnull_call(*item.expr)) col.type = col.type.with_nullable(declared_nullable);
            if (b.expr->null_literal) col.type = DataType::string();
        }
        place(std::move(col), std::move(b));
    }
    std::vector<std::string> pks =
        rule.primary_keys.empty() ? upstream.primary_keys() : rule.primary_keys;
    for (const auto& k : pks) {
        auto it =
            std::find_if(cols.begin(), cols.end(), [&](const Column& c) { return c.name == k; });
        if (it != cols.end()) it->type = it->type.not_null();
    }
    std::map<std::string, std::string> options = upstream.options();
    for (const auto& [k, v] : rule.options) options[k] = v;
    p->output_ =
        Schema(std::move(cols), pks,
               rule.partition_keys.empty() ? upstream.partition_keys() : rule.partition_keys,
               std::move(options), upstream.comment());
    p->columns_ = std::move(bound);
    p->prepare_layout(upstream.size());
    if (rule.filter) {
        std::vector<std::pair<std::string, const Expr*>> computed;
        for (const auto& item : rule.items) {
            if (item.star) continue;
            if (item.expr->kind == ExprKind::Column && item.expr->name == item.name) continue;
            computed.emplace_back(item.name, item.expr.get());
        }
        Scope fscope{&upstream, &meta, &computed, zone};
        fscope.decimal_mode = decimal_mode;
        fscope.functions = functions;
        fscope.notes = &filter_notes;
        try {
            p->filter_ = compile(*rule.filter, fscope);
        } catch (const CompileError&) {
            *error_in_filter = true;
            throw;
        }
        if (p->filter_->type.root() != TypeRoot::Boolean && !p->filter_->null_literal) {
            *error_in_filter = true;
            throw CompileError(rule.filter->pos, "filter must be a BOOLEAN expression, not " +
                                                     p->filter_->type.to_string());
        }
        p->filter_text_ = rule.filter_text;
    }
    if (notes) {
        for (auto& n : projection_notes) notes->push_back({false, std::move(n)});
        for (auto& n : filter_notes) notes->push_back({true, std::move(n)});
    }
    p->in_batches_ = !p->filter_ || may_evaluate_in_batches(*p->filter_);
    for (const auto& c : p->columns_)
        if (c.expr && !may_evaluate_in_batches(*c.expr)) p->in_batches_ = false;
    return p;
}

bool BoundProjection::filter(EvalContext& c) const {
    if (!filter_) return true;
    current_ = &filter_text_;
    return filter_->eval(c).truth();
}

void BoundProjection::prepare_layout(std::size_t upstream_arity) {
    const auto& out = output_.columns();
    upstream_arity_ = upstream_arity;
    fields_.clear();
    prefix_variable_.clear();
    computed_.clear();
    computed_sized_.clear();
    copied_variable_.clear();
    for (std::size_t i = 0; i < columns_.size(); ++i) {
        OutField f;
        f.copy_from = columns_[i].copy_from;
        f.variable = is_variable_length(out[i].type);
        f.expr = columns_[i].expr.get();
        f.slot = value_class(out[i].type.root());
        if (f.copy_from < 0) {
            f.value = computed_.size();
            if (f.slot != ValueClass::Long && f.slot != ValueClass::Double)
                computed_sized_.push_back({static_cast<std::uint32_t>(f.value), f.slot});
            computed_.push_back(ComputedField{f.expr, i, f.slot});
        } else if (f.variable) {
            copied_variable_.push_back(static_cast<std::uint32_t>(i));
        }
        fields_.push_back(f);
    }
    values_.assign(computed_.size(), Datum{});
    prefix_ = 0;
    while (prefix_ < fields_.size() && prefix_ < upstream_arity &&
           fields_[prefix_].copy_from == static_cast<int>(prefix_))
        ++prefix_;
    if (prefix_ != upstream_arity) prefix_ = 0;  // the block copy needs every upstream field
    for (std::size_t i = 0; i < prefix_; ++i)
        if (fields_[i].variable) prefix_variable_.push_back(static_cast<std::uint32_t>(i));
    in_place_ = prefix_ > 0 && (fields_.size() + 63) / 64 == (upstream_arity + 63) / 64;
    for (std::size_t i = prefix_; i < fields_.size(); ++i)
        if (fields_[i].copy_from >= 0) in_place_ = false;
    identity_ = prefix_ == upstream_arity && fields_.size() == upstream_arity;
    // Copied fields in their upstream order, then computed ones only.
    kept_ = 0;
    while (kept_ < fields_.size() && fields_[kept_].copy_from >= 0 &&
           (kept_ == 0 || fields_[kept_].copy_from > fields_[kept_ - 1].copy_from))
        ++kept_;
    compacts_ =
        !identity_ && !in_place_ && !fields_.empty() && kept_ + computed_.size() == fields_.size();
    in_fixed_ = RowView::fixed_size(upstream_arity);
    out_fixed_ = RowView::fixed_size(fields_.size());
    if (compacts_) {
        kept_slots_.resize(kept_);
        kept_moved_.resize(kept_);
        kept_nulls_.resize(kept_);
    }
}

static_assert(std::is_trivially_destructible_v<Datum>);

// Writes the output row directly, in one allocation, with the same bytes RowBuilder would
// produce field by field: NULL fields have a zero slot, the variable part holds the fields'
// bytes in field order. Every byte is written once (no zero fill of the whole row first).
Row BoundProjection::project(EvalContext& c, std::vector<std::string>* spare) const {
    evaluate(c);
    return assemble(c.row, values_.data(), 1, spare);
}

bool BoundProjection::project_over(EvalContext& c, std::string& own,
                                   std::vector<std::string>* spare, Row* out) const {
    evaluate(c);
    std::size_t size = 0;
    if (in_place_) {
        const RowView row(own);
        std::size_t added = 0;
        computed_bytes(&row, values_.data(), 1, &added);
        size = in_place_size(own, added);
    } else if (compacts_) {
        size = compact_size(own, values_.data(), 1, c.arena);
        if (size != 0) {
            compact_in_place(own, size, values_.data(), 1);
            return true;
        }
    }
    if (size != 0) {
        assemble_in_place(own, size, values_.data(), 1);
        return true;
    }
    *out = assemble(c.row, values_.data(), 1, spare);
    return false;
}

void BoundProjection::evaluate(EvalContext& c) const {
    // Computed values (strings stay valid: they point into the input row, constants, node
    // caches or the arena, which is reset only between rows).
    std::size_t k = 0;
    try {
        // Constructed in place: the evaluator writes its result straight into values_
        // (a Datum copied right after its fields were stored stalls store forwarding).
        for (; k < computed_.size(); ++k)
            ::new (static_cast<void*>(&values_[k])) Datum(computed_[k].expr->eval(c));
    } catch (...) {  // EvalError, or anything a connector's function throws
        std::size_t i = computed_[k].field;
        current_ = columns_[i].item ? &columns_[i].item->text : &output_.columns()[i].name;
        throw;
    }
}

void BoundProjection::filter_batch(BatchContext& b, Selection sel, bool* pass) const {
    if (!filter_) {
        for (std::uint32_t i : sel) pass[i] = true;
        return;
    }
    ScratchColumn verdict(b);
    eval_batch(*filter_, b, sel, verdict.get());
    for (std::uint32_t i : sel) pass[i] = verdict[i].truth();
}

void BoundProjection::evaluate_batch(BatchContext& b, Selection sel, Datum* values,
                                     std::size_t stride) const {
    for (std::size_t k = 0; k < computed_.size(); ++k)
        eval_batch(*computed_[k].expr, b, sel, values + k * stride);
}

}  // namespace cdcd::transform
