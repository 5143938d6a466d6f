#include "pipeline/schema/schema_operator.h"

#include <simdjson.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "pipeline/event/event_format.h"
#include "pipeline/schema/schema_change_apply.h"
#include "pipeline/schema/schema_json.h"
#include "pipeline/types/type_merging.h"

namespace cdcd {

namespace {

TimeZone zone_or_throw(const std::string& id) {
    std::string error;
    auto zone = TimeZone::of(id, &error);
    if (!zone) throw std::invalid_argument("pipeline.local-time-zone: " + error);
    return *zone;
}

template <typename T>
bool has(const std::vector<T>& v, const T& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

// SchemaDerivator#lenientizeSchemaChangeEvent.
void lenientize(const Schema* old_schema, SchemaChangeEvent event,
                std::vector<SchemaChangeEvent>& out) {
    if (auto* add = std::get_if<AddColumnEvent>(&event)) {
        AddColumnEvent lenient{add->table, {}};
        for (const auto& c : add->added) {
            Column col = c.column;
            col.type = col.type.with_nullable(true);
            lenient.added.push_back({std::move(col), ColumnWithPosition::Position::Last, {}});
        }
        out.emplace_back(std::move(lenient));
        return;
    }
    auto nullable_alter = [](TableId table, std::vector<std::pair<std::string, DataType>> types) {
        return AlterColumnTypeEvent{table, std::move(types), {}, {}};
    };
    if (auto* drop = std::get_if<DropColumnEvent>(&event)) {
        std::vector<std::pair<std::string, DataType>> types;
        for (const auto& name : drop->dropped) {
            const Column* col = old_schema ? old_schema->find(name) : nullptr;
            if (col && !col->type.nullable())
                types.emplace_back(name, col->type.with_nullable(true));
        }
        if (!types.empty()) out.emplace_back(nullable_alter(drop->table, std::move(types)));
        return;
    }
    if (auto* rename = std::get_if<RenameColumnEvent>(&event)) {
        AddColumnEvent add{rename->table, {}};
        std::vector<std::pair<std::string, DataType>> types;
        for (const auto& [from, to] : rename->renames) {
            const Column* col = old_schema ? old_schema->find(from) : nullptr;
            if (col == nullptr)
                throw SchemaEvolveError("Non-existed column " + from + " in evolved schema of " +
                                        rename->table.str());
            if (!col->type.nullable()) types.emplace_back(from, col->type.with_nullable(true));
            Column added = *col;
            added.name = to;
            added.type = col->type.with_nullable(true);
            add.added.push_back({std::move(added), ColumnWithPosition::Position::Last, {}});
        }
        out.emplace_back(std::move(add));
        if (!types.empty()) out.emplace_back(nullable_alter(rename->table, std::move(types)));
        return;
    }
    out.push_back(std::move(event));
}

std::string describe(const SchemaChangeEvent& e) {
    return format_schema_change(e);
}

}  // namespace

bool is_schema_change_redundant(const Schema* current, const SchemaChangeEvent& event) {
    struct Visitor {
        const Schema* s;
        bool operator()(const CreateTableEvent& e) const { return s && *s == e.schema; }
        bool operator()(const AddColumnEvent& e) const {
            if (!s) return false;
            return std::all_of(e.added.begin(), e.added.end(), [&](const ColumnWithPosition& c) {
                return has(s->columns(), c.column);
            });
        }
        bool operator()(const AlterColumnTypeEvent& e) const {
            if (!s) return false;
            for (const auto& [name, type] : e.new_types) {
                const Column* c = s->find(name);
                if (!c || c->type != type) return false;
            }
            return true;
        }
        bool operator()(const DropColumnEvent& e) const {
            if (!s) return false;
            for (const auto& name : e.dropped)
                if (s->find(name)) return false;
            return true;
        }
        bool operator()(const RenameColumnEvent& e) const {
            if (!s) return false;
            for (const auto& [from, to] : e.renames)
                if (s->find(from) || !s->find(to)) return false;
            return true;
        }
        bool operator()(const DropTableEvent&) const { return s == nullptr; }
        bool operator()(const TruncateTableEvent&) const { return false; }
        bool operator()(const AlterTableCommentEvent& e) const {
            return s && s->comment() == e.comment;
        }
    };
    return std::visit(Visitor{current}, event);
}

const SchemaOperator::SchemaPtr* SchemaOperator::SchemaMap::find(TableId t) const {
    auto it = by_table.find(t);
    return it == by_table.end() ? nullptr : &it->second;
}

void SchemaOperator::SchemaMap::put(TableId t, Schema schema) {
    auto [it, inserted] =
        by_table.insert_or_assign(t, std::make_shared<const Schema>(std::move(schema)));
    if (inserted) order.push_back(t);
}

SchemaOperator::SchemaOperator(Router router, SchemaChangeBehavior behavior,
                               SchemaChangeFilter filter, MetadataApplier& applier,
                               FlushWriters flush_writers, const std::string& local_time_zone)
    : router_(std::move(router)),
      behavior_(behavior),
      filter_(filter),
      applier_(applier),
      flush_writers_(std::move(flush_writers)),
      zone_(zone_or_throw(local_time_zone)) {}

std::vector<std::pair<TableId, Schema>> SchemaOperator::sink_schemas() const {
    std::vector<std::pair<TableId, Schema>> out;
    for (TableId t : evolved_.order) {
        if (const SchemaPtr* s = evolved_.find(t)) out.emplace_back(t, **s);
    }
    return out;
}

std::vector<std::pair<TableId, Schema>> SchemaOperator::upstream_schemas() const {
    std::vector<std::pair<TableId, Schema>> out;
    for (TableId t : upstream_.order) {
        if (const SchemaPtr* s = upstream_.find(t)) out.emplace_back(t, **s);
    }
    return out;
}

const Schema* SchemaOperator::sink_schema(TableId sink_table) const {
    auto* p = evolved_.find(sink_table);
    return p ? p->get() : nullptr;
}

const Schema* SchemaOperator::upstream_schema(TableId upstream) const {
    auto* p = upstream_.find(upstream);
    return p ? p->get() : nullptr;
}

boost::asio::awaitable<void> SchemaOperator::process(EventBatch& in, EventBatch& out) {
    if (!routes_checked_) co_await derive_sink_tables_of_changed_routes(out);
    // Most batches are data of tables that each go to one sink table: routed where they are,
    // and the batch handed over whole instead of each event moved.
    std::size_t k = 0;
    if (out.empty())
        while (k < in.size()) {
            auto* data = std::get_if<DataChangeEvent>(&in[k]);
            if (!data || !route_in_place(*data)) break;
            ++k;
        }
    if (k == in.size() && out.empty()) {
        out.swap(in);
        in.clear();
        co_return;
    }
    for (std::size_t i = 0; i < k; ++i) out.push_back(std::move(in[i]));
    for (; k < in.size(); ++k) {
        if (auto* data = std::get_if<DataChangeEvent>(&in[k])) {
            route_data(std::move(*data), out);
        } else {
            co_await handle_schema_change(*as_schema_change(in[k]), out);
        }
    }
    in.clear();
}

const std::shared_ptr<const RowCoercion>& SchemaOperator::coercion_for(TableId upstream,
                                                                       TableId sink,
                                                                       const SchemaPtr& up,
                                                                       const SchemaPtr& evolved) {
    auto& cached = coercions_[{upstream, sink}];
    if (cached.upstream != up || cached.sink != evolved || !cached.coercion) {
        cached.upstream = up;
        cached.sink = evolved;
        cached.coercion = std::make_shared<const RowCoercion>(*up, *evolved, zone_);
    }
    return cached.coercion;
}

void SchemaOperator::fill_last_route(TableId upstream) {
    last_route_.valid = false;
    last_route_.targets.clear();
    const SchemaPtr* up = upstream_.find(upstream);
    if (up == nullptr)
        throw SchemaEvolveError("Data change for table " + upstream.str() +
                                " arrived before its CreateTableEvent: its schema is unknown");
    for (TableId sink : router_.route(upstream)) {
        const SchemaPtr* evolved = evolved_.find(sink);
        if (evolved == nullptr)
            throw SchemaEvolveError("Unable to coerce data record from " + upstream.str() +
                                    " (schema: " + (*up)->to_string() + ") to " + sink.str() +
                                    " (schema: null): the sink table was never created");
        last_route_.targets.push_back(
            RouteTarget{sink, coercion_for(upstream, sink, *up, *evolved)});
    }
    last_route_.upstream = upstream;
    last_route_.valid = true;
}

namespace {

void retarget(DataChangeEvent& routed, TableId sink, const RowCoercion& coercion) {
    routed.table = sink;
    if (!coercion.identity()) {
        if (routed.before) routed.before = coercion.coerce(routed.before->view());
        if (routed.after) routed.after = coercion.coerce(routed.after->view());
    }
}

}  // namespace

std::shared_ptr<const UnchangedRoutes> SchemaOperator::unchanged_routes() {
    auto routes = std::make_shared<UnchangedRoutes>();
    for (TableId upstream : upstream_.order) {
        const std::vector<TableId>& sinks = router_.route(upstream);
        if (sinks.size() != 1) continue;
        const SchemaPtr* up = upstream_.find(upstream);
        const SchemaPtr* evolved = evolved_.find(sinks[0]);
        if (up == nullptr || evolved == nullptr) continue;
        if (coercion_for(upstream, sinks[0], *up, *evolved)->identity())
            routes->add(upstream, sinks[0], *evolved);
    }
    return routes;
}

bool SchemaOperator::route_in_place(DataChangeEvent& event) {
    if (!last_route_.valid || last_route_.upstream != event.table) fill_last_route(event.table);
    if (last_route_.targets.size() != 1) return false;
    retarget(event, last_route_.targets[0].sink, *last_route_.targets[0].coercion);
    return true;
}

void SchemaOperator::route_data(DataChangeEvent&& event, EventBatch& out) {
    if (!last_route_.valid || last_route_.upstream != event.table) fill_last_route(event.table);
    const auto& targets = last_route_.targets;
    if (targets.empty()) return;
    // Earlier targets (ALL_MATCH) take copies; the last takes the event itself.
    for (std::size_t k = 0; k + 1 < targets.size(); ++k) {
        out.emplace_back(std::in_place_type<DataChangeEvent>, event);
        retarget(std::get<DataChangeEvent>(out.back()), targets[k].sink, *targets[k].coercion);
    }
    out.emplace_back(std::in_place_type<DataChangeEvent>, std::move(event));
    retarget(std::get<DataChangeEvent>(out.back()), targets.back().sink, *targets.back().coercion);
}

std::vector<SchemaChangeEvent> SchemaOperator::normalize(const Schema* old_schema,
                                                         std::vector<SchemaChangeEvent> raw) const {
    std::vector<SchemaChangeEvent> rewritten;
    switch (behavior_) {
        case SchemaChangeBehavior::Evolve:
        case SchemaChangeBehavior::TryEvolve:
        case SchemaChangeBehavior::Exception:
            rewritten = std::move(raw);
            break;
        case SchemaChangeBehavior::Lenient:
            for (auto& e : raw) lenientize(old_schema, std::move(e), rewritten);
            break;
        case SchemaChangeBehavior::Ignore:
            for (auto& e : raw)
                if (std::holds_alternative<CreateTableEvent>(e)) rewritten.push_back(std::move(e));
            break;
    }
    std::vector<SchemaChangeEvent> accepted;
    for (auto& e : rewritten) {
        // SchemaChangeEventWithPreSchema#fillPreSchema: old types from the evolved schema.
        if (auto* alter = std::get_if<AlterColumnTypeEvent>(&e);
            alter && alter->old_types.empty() && old_schema) {
            for (const auto& col : old_schema->columns()) {
                for (const auto& [name, type] : alter->new_types) {
                    if (name == col.name) alter->old_types.emplace_back(name, col.type);
                }
            }
        }
        if (filter_.accepts(schema_change_type(e))) {
            accepted.push_back(std::move(e));
        } else {
            spdlog::info("Ignored schema change {}.", describe(e));
        }
    }
    return accepted;
}

std::vector<TableId> SchemaOperator::dependencies_of(TableId sink) const {
    std::vector<TableId> dependencies;
    for (TableId t : upstream_.order)
        if (has(router_.route(t), sink)) dependencies.push_back(t);
    return dependencies;
}

std::vector<SchemaChangeEvent> SchemaOperator::widen_to_fit(
    TableId sink, const Schema* current, const std::vector<TableId>& dependencies) const {
    std::optional<Schema> merged;
    if (current) merged = *current;
    for (TableId t : dependencies)
        merged = least_common_schema(merged ? &*merged : nullptr, **upstream_.find(t));
    return schema_difference(sink, current, *merged);
}

void SchemaOperator::refuse_in_exception_mode(const std::vector<SchemaChangeEvent>& deduced,
                                              const std::string& why) const {
    if (behavior_ != SchemaChangeBehavior::Exception) return;
    for (const auto& e : deduced)
        if (!std::holds_alternative<CreateTableEvent>(e))
            throw SchemaEvolveError(
                "Unexpected schema change events occurred in EXCEPTION mode. Job will fail now. "
                "Table " +
                table_of(e).str() + ", event " + describe(e) + why);
}

std::vector<SchemaChangeEvent> SchemaOperator::deduce(const SchemaChangeEvent& event,
                                                      TableId upstream) {
    std::vector<TableId> affected;
    for (TableId t : router_.route(upstream))
        if (!has(affected, t)) affected.push_back(t);
    std::vector<SchemaChangeEvent> deduced;
    for (TableId sink : affected) {
        const SchemaPtr* current_ptr = evolved_.find(sink);
        const Schema* current = current_ptr ? current_ptr->get() : nullptr;
        std::vector<TableId> dependencies = dependencies_of(sink);
        std::vector<SchemaChangeEvent> raw;
        if (dependencies.size() == 1) {
            raw.push_back(with_table(event, sink));  // one-to-one: forward as-is
        } else {
            raw = widen_to_fit(sink, current, dependencies);
        }
        for (auto& e : normalize(current, std::move(raw))) deduced.push_back(std::move(e));
    }
    return deduced;
}

boost::asio::awaitable<void> SchemaOperator::handle_schema_change(SchemaChangeEvent event,
                                                                  EventBatch& out) {
    last_route_.valid = false;
    ++schema_version_;
    const TableId upstream = table_of(event);
    const SchemaPtr* current_ptr = upstream_.find(upstream);
    const Schema* current = current_ptr ? current_ptr->get() : nullptr;
    if (is_schema_change_redundant(current, event)) {
        spdlog::info("Schema change event {} is redundant for the current schema, skipped.",
                     describe(event));
        co_return;
    }
    if (auto* create = std::get_if<CreateTableEvent>(&event)) {
        upstream_.put(upstream, create->schema);
    } else if (current == nullptr) {
        throw SchemaEvolveError("Unable to apply " + describe(event) + " to table " +
                                upstream.str() + " without an existing schema");
    } else {
        try {
            upstream_.put(upstream, apply_schema_change(*current, event));
        } catch (const SchemaChangeError& e) {
            throw SchemaEvolveError("Unable to apply " + describe(event) + " to upstream table " +
                                    upstream.str() + ": " + e.what());
        }
    }

    std::vector<SchemaChangeEvent> deduced = deduce(event, upstream);
    refuse_in_exception_mode(deduced, "");
    co_await apply_to_sink(std::move(deduced), out);
}

boost::asio::awaitable<void> SchemaOperator::derive_sink_tables_of_changed_routes(EventBatch& out) {
    routes_checked_ = true;
    std::vector<TableId> sinks;
    for (TableId t : upstream_.order)
        for (TableId sink : router_.route(t))
            if (!has(sinks, sink)) sinks.push_back(sink);
    std::vector<SchemaChangeEvent> derived;
    for (TableId sink : sinks) {
        const SchemaPtr* current_ptr = evolved_.find(sink);
        const Schema* current = current_ptr ? current_ptr->get() : nullptr;
        std::vector<TableId> dependencies = dependencies_of(sink);
        if (current && dependencies.size() == 1) continue;  // one-to-one: known as it was
        std::vector<SchemaChangeEvent> raw;
        if (dependencies.size() == 1) {
            raw.emplace_back(CreateTableEvent{sink, **upstream_.find(dependencies[0])});
        } else {
            raw = widen_to_fit(sink, current, dependencies);
        }
        for (auto& e : normalize(current, std::move(raw))) derived.push_back(std::move(e));
    }
    if (derived.empty()) co_return;
    std::string names;
    for (const auto& e : derived) names += (names.empty() ? "" : ", ") + describe(e);
    spdlog::info(
        "The routes changed since the restored checkpoint: the sink tables they name now, from "
        "the upstream schemas: {}",
        names);
    refuse_in_exception_mode(derived,
                             " (the pipeline's routes changed since the restored checkpoint)");
    last_route_.valid = false;
    ++schema_version_;
    co_await apply_to_sink(std::move(derived), out);
}

boost::asio::awaitable<void> SchemaOperator::apply_to_sink(std::vector<SchemaChangeEvent> deduced,
                                                           EventBatch& out) {
    if (deduced.empty()) co_return;
    co_await flush_writers_(out, deduced.front());
    for (auto& e : deduced) {
        const TableId sink = table_of(e);
        // Flink applies to the sink first: a tolerated rejection leaves the evolved schema as is.
        try {
            co_await applier_.apply(e);
        } catch (const UnsupportedSchemaChange& err) {
            if (behavior_ != SchemaChangeBehavior::TryEvolve)
                throw SchemaEvolveError("Failed to apply schema change " + describe(e) +
                                        " to sink table " + sink.str() + ": " + err.what());
            spdlog::warn(
                "Failed to apply schema change {}, but keeps running in tolerant mode. Caused by: "
                "{}",
                describe(e), err.what());
            continue;
        } catch (const std::exception& err) {
            throw SchemaEvolveError("Failed to apply schema change " + describe(e) +
                                    " to sink table " + sink.str() + ": " + err.what());
        }
        const SchemaPtr* evolved_ptr = evolved_.find(sink);
        Schema next;
        if (auto* create = std::get_if<CreateTableEvent>(&e)) {
            next = create->schema;
        } else if (evolved_ptr == nullptr) {
            throw SchemaEvolveError("Applied " + describe(e) + " but sink table " + sink.str() +
                                    " has no known schema");
        } else {
            try {
                next = apply_schema_change(**evolved_ptr, e);
            } catch (const SchemaChangeError& err) {
                throw SchemaEvolveError("Applied " + describe(e) +
                                        " but cannot evolve the schema of sink table " +
                                        sink.str() + ": " + err.what());
            }
        }
        evolved_.put(sink, std::move(next));
        out.push_back(to_event(std::move(e)));
    }
}

std::string SchemaOperator::snapshot_state() const {
    auto collect = [](const SchemaMap& map) {
        TableSchemas tables;
        for (TableId t : map.order) tables.emplace_back(t, **map.find(t));
        return tables;
    };
    std::string out = "{\"upstream\":";
    append_table_schemas_json(out, collect(upstream_));
    out += ",\"evolved\":";
    append_table_schemas_json(out, collect(evolved_));
    out += "}";
    return out;
}

void SchemaOperator::restore(std::string_view state) {
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (parser.parse(state.data(), state.size()).get(root))
        throw SchemaEvolveError("schema operator state is not valid JSON");
    SchemaMap upstream, evolved;
    try {
        for (auto [key, map] : {std::pair{"upstream", &upstream}, std::pair{"evolved", &evolved}}) {
            simdjson::dom::element part;
            if (root[key].get(part))
                throw SchemaEvolveError(std::string("schema operator state has no \"") + key +
                                        "\"");
            for (auto& [table, schema] : table_schemas_from_json(simdjson::minify(part)))
                map->put(table, std::move(schema));
        }
    } catch (const SchemaJsonError& e) {
        throw SchemaEvolveError(std::string("schema operator state is invalid: ") + e.what());
    }
    upstream_ = std::move(upstream);
    evolved_ = std::move(evolved);
    coercions_.clear();
    last_route_.valid = false;
    ++schema_version_;
    routes_checked_ = false;
}

}  // namespace cdcd
