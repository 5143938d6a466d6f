#include "pipeline/transform/projection.h"

#include <algorithm>

#include "pipeline/data/field_format.h"
#include "pipeline/transform/types.h"

namespace cdcd::transform {

std::unique_ptr<BoundProjection> BoundProjection::bind(
    const ParsedRule& rule, const Schema& upstream, const std::vector<SourceMetadataColumn>& meta,
    const Zone* zone, bool* error_in_filter) {
    auto p = std::make_unique<BoundProjection>();
    *error_in_filter = false;
    Scope scope{&upstream, &meta, nullptr, zone};
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
            b.expr = compile(*item.expr, scope);
            bool metadata_ref =
                item.expr->kind == ExprKind::Column &&
                (builtin_metadata(item.expr->name) || is_source_meta(item.expr->name));
            col.type = b.expr->type.with_nullable(!metadata_ref);
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
    for (const auto& c : p->output_.columns()) p->variable_.push_back(is_variable_length(c.type));
    if (rule.filter) {
        std::vector<std::pair<std::string, const Expr*>> computed;
        for (const auto& item : rule.items) {
            if (item.star) continue;
            if (item.expr->kind == ExprKind::Column && item.expr->name == item.name) continue;
            computed.emplace_back(item.name, item.expr.get());
        }
        Scope fscope{&upstream, &meta, &computed, zone};
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
    return p;
}

bool BoundProjection::filter(EvalContext& c) const {
    if (!filter_) return true;
    current_ = &filter_text_;
    return filter_->eval(c).truth();
}

Row BoundProjection::project(EvalContext& c) const {
    const auto& out = output_.columns();
    // Reserve what the previous row needed (plus slack for values of varying length), and at
    // least the input's size, so that the row is allocated once.
    RowBuilder b(out.size(), std::max(c.row.bytes().size(), size_hint_));
    std::size_t i = 0;
    try {
        for (; i < columns_.size(); ++i) {
            const auto& col = columns_[i];
            if (col.copy_from >= 0) {
                b.copy_field(i, c.row, col.copy_from, variable_[i]);
                continue;
            }
            Datum d = col.expr->eval(c);
            write_field(b, i, d, out[i].type);
        }
    } catch (const EvalError&) {
        current_ = columns_[i].item ? &columns_[i].item->text : &out[i].name;
        throw;
    }
    Row row = std::move(b).build();
    size_hint_ = row.bytes().size() - RowView::fixed_size(out.size()) + 32;
    return row;
}

}  // namespace cdcd::transform
