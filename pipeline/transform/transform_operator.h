#pragma once
// The transform stage: per-table projection, filter and converters of Flink CDC's
// PreTransformOperator + PostTransformOperator, in one operator.
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "config/diagnostics.h"
#include "config/pipeline_def.h"
#include "pipeline/connector/bad_records.h"
#include "pipeline/connector/stream.h"
#include "pipeline/connector/transform_functions.h"
#include "pipeline/route/selectors.h"
#include "pipeline/transform/compile/compiler.h"
#include "pipeline/transform/compile/projection.h"

namespace cdcd::transform {

/// A transform that cannot run: unknown column/function, bad types (when the schema arrives),
/// or a failing expression on a row (message names the rule, table, key and expression).
struct TransformError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// A failing expression on one row: the bad-record policy decides (see set_bad_records).
struct RowEvaluationError : TransformError {
    RowEvaluationError(const std::string& message, std::string position, std::string error,
                       std::string row_json)
        : TransformError(message),
          position(std::move(position)),
          error(std::move(error)),
          row_json(std::move(row_json)) {}
    std::string position;  // "transform at pipeline.yaml:12:5, table db.t, row with primary key …"
    std::string error;     // the expression and what went wrong
    std::string row_json;  // {"table":…,"op":…,"row":{…}}: the row that failed, as JSON
};

class TransformOperator {
  public:
    // Parses every rule (syntax errors, bad selectors, unknown converter → diags with the YAML
    // line:column of the projection/filter plus the column inside the expression).
    static std::unique_ptr<TransformOperator> create(
        const std::vector<config::TransformDef>& rules, const std::string& local_time_zone,
        config::Diagnostics& diags, std::vector<SourceMetadataColumn> source_metadata = {},
        DecimalPrecisionMode decimal_mode = DecimalPrecisionMode::UpTo19,
        TransformFunctions functions = {});
    /// Row memory exchanged with a caller that runs the operator on a thread of its own, so that
    /// rows are allocated and freed on the caller's thread (freeing memory another thread
    /// allocated is slow): the operator writes projected rows into `spare` buffers when one is
    /// large enough, and moves the input rows that projected rows replace to `retired`, and
    /// (process_in_place) the rows of the events it drops to `dropped`.
    struct RowBuffers {
        std::vector<std::string> spare;
        std::vector<Row> retired;
        std::vector<Row> dropped;
    };
    // Upstream events in, transformed events out, same order.
    void process(EventBatch& in, EventBatch& out, RowBuffers* buffers = nullptr);
    /// As process(), for a batch of data changes only, transformed where it is: the events kept
    /// take the front of `batch` in order, and the batch is cut to them, so the caller gets back
    /// the vector (and the event objects) it sent instead of a new one. The rows of the events
    /// dropped (filter, bad-record policy) go to `buffers->dropped` (with no buffers, freed).
    void process_in_place(EventBatch& batch, RowBuffers* buffers = nullptr);
    /// The largest projected row of the last process() call (0 when it projected none): the
    /// capacity spare buffers need.
    std::size_t row_size_hint() const { return row_size_hint_; }
    /// Whether the last process() call wrote projected rows over their own input rows where a
    /// row's buffer had room (BoundProjection::assemble_in_place): the caller then needs no
    /// spare buffers, and does best to hand the source buffers with room for projected rows.
    /// Rows without room were written into spares or new buffers, and their input retired.
    /// False when any row of that call was projected by a rule that never writes in place (a
    /// projection that is not `*` first): it needs the spares.
    bool rows_in_place() const { return rows_in_place_ && !rows_need_spares_; }
    std::string snapshot_state() const;  // upstream schemas per table
    /// The schema `table` had as the source emitted it, as of the events processed so far (for
    /// `cdcd tap` at the source point); nullptr when unknown. A table no rule selects is known
    /// from its CreateTableEvent on, and across a restore through restore_unselected().
    const Schema* upstream_schema(TableId table) const;
    void restore(std::string_view state);
    /// After a restore: the schemas of the tables no rule selects, which its state does not keep
    /// (the transform passes them untouched, so the schema operator's upstream schemas are
    /// theirs), for upstream_schema().
    void restore_unselected(const std::vector<std::pair<TableId, Schema>>& upstream);

    /// Binds the rule that selects `table` to `schema` now (validate-time check); throws
    /// TransformError.
    void check_schema(TableId table, const Schema& schema) const;
    /// The same, reporting a failure to `diags` at the expression's YAML position (false then).
    bool check_schema(TableId table, const Schema& schema, config::Diagnostics& diags) const;

    /// Every event from now on reads the clock (NOW(), LOCALTIMESTAMP, ...) as this instant, in
    /// milliseconds since the epoch: `cdcd test` cases that expect values computed from it.
    void fix_clock(std::int64_t epoch_millis) { fixed_now_ = epoch_millis; }

