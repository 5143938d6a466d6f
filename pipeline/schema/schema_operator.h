#pragma once
// The schema operator: Flink CDC's regular SchemaOperator and SchemaCoordinator in one object.
// It keeps every upstream (post-transform) schema and every evolved sink schema, routes events,
// derives and applies sink-side schema changes, and coerces data to the evolved schemas.
#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pipeline/connector/sink.h"
#include "pipeline/connector/stream.h"
#include "pipeline/data/time_zone.h"
#include "pipeline/route/router.h"
#include "pipeline/schema/row_coercion.h"
#include "pipeline/schema/schema_change_filter.h"
#include "pipeline/schema/unchanged_routes.h"

namespace cdcd {

/// The pipeline must fail: a schema change cannot be derived, applied or tolerated, or data
/// cannot be coerced.
struct SchemaEvolveError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class SchemaOperator {
  public:
    /// The runtime dispatches `pending` (events produced so far, in order) to the sink writers,
    /// waits until every writer has flushed, and clears `pending`. Called before schema changes
    /// are applied through the MetadataApplier (Flink's FlushEvent); `change` is the first of
    /// them (the runtime bounds the flush and the apply by schema-operator.rpc-timeout).
    using FlushWriters = std::function<boost::asio::awaitable<void>(
        EventBatch& pending, const SchemaChangeEvent& change)>;

    /// `local_time_zone` as in `pipeline.local-time-zone` (ZoneId syntax); throws
    /// std::invalid_argument when unknown.
    SchemaOperator(Router router, SchemaChangeBehavior behavior, SchemaChangeFilter filter,
                   MetadataApplier& applier, FlushWriters flush_writers,
                   const std::string& local_time_zone);

    /// Post-transform upstream events in (consumed; `in` is left empty), sink-side events
    /// appended to `out` in order.
    boost::asio::awaitable<void> process(EventBatch& in, EventBatch& out);

    const Schema* sink_schema(TableId sink_table) const;
    /// Every evolved sink table with its schema, in first-seen order (handed to writers on
    /// restore).
    std::vector<std::pair<TableId, Schema>> sink_schemas() const;
    const Schema* upstream_schema(TableId upstream) const;
    /// Every upstream table with its schema, in first-seen order.
    std::vector<std::pair<TableId, Schema>> upstream_schemas() const;

    /// Counts the schema changes handled and restores: routes change only when it does.
    std::uint64_t schema_version() const { return schema_version_; }
    /// The routes of the upstream tables known now whose data reaches one sink table unchanged.
    std::shared_ptr<const UnchangedRoutes> unchanged_routes();

    /// Upstream and evolved schemas as JSON: {"upstream":[...],"evolved":[...]} (schema_json).
    std::string snapshot_state() const;
    /// Replaces every known schema with a snapshot_state() string; throws SchemaEvolveError.
    void restore(std::string_view state);

  private:
    using SchemaPtr = std::shared_ptr<const Schema>;
    struct SchemaMap {
        std::unordered_map<TableId, SchemaPtr> by_table;
        std::vector<TableId> order;  // first-seen order, for deterministic merges and snapshots
        const SchemaPtr* find(TableId t) const;
        void put(TableId t, Schema schema);
    };
    struct PairHash {
        std::size_t operator()(const std::pair<TableId, TableId>& p) const {
            return p.first.hash() * 31 + p.second.hash();
        }
    };
    struct CachedCoercion {
        SchemaPtr upstream, sink;  // the versions the coercion was built for
        std::shared_ptr<const RowCoercion> coercion;
    };

    // The targets of the last upstream table routed, with their coercions: runs of events of
    // one table skip four hash lookups per event. Any schema change or restore clears it.
    struct RouteTarget {
        TableId sink;
        std::shared_ptr<const RowCoercion> coercion;
    };
    struct LastRoute {
        bool valid = false;
        TableId upstream;
        std::vector<RouteTarget> targets;
    };

    void route_data(DataChangeEvent&& event, EventBatch& out);
    /// Routes `event` where it is when its table goes to one sink table; false (and `event`
    /// untouched) otherwise.
    bool route_in_place(DataChangeEvent& event);
    void fill_last_route(TableId upstream);
    const std::shared_ptr<const RowCoercion>& coercion_for(TableId upstream, TableId sink,
                                                           const SchemaPtr& up,
                                                           const SchemaPtr& evolved);
    boost::asio::awaitable<void> handle_schema_change(SchemaChangeEvent event, EventBatch& out);
    std::vector<SchemaChangeEvent> deduce(const SchemaChangeEvent& event, TableId upstream);
    /// The upstream tables routed to `sink`, in first-seen order.
    std::vector<TableId> dependencies_of(TableId sink) const;
    /// Many-to-one: the changes that widen `sink` (nullptr: not created yet) until the schema of
    /// every one of `dependencies` fits.
    std::vector<SchemaChangeEvent> widen_to_fit(TableId sink, const Schema* current,
                                                const std::vector<TableId>& dependencies) const;
    /// Under EXCEPTION, throws at the first of `deduced` that is not a CreateTableEvent
    /// (`why` ends the message).
    void refuse_in_exception_mode(const std::vector<SchemaChangeEvent>& deduced,
                                  const std::string& why) const;
    /// After a restore: the sink tables the routes now name that the checkpoint does not know
    /// (the pipeline's routes changed between the runs) are created from the upstream schemas,
    /// and a sink table that more upstream tables now merge into is widened, as their
    /// CreateTableEvents would have done; the source does not send those again.
    boost::asio::awaitable<void> derive_sink_tables_of_changed_routes(EventBatch& out);
    /// Flushes the writers, then applies `deduced` to the sink and the evolved schemas, and
    /// appends each applied change to `out`.
    boost::asio::awaitable<void> apply_to_sink(std::vector<SchemaChangeEvent> deduced,
                                               EventBatch& out);
    std::vector<SchemaChangeEvent> normalize(const Schema* old_schema,
                                             std::vector<SchemaChangeEvent> raw) const;

    Router router_;
    SchemaChangeBehavior behavior_;
    SchemaChangeFilter filter_;
    MetadataApplier& applier_;
    FlushWriters flush_writers_;
    TimeZone zone_;
    SchemaMap upstream_;
    SchemaMap evolved_;
    std::unordered_map<std::pair<TableId, TableId>, CachedCoercion, PairHash> coercions_;
    LastRoute last_route_;
    std::uint64_t schema_version_ = 0;
    bool routes_checked_ = true;  // false after a restore, until the first batch
};

/// SchemaUtils#isSchemaChangeEventRedundant, except that a CreateTableEvent is redundant only
/// when the table is already known with exactly that schema.
bool is_schema_change_redundant(const Schema* current, const SchemaChangeEvent& event);

}  // namespace cdcd
