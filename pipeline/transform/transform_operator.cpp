#include "pipeline/transform/transform_operator.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <mutex>
#include <set>
#include <stdexcept>

#include "formats/json/row_json.h"
#include "pipeline/data/field_format.h"
#include "pipeline/event/row_prefetch.h"
#include "pipeline/schema/schema_change_apply.h"
#include "pipeline/schema/schema_json.h"
#include "pipeline/transform/compile/schema_free_check.h"
#include "pipeline/transform/syntax/parser.h"
#include "pipeline/util/json_escape.h"
#include "text/ascii.h"

namespace cdcd::transform {

namespace {

std::vector<std::string> split_trim(std::string_view s, std::string_view delim) {
    std::vector<std::string> out;
    if (ascii::trim(s).empty()) return out;
    std::size_t pos = 0;
    while (true) {
        auto f = s.find(delim, pos);
        out.emplace_back(ascii::trim(
            s.substr(pos, f == std::string_view::npos ? std::string_view::npos : f - pos)));
        if (f == std::string_view::npos) break;
        pos = f + delim.size();
    }
    return out;
}

// The YAML position of offset `pos` inside an expression that starts at `base`.
config::SourceLocation locate(const config::SourceLocation& base, std::string_view text, int pos) {
    config::SourceLocation l = base;
    std::string_view before = text.substr(0, std::min<std::size_t>(pos, text.size()));
    auto nl = before.rfind('\n');
    if (nl == std::string_view::npos) {
        if (l.column > 0) l.column += pos;
    } else {
        l.line += static_cast<int>(std::count(before.begin(), before.end(), '\n'));
        l.column = static_cast<int>(before.size() - nl);
    }
    return l;
}

// An expression as quoted in messages: a long one is cut (at a character boundary), so that
// an error about a 64 KiB expression does not print it whole.
std::string excerpt(std::string_view text) {
    constexpr std::size_t kShown = 200;
    if (text.size() <= kShown) return std::string(text);
    std::size_t cut = kShown;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    return std::string(text.substr(0, cut)) + "... (" + std::to_string(text.size()) + " bytes)";
}

// Reports what can be found wrong in a parsed expression without the table's schema.
void check_expression(const Expr& e, const char* what, const config::SourceLocation& where,
                      std::string_view text, const Zone* zone, const TransformFunctions& functions,
                      config::Diagnostics& diags) {
    for (const auto& p : check_without_schema(e, zone, &functions))
        diags.error(locate(where, text, p.pos), std::string("error in ") + what + " at column " +
                                                    std::to_string(p.pos + 1) + ": " + p.message +
                                                    " in `" + excerpt(text) + "`");
}

const char* op_string(OpType op, bool before) {
    switch (op) {
        case OpType::Insert:
            return "+I";
        case OpType::Delete:
            return "-D";
        case OpType::Update:
            return before ? "-U" : "+U";
        case OpType::Replace:
            return "+U";
    }
    return "+I";
}

}  // namespace

std::unique_ptr<TransformOperator> TransformOperator::create(
    const std::vector<config::TransformDef>& rules, const std::string& local_time_zone,
    config::Diagnostics& diags, std::vector<SourceMetadataColumn> source_metadata,
    DecimalPrecisionMode decimal_mode, TransformFunctions functions) {
    auto op = std::unique_ptr<TransformOperator>(new TransformOperator());
    op->source_metadata_ = std::move(source_metadata);
    op->functions_ = std::move(functions);
    op->decimal_mode_ = decimal_mode;
    op->zone_ = Zone::find(local_time_zone.empty() ? "UTC" : local_time_zone);
    if (!op->zone_) {
        diags.error(rules.empty() ? config::SourceLocation{} : rules.front().where,
                    "unknown pipeline.local-time-zone '" + local_time_zone + "'");
        op->zone_ = Zone::utc();
    }
    op->ctx_.zone = op->zone_.get();
    op->rules_.reserve(rules.size());
    for (const auto& def : rules) {
        Rule r;
        r.def = def;
        std::string err;
        r.selectors = Selectors::parse(def.source_table, &err);
        if (!r.selectors) diags.error(def.where, "transform source-table: " + err);
        std::string projection = ascii::trim(def.projection).empty() ? "*" : def.projection;
        r.parsed.projection_text = projection;
        try {
            r.parsed.items = parse_projection(projection);
        } catch (const SyntaxError& e) {
            diags.error(locate(def.projection_where, projection, e.pos),
                        "syntax error in projection at column " + std::to_string(e.pos + 1) + ": " +
                            e.what() + " in `" + excerpt(projection) + "`");
        }
        for (const auto& item : r.parsed.items) r.parsed.has_star |= item.star;
        for (const auto& item : r.parsed.items) {
            if (!item.star && builtin_metadata(item.name) &&
                !(item.expr->kind == ExprKind::Column && item.expr->name == item.name))
                diags.error(locate(def.projection_where, projection, item.pos),
                            "column name `" + item.name +
                                "` is a reserved metadata column; shading it is not allowed");
        }
        for (const auto& item : r.parsed.items)
            if (!item.star)
                check_expression(*item.expr, "projection", def.projection_where, projection,
                                 op->zone_.get(), op->functions_, diags);
        if (!ascii::trim(def.filter).empty()) {
            r.parsed.filter_text = def.filter;
            try {
                r.parsed.filter = parse_expression(def.filter);
            } catch (const SyntaxError& e) {
                diags.error(locate(def.filter_where, def.filter, e.pos),
                            "syntax error in filter at column " + std::to_string(e.pos + 1) + ": " +
                                e.what() + " in `" + excerpt(def.filter) + "`");
            }
            if (r.parsed.filter)
                check_expression(*r.parsed.filter, "filter", def.filter_where, def.filter,
                                 op->zone_.get(), op->functions_, diags);
        }
        r.parsed.primary_keys = split_trim(def.primary_keys, ",");
        r.parsed.partition_keys = split_trim(def.partition_keys, ",");
        if (!ascii::trim(def.table_options).empty()) {
            for (const auto& kv : split_trim(
                     def.table_options,
                     def.table_options_delimiter.empty() ? "," : def.table_options_delimiter)) {
                auto eq = kv.find('=');
                if (eq == std::string::npos) {
                    diags.error(def.where, "table-options entry '" + kv + "' is not key=value");
                    continue;
                }
                r.parsed.options.emplace_back(ascii::trim(kv.substr(0, eq)),
                                              ascii::trim(kv.substr(eq + 1)));
            }
        }
        if (!def.converter_after_transform.empty()) {
            if (def.converter_after_transform == "SOFT_DELETE")
                r.parsed.soft_delete = true;
            else
                diags.error(def.where,
                            "Failed to find the converter " + def.converter_after_transform);
        }
        op->rules_.push_back(std::move(r));
    }
    return op;
}

const TransformOperator::Rule* TransformOperator::rule_for(TableId t) const {
    for (const auto& r : rules_)
        if (r.selectors && r.selectors->matches(t)) return &r;
    return nullptr;
}

namespace {

// Each warning once per process: every lane's operator binds the same rules, and a table binds
// again at each of its schema changes.
void warn_once(const std::string& message) {
    static std::mutex mutex;
    static std::set<std::string> said;
    std::lock_guard<std::mutex> lock(mutex);
    if (said.insert(message).second) spdlog::warn("{}", message);
}

}  // namespace

std::unique_ptr<BoundProjection> TransformOperator::bind(const Rule& rule, TableId table,
                                                         const Schema& schema,
                                                         BindFailure* failure) const {
    bool in_filter = false;
    std::vector<BindNote> notes;
    try {
        auto bound = BoundProjection::bind(rule.parsed, schema, source_metadata_, zone_.get(),
                                           &in_filter, decimal_mode_, &functions_, &notes);
        for (const BindNote& n : notes) {
            const std::string& text =
                n.in_filter ? rule.parsed.filter_text : rule.parsed.projection_text;
            warn_once(locate(n.in_filter ? rule.def.filter_where : rule.def.projection_where, text,
                             n.note.pos)
                          .to_string() +
                      ": transform " + (n.in_filter ? "filter" : "projection") + " of table " +
                      table.str() + " at column " + std::to_string(n.note.pos + 1) + ": " +
                      n.note.message + " in `" + excerpt(text) + "`");
        }
        return bound;
    } catch (const CompileError& e) {
        const std::string& text = in_filter ? rule.parsed.filter_text : rule.parsed.projection_text;
        BindFailure f{
            locate(in_filter ? rule.def.filter_where : rule.def.projection_where, text, e.pos),
            std::string("transform ") + (in_filter ? "filter" : "projection") + " of table " +
                table.str() + " at column " + std::to_string(e.pos + 1) + ": " + e.what() +
                " in `" + excerpt(text) + "`"};
        if (!failure) throw TransformError(f.where.to_string() + ": " + f.message);
        *failure = std::move(f);
        return nullptr;
    }
}

void TransformOperator::check_schema(TableId table, const Schema& schema) const {
    if (const Rule* r = rule_for(table)) bind(*r, table, schema);
}

bool TransformOperator::check_schema(TableId table, const Schema& schema,
                                     config::Diagnostics& diags) const {
    const Rule* r = rule_for(table);
    BindFailure failure;
    if (!r || bind(*r, table, schema, &failure)) return true;
    diags.error(failure.where, failure.message);
    return false;
}

void TransformOperator::runtime_error(const TableState& st, const DataChangeEvent& e, RowView row,
                                      const std::string& what) const {
    std::string key = "{";
    bool first = true;
    for (int idx : st.upstream.primary_key_indexes()) {
        // A key naming no column (a hand-written `cdcd test` schema) has index -1: nothing to show.
        if (idx < 0 || static_cast<std::size_t>(idx) >= st.upstream.size()) continue;
        if (!first) key += ", ";
        first = false;
        key += st.upstream.columns()[idx].name + "=" +
               format_field(row, idx, st.upstream.columns()[idx].type);
    }
    key += "}";
    std::string where = st.rule->def.where.to_string();
    std::string failed = "failed to evaluate `" + st.bound->current_text() + "`";
    std::string row_json = "{\"table\":";
    json::append_quoted(row_json, e.table.str());
    row_json += ",\"op\":";
    json::append_quoted(row_json, ctx_.op_string);
    row_json += ",\"row\":";
    json::Writer w(row_json);
    json::write_row_object(w, row, st.upstream, json::JsonFormatOptions{});
    row_json += '}';
    throw RowEvaluationError(
        where + ": " + failed + " for table " + e.table.str() + ", row with primary key " + key +
            ": " + what,
        "transform at " + where + ", table " + e.table.str() + ", row with primary key " + key,
        failed + ": " + what, std::move(row_json));
}

void TransformOperator::on_data(DataChangeEvent& e, TableState& st, EventBatch& out) {
    ctx_.table = e.table;
    ctx_.meta = &e.meta;
    const BoundProjection& b = *st.bound;
    auto passes = [&](const Row& row, bool before) {
        ctx_.arena.reset();
        ctx_.row = row.view();
        ctx_.op_string = op_string(e.op, before);
        try {
            return b.filter(ctx_);
        } catch (const EvalError& err) {
            runtime_error(st, e, row.view(), err.what());
        } catch (const std::exception& err) {
            // Not a planned failure (a connector's function, a bug): still this row's problem,
            // so the bad-record policy decides rather than the pipeline stopping on it.
            runtime_error(st, e, row.view(), std::string("unexpected error: ") + err.what());
        }
    };
    // Projects the row in `slot` and puts the projected row there: written over the row itself
    // when the rule allows it and its buffer has room, else into a spare or new buffer (the
    // input row retired).
    auto project = [&](std::optional<Row>& slot, const char* op) {
        const Row& row = *slot;
        ctx_.arena.reset();
        ctx_.row = row.view();
        ctx_.op_string = op;
        std::vector<std::string>* spare = buffers_ ? &buffers_->spare : nullptr;
        if (b.keeps(row.view())) {  // `*` alone: the row is its own projection
            rows_in_place_ = true;
            return;
        }
        try {
            if (!b.assembles_in_place() && !b.compacts_in_place()) {
                rows_need_spares_ = true;
                replace(slot, b.project(ctx_, spare));
                return;
            }
            rows_in_place_ = true;
            Row projected;
            if (!b.project_over(ctx_, slot->bytes_for_rewrite(), spare, &projected))
                replace(slot, std::move(projected));
            return;
        } catch (const EvalError& err) {
            runtime_error(st, e, row.view(), err.what());
        } catch (const std::exception& err) {
            // Not a planned failure (a connector's function, a bug): still this row's problem,
            // so the bad-record policy decides rather than the pipeline stopping on it.
            runtime_error(st, e, row.view(), std::string("unexpected error: ") + err.what());
        }
    };
    switch (e.op) {
        case OpType::Insert:
        case OpType::Replace:
            if (!e.after || (b.has_filter() && !passes(*e.after, false))) return;
            project(e.after, op_string(e.op, false));
            break;
        case OpType::Delete:
            if (!e.before || (b.has_filter() && !passes(*e.before, true))) return;
            project(e.before, "-D");
            break;
        case OpType::Update: {
            bool bp = !b.has_filter() || passes(*e.before, true);
            bool ap = !b.has_filter() || passes(*e.after, false);
            if (bp && ap) {
                project(e.before, "-U");
                project(e.after, "+U");
            } else if (bp) {
                e.op = OpType::Delete;
                project(e.before, "-D");
                retire(e.after);
            } else if (ap) {
                e.op = OpType::Insert;
                project(e.after, "+I");
                retire(e.before);
            } else {
                return;
            }
            break;
        }
    }
    emit(e, st, out);
}

void TransformOperator::on_data_or_bad_record(DataChangeEvent& e, TableState& st, EventBatch& out) {
    if (!bad_records_) {
        on_data(e, st, out);
        return;
    }
    try {
        on_data(e, st, out);
    } catch (const RowEvaluationError& err) {
        // The event is dropped (its rows may be half projected): the policy keeps the failing
        // row as it came in.
        bad_records_->handle(BadRecord{"eval-error", err.position, err.error, err.row_json});
    }
}

namespace {

// What transform_together does with an event, once the filter has spoken.
enum RunAction : std::uint8_t {
    kDrop,           // filtered out (or no row to project)
    kProjectAfter,   // insert, replace
    kProjectBefore,  // delete
    kProjectBoth,    // update
    kBeforeOnly,     // update whose new row is filtered out: a delete
    kAfterOnly,      // update whose old row is filtered out: an insert
};

}  // namespace

std::size_t TransformOperator::transform_together(EventBatch& in, std::size_t first,
                                                  std::size_t last, TableState& st,
                                                  EventBatch& out) {
    const BoundProjection& b = *st.bound;
    auto data = [&](std::size_t k) -> DataChangeEvent& { return std::get<DataChangeEvent>(in[k]); };
    ctx_.table = data(first).table;
    ctx_.arena.reset();
    auto all = [&](std::size_t n) {
        while (all_rows_.size() < n)
            all_rows_.push_back(static_cast<std::uint32_t>(all_rows_.size()));
        return Selection(all_rows_.data(), n);
    };
    std::size_t n = 0;  // rows to project
    // `*` alone: rows of the upstream arity are their own projections (else one by one).
    const bool identity = b.is_identity();
    try {
        // 1. The filter, on the rows a row-by-row transform tests, in event order.
        if (b.has_filter()) {
            filter_rows_.clear();
            for (std::size_t k = first; k < last; ++k) {
                DataChangeEvent& e = data(k);
                switch (e.op) {
                    case OpType::Insert:
                    case OpType::Replace:
                        if (e.after)
                            filter_rows_.add(e.after->view(), op_string(e.op, false), &e.meta);
                        break;
                    case OpType::Delete:
                        if (e.before)
                            filter_rows_.add(e.before->view(), op_string(e.op, true), &e.meta);
                        break;
                    case OpType::Update:
                        if (!e.before || !e.after) return first;  // one by one decides
                        filter_rows_.add(e.before->view(), op_string(e.op, true), &e.meta);
                        filter_rows_.add(e.after->view(), op_string(e.op, false), &e.meta);
                        break;
                }
            }
            BatchContext bc{filter_rows_, ctx_, scratch_};
            b.filter_batch(bc, all(filter_rows_.size()), pass_);
        }
        // 2. What each event becomes, and the rows to project with the operation each sees.
        actions_.clear();
        project_rows_.clear();
        std::size_t verdict = 0;
        const bool filtered = b.has_filter();
        auto passes = [&] { return !filtered || pass_[verdict++]; };
        // A row to project; one the filter saw (its verdict `seen`) is taken from the filter's
        // rows, already fetched.
        bool kept_as_is = true;
        auto project = [&](const std::optional<Row>& row, std::size_t seen, const char* op,
                           const EventMeta* meta) {
            if (identity) {
                kept_as_is = kept_as_is && b.keeps(row->view());
                return;
            }
            if (filtered)
                project_rows_.add_fetched(filter_rows_.rows[seen], op, meta);
            else
                project_rows_.add(row->view(), op, meta);
        };
        for (std::size_t k = first; k < last; ++k) {
            DataChangeEvent& e = data(k);
            RunAction action = kDrop;
            switch (e.op) {
                case OpType::Insert:
                case OpType::Replace:
                    if (e.after && passes()) {
                        action = kProjectAfter;
                        project(e.after, verdict - 1, op_string(e.op, false), &e.meta);
                    }
                    break;
                case OpType::Delete:
                    if (e.before && passes()) {
                        action = kProjectBefore;
                        project(e.before, verdict - 1, "-D", &e.meta);
                    }
                    break;
                case OpType::Update: {
                    if (!e.before || !e.after) return first;
                    bool bp = passes();
                    bool ap = passes();
                    if (bp && ap) {
                        action = kProjectBoth;
                        project(e.before, verdict - 2, "-U", &e.meta);
                        project(e.after, verdict - 1, "+U", &e.meta);
                    } else if (bp) {
                        action = kBeforeOnly;
                        project(e.before, verdict - 2, "-D", &e.meta);
                    } else if (ap) {
                        action = kAfterOnly;
                        project(e.after, verdict - 1, "+I", &e.meta);
                    }
                    break;
                }
            }
            actions_.push_back(action);
        }
        if (identity && !kept_as_is) return first;
        // 3. The computed columns.
        n = project_rows_.size();
        values_.resize(b.computed_count() * n);
        BatchContext bc{project_rows_, ctx_, scratch_};
        b.evaluate_batch(bc, all(n), values_.data(), n);
        if (b.assembles_in_place()) {
            computed_bytes_.resize(n);
            b.computed_bytes(project_rows_.rows, values_.data(), n, computed_bytes_.data());
        }
    } catch (...) {  // EvalError, or anything else: the row-by-row transform says whose and why
        return first;
    }
    // 4. The rows, a row at a time (writing a field of every row in turn misses the cache): over
    //    the input row itself when the projection allows it and its buffer has room (no buffer
    //    taken, none retired, and its bytes are still in the cache), else into a spare or new
    //    buffer. An event changes once all its rows are written. Writing a new buffer fails only
    //    past 4 GiB (or out of memory), before any of the event's rows is rewritten: that event,
    //    unchanged, and the rest then go one by one.
    std::vector<std::string>* spare = buffers_ ? &buffers_->spare : nullptr;
    std::size_t next = 0;
    const bool computed = b.computed_count() > 0;  // else values_ is empty: no pointer into it
    const bool compacts = b.compacts_in_place();
    const bool in_place = b.assembles_in_place() || identity || compacts;
    (in_place ? rows_in_place_ : rows_need_spares_) = true;
    for (std::size_t k = first; k < last; ++k) {
        DataChangeEvent& e = data(k);
        const auto action = static_cast<RunAction>(actions_[k - first]);
        if (action == kDrop) continue;
        if (identity) {  // every row of the run is its own projection (step 2)
            finish(e, action, st, out);
            continue;
        }
        // The rows this event's projection replaces: an update's old and new, else one.
        std::optional<Row>* targets[2] = {nullptr, nullptr};
        switch (action) {
            case kProjectAfter:
            case kAfterOnly:
                targets[0] = &e.after;
                break;
            case kProjectBefore:
            case kBeforeOnly:
                targets[0] = &e.before;
                break;
            default:
                targets[0] = &e.before;
                targets[1] = &e.after;
                break;
        }
        const std::size_t count = targets[1] ? 2 : 1;
        std::size_t sizes[2] = {0, 0};  // nonzero: written over the input row's own bytes
        Row projected[2];
        try {  // every write that may fail comes before any that changes the event
            for (std::size_t t = 0; t < count; ++t) {
                const std::size_t i = next + t;
                Datum* const v = computed ? values_.data() + i : nullptr;
                if (compacts)
                    sizes[t] = b.compact_size((*targets[t])->bytes(), v, n, ctx_.arena);
                else if (in_place)
                    sizes[t] = b.in_place_size((*targets[t])->bytes(), computed_bytes_[i]);
                if (sizes[t] == 0) projected[t] = b.assemble(project_rows_.rows[i], v, n, spare);
            }
        } catch (...) {
            return k;
        }
        for (std::size_t t = 0; t < count; ++t) {
            const Datum* const v = computed ? values_.data() + next + t : nullptr;
            if (sizes[t] && compacts)
                b.compact_in_place((*targets[t])->bytes_for_rewrite(), sizes[t], v, n);
            else if (sizes[t])
                b.assemble_in_place((*targets[t])->bytes_for_rewrite(), sizes[t], v, n);
            else
                replace(*targets[t], std::move(projected[t]));
        }
        next += count;
        finish(e, action, st, out);
    }
    return last;
}

void TransformOperator::finish(DataChangeEvent& e, std::uint8_t action, const TableState& st,
                               EventBatch& out) {
    if (action == kBeforeOnly) {
        e.op = OpType::Delete;
        retire(e.after);
    } else if (action == kAfterOnly) {
        e.op = OpType::Insert;
        retire(e.before);
    }
    emit(e, st, out);
}

void TransformOperator::emit(DataChangeEvent& e, const TableState& st, EventBatch& out) {
    if (st.rule->parsed.soft_delete && e.op == OpType::Delete) {
        e.op = OpType::Insert;
        e.after = std::move(e.before);
        e.before.reset();
    }
    if (compacting_) {
        kept_.push_back(&e);  // stays where it is
        return;
    }
    // In place: push_back(Event) would move the event twice (into a temporary, then the vector).
    out.emplace_back(std::in_place_type<DataChangeEvent>, std::move(e));
}

void TransformOperator::process_in_place(EventBatch& batch, RowBuffers* buffers) {
    EventBatch none;  // data changes never add events
    kept_.clear();
    compacting_ = true;
    try {
        process(batch, none, buffers);
    } catch (...) {
        compacting_ = false;
        throw;
    }
    compacting_ = false;
    if (!none.empty()) throw std::logic_error("process_in_place: a batch of data changes only");
    // The kept events forward over the dropped ones, whose rows are handed back first.
    std::size_t kept = 0, next = 0;
    for (std::size_t k = 0; k < batch.size(); ++k) {
        auto* data = std::get_if<DataChangeEvent>(&batch[k]);
        if (next < kept_.size() && data == kept_[next]) {
            ++next;
            // Both hold a data change: assigned as one, without the variant's dispatch.
            if (kept != k) std::get<DataChangeEvent>(batch[kept]) = std::move(*data);
            ++kept;
        } else if (data && buffers) {
            if (data->before) buffers->dropped.push_back(std::move(*data->before));
            if (data->after) buffers->dropped.push_back(std::move(*data->after));
        }
    }
    batch.erase(batch.begin() + static_cast<std::ptrdiff_t>(kept), batch.end());
}

void TransformOperator::retire(std::optional<Row>& row) {
    if (buffers_ && row) buffers_->retired.push_back(std::move(*row));
    row.reset();
}

void TransformOperator::replace(std::optional<Row>& row, Row&& projected) {
    row_size_hint_ = std::max(row_size_hint_, projected.bytes().size());
    if (buffers_) buffers_->retired.push_back(std::move(*row));
    row = std::move(projected);
}

void TransformOperator::on_schema_change(Event& ev, TableState& st, EventBatch& out) {
    auto sc = as_schema_change(ev);
    if (std::holds_alternative<DropTableEvent>(*sc) ||
        std::holds_alternative<TruncateTableEvent>(*sc) ||
        std::holds_alternative<AlterTableCommentEvent>(*sc)) {
        out.push_back(std::move(ev));
        return;
    }
    TableId table = table_of(*sc);
    Schema old_out = st.bound->output();
    Schema next;
    try {
        next = apply_schema_change(st.upstream, *sc);
    } catch (const SchemaChangeError& err) {
        throw TransformError("transform of table " + table.str() + ": " + err.what());
    }
    st.upstream = next;
    st.bound = bind(*st.rule, table, st.upstream);
    const Schema& new_out = st.bound->output();
    bool star = st.rule->parsed.has_star;
    if (auto* add = std::get_if<AddColumnEvent>(&*sc)) {
        if (!star) return;
        AddColumnEvent r{table, {}};
        const auto& cols = new_out.columns();
        for (std::size_t i = 0; i < cols.size(); ++i) {
            if (old_out.find(cols[i].name)) continue;
            ColumnWithPosition c;
            c.column = cols[i];
            if (i == 0) {
                c.position = cols.size() > 1 ? ColumnWithPosition::Position::Before
                                             : ColumnWithPosition::Position::First;
                if (cols.size() > 1) c.existed_column = cols[1].name;
            } else {
                c.position = ColumnWithPosition::Position::After;
                c.existed_column = cols[i - 1].name;
            }
            r.added.push_back(std::move(c));
        }
        (void)add;
        if (!r.added.empty()) out.push_back(Event(std::move(r)));
        return;
    }
    if (auto* drop = std::get_if<DropColumnEvent>(&*sc)) {
        if (!star) return;
        DropColumnEvent r{table, {}};
        for (const auto& n : drop->dropped)
            if (old_out.find(n) && !new_out.find(n)) r.dropped.push_back(n);
        if (!r.dropped.empty()) out.push_back(Event(std::move(r)));
        return;
    }
    if (auto* ren = std::get_if<RenameColumnEvent>(&*sc)) {
        if (!star) return;
        RenameColumnEvent r{table, {}};
        for (const auto& [from, to] : ren->renames)
            if (old_out.find(from) && new_out.find(to) && !new_out.find(from))
                r.renames.emplace_back(from, to);
        if (!r.renames.empty()) out.push_back(Event(std::move(r)));
        return;
    }
    if (std::holds_alternative<AlterColumnTypeEvent>(*sc)) {
        AlterColumnTypeEvent r{table, {}, {}, {}};
        for (const auto& c : new_out.columns()) {
            const Column* o = old_out.find(c.name);
            if (o && o->type != c.type) {
                r.new_types.emplace_back(c.name, c.type);
                r.old_types.emplace_back(c.name, o->type);
            }
        }
        if (!r.new_types.empty()) out.push_back(Event(std::move(r)));
        return;
    }
}

void TransformOperator::process(EventBatch& in, EventBatch& out, RowBuffers* buffers) {
    buffers_ = buffers;
    row_size_hint_ = 0;
    rows_in_place_ = false;
    rows_need_spares_ = false;
    // One instant per batch, read on first use: a batch is transformed within a millisecond or
    // so, and a clock read per event cost ~7% of a transform using LOCALTIMESTAMP.
    ++ctx_.batch;
    if (fixed_now_) {
        ctx_.now_millis = *fixed_now_;
        ctx_.now_pending = false;
    } else {
        ctx_.now_pending = true;
    }
    if (!compacting_) out.reserve(out.size() + in.size());  // in place, nothing goes to `out`
    // Runs of data change events of one table, at most this many at once, are transformed
    // column-at-a-time; an update has two rows.
    constexpr std::size_t kRunEvents = BatchRows::kMaxRows / 2;
    // Returns the end of the run it transformed.
    auto data_run = [&](std::size_t k, TableState& st) {
        std::size_t end = k + 1;
        if (in_batches_ && st.bound->evaluates_in_batches()) {
            const TableId table = std::get<DataChangeEvent>(in[k]).table;
            while (end < in.size() && end - k < kRunEvents) {
                const auto* next = std::get_if<DataChangeEvent>(&in[end]);
                if (!next || next->table != table) break;
                ++end;
            }
            if (end - k > 1) k = transform_together(in, k, end, st, out);
        }
        for (std::size_t j = k; j < end; ++j) {
            prefetch_rows_ahead(in, j);
            on_data_or_bad_record(std::get<DataChangeEvent>(in[j]), st, out);
        }
        return end;
    };
    for (std::size_t k = 0; k < in.size(); ++k) {
        Event& ev = in[k];
        if (auto* data = std::get_if<DataChangeEvent>(&ev)) {
            // Runs of events of one table: its state is looked up once per run.
            if (data->table == last_table_ && last_state_) {
                k = data_run(k, *last_state_) - 1;
                continue;
            }
        }
        // The rows were written on another thread: start fetching those of a later event.
        prefetch_rows_ahead(in, k);
        TableId table = table_of(ev);
        auto it = tables_.find(table);
        if (it == tables_.end()) {
            if (auto* create = std::get_if<CreateTableEvent>(&ev)) {
                const Rule* r = rule_for(table);
                if (!r) {
                    track_unselected(ev);
                    out.push_back(std::move(ev));
                    continue;
                }
                TableState st;
                st.rule = r;
                st.upstream = create->schema;
                st.bound = bind(*r, table, st.upstream);
                Schema output = st.bound->output();
                tables_.emplace(table, std::move(st));
                out.push_back(Event(CreateTableEvent{table, std::move(output)}));
                continue;
            }
            if (!is_data_change(ev)) track_unselected(ev);
            if (auto* data = std::get_if<DataChangeEvent>(&ev); data && compacting_) {
                kept_.push_back(data);
                continue;
            }
            out.push_back(std::move(ev));  // unmatched (or not yet created) table: untouched
            continue;
        }
        TableState& st = it->second;
        if (std::holds_alternative<DataChangeEvent>(ev)) {
            last_table_ = table;  // unordered_map elements keep their address until erased
            last_state_ = &st;
            k = data_run(k, st) - 1;
            continue;
        }
        if (auto* create = std::get_if<CreateTableEvent>(&ev)) {
            st.upstream = create->schema;
            st.bound = bind(*st.rule, table, st.upstream);
            out.push_back(Event(CreateTableEvent{table, st.bound->output()}));
        } else {
            on_schema_change(ev, st, out);
        }
    }
}

void TransformOperator::track_unselected(const Event& e) {
    TableId table = table_of(e);
    if (const auto* create = std::get_if<CreateTableEvent>(&e)) {
        unselected_.insert_or_assign(table, create->schema);
        return;
    }
    auto it = unselected_.find(table);
    if (it == unselected_.end()) return;
    if (std::holds_alternative<DropTableEvent>(e)) {
        unselected_.erase(it);
        return;
    }
    try {
        it->second = apply_schema_change(it->second, *as_schema_change(e));
    } catch (const SchemaChangeError&) {
        unselected_.erase(it);  // unknown rather than wrong
    }
}

void TransformOperator::restore_unselected(
    const std::vector<std::pair<TableId, Schema>>& upstream) {
    for (const auto& [table, schema] : upstream)
        if (!rule_for(table)) unselected_.insert_or_assign(table, schema);
}

const Schema* TransformOperator::upstream_schema(TableId table) const {
    if (auto it = tables_.find(table); it != tables_.end()) return &it->second.upstream;
    if (auto it = unselected_.find(table); it != unselected_.end()) return &it->second;
    return nullptr;
}

std::string TransformOperator::snapshot_state() const {
    TableSchemas tables;
    for (const auto& [id, st] : tables_) tables.emplace_back(id, st.upstream);
    std::sort(tables.begin(), tables.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    return table_schemas_to_json(tables);
}

void TransformOperator::restore(std::string_view state) {
    last_state_ = nullptr;
    tables_.clear();
    unselected_.clear();
    if (state.empty()) return;
    for (auto& [id, schema] : table_schemas_from_json(state)) {
        const Rule* r = rule_for(id);
        if (!r) continue;
        TableState st;
        st.rule = r;
        st.upstream = std::move(schema);
        st.bound = bind(*r, id, st.upstream);
        tables_.emplace(id, std::move(st));
    }
}

}  // namespace cdcd::transform