    /// Off: every row is evaluated on its own, never column-at-a-time with the rows around it
    /// (compile/batch.h). The results are the same; tests compare the two.
    void evaluate_in_batches(bool on) { in_batches_ = on; }

    /// Where rows whose expression fails go (the pipeline's bad-record policy); without one (or
    /// under `fail`) process() throws the RowEvaluationError. Otherwise the event is handed
    /// over and dropped, and the batch goes on.
    void set_bad_records(BadRecordSink* sink) {
        bad_records_ = sink && sink->policy() != BadRecordPolicy::Fail ? sink : nullptr;
    }

  private:
    struct Rule {
        config::TransformDef def;
        std::unique_ptr<Selectors> selectors;
        ParsedRule parsed;
    };
    struct TableState {
        const Rule* rule = nullptr;
        Schema upstream;
        std::unique_ptr<BoundProjection> bound;
    };

    // Where and why a rule does not bind to a schema.
    struct BindFailure {
        config::SourceLocation where;
        std::string message;
    };

    const Rule* rule_for(TableId t) const;
    // Throws TransformError when the rule does not bind, unless `failure` is given: then it is
    // filled and nullptr returned.
    std::unique_ptr<BoundProjection> bind(const Rule& rule, TableId table, const Schema& schema,
                                          BindFailure* failure = nullptr) const;
    void on_schema_change(Event& e, TableState& st, EventBatch& out);
    // Follows the schema of a table no rule selects (only upstream_schema() reads it).
    void track_unselected(const Event& e);
    void on_data(DataChangeEvent& e, TableState& st, EventBatch& out);
    // on_data, with a failing row handed to the bad-record policy (when it is not `fail`).
    void on_data_or_bad_record(DataChangeEvent& e, TableState& st, EventBatch& out);
    // Column-at-a-time (compile/batch.h): data change events [first, last) of one table, whose
    // rows number at most BatchRows::kMaxRows, filtered and projected together. Returns the
    // first event it left as it was (`last` when none): when a row fails, the caller transforms
    // the rest one by one, which fails exactly that row, with its message and its bad-record
    // handling.
    std::size_t transform_together(EventBatch& in, std::size_t first, std::size_t last,
                                   TableState& st, EventBatch& out);
    // Hands a transformed event on (as an insert under SOFT_DELETE when it deletes).
    void emit(DataChangeEvent& e, const TableState& st, EventBatch& out);
    /// An event of a run whose rows are projected: turned into what `action` (a RunAction of
    /// transform_together) says, then emitted.
    void finish(DataChangeEvent& e, std::uint8_t action, const TableState& st, EventBatch& out);
    // Drops an image the transform does not pass on, retiring its row (see process()).
    void retire(std::optional<Row>& row);
    // Replaces `row` by its projection, retiring the input row (see process()).
    void replace(std::optional<Row>& row, Row&& projected);
    [[noreturn]] void runtime_error(const TableState& st, const DataChangeEvent& e, RowView row,
                                    const std::string& what) const;

    std::vector<Rule> rules_;
    std::shared_ptr<const Zone> zone_;
    DecimalPrecisionMode decimal_mode_ = DecimalPrecisionMode::UpTo19;
    std::vector<SourceMetadataColumn> source_metadata_;
    TransformFunctions functions_;  // the pipeline's connector functions (FETCH_CONTENT, ...)
    std::unordered_map<TableId, TableState> tables_;
    std::unordered_map<TableId, Schema> unselected_;  // tables no rule selects
    TableId last_table_;                              // the table of the last data change event
    TableState* last_state_ = nullptr;  // its state in tables_ (cleared when tables_ is)
    EvalContext ctx_;
    std::optional<std::int64_t> fixed_now_;  // fix_clock()
    RowBuffers* buffers_ = nullptr;
    std::size_t row_size_hint_ = 0;
    bool rows_in_place_ = false;     // a run was projected by a rule that writes in place
    bool rows_need_spares_ = false;  // a row was projected by one that does not
    // process_in_place(): the events kept, in order, instead of moved into an output batch.
    bool compacting_ = false;
    std::vector<const DataChangeEvent*> kept_;
    BadRecordSink* bad_records_ = nullptr;  // set only when the policy goes on (skip, dead-letter)
    // transform_together()'s working space, kept from batch to batch.
    bool in_batches_ = true;
    BatchRows filter_rows_, project_rows_;
    BatchScratch scratch_;
    std::vector<std::uint32_t> all_rows_;  // 0, 1, 2, ...
    std::vector<std::uint8_t> actions_;    // per event
    bool pass_[BatchRows::kMaxRows] = {};  // the filter's verdict per filtered row
    std::vector<Datum> values_;
    std::vector<std::size_t> computed_bytes_;  // BoundProjection::computed_bytes of the rows
};

}  // namespace cdcd::transform
