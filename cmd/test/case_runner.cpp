#include "cmd/test/case_runner.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <unordered_map>

#include "cmd/test/row_text.h"
#include "pipeline/event/event_format.h"
#include "pipeline/schema/schema_change_apply.h"
#include "pipeline/schema/schema_operator.h"
#include "pipeline/transform/transform_operator.h"

namespace cdcd::cmd_test {

namespace asio = boost::asio;

namespace {

/// The sink's side of schema evolution when no sink is connected: every change applies.
class AcceptingApplier final : public MetadataApplier {
  public:
    asio::awaitable<void> apply(const SchemaChangeEvent& /*event*/) override { co_return; }
};

/// The pipeline's bad-record policy for the transform: `fail` throws as in a run; `skip` and
/// `dead-letter` drop the record, and the case reports it.
class NotedBadRecords final : public BadRecordSink {
  public:
    NotedBadRecords(BadRecordPolicy policy, std::vector<std::string>& notes)
        : policy_(policy), notes_(notes) {}
    void handle(BadRecord record) override {
        if (policy_ == BadRecordPolicy::Fail)
            throw BadRecordError(bad_record_message("transform", record));
        skip(std::move(record));
    }
    void skip(BadRecord record) override {
        notes_.push_back("bad record skipped (" + record.reason + ", pipeline.bad-record.policy " +
                         to_string(policy_) + "): " + record.position + ": " + record.error);
    }
    BadRecordPolicy policy() const override { return policy_; }

  private:
    BadRecordPolicy policy_;
    std::vector<std::string>& notes_;
};

/// A problem with the case itself (not the pipeline's): it fails whatever it expects.
struct CaseError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// The events of a list of specs, typed by the schemas the list's own schema changes build
/// (`fallback` gives a table's schema when the list has no create event of it).
class EventBuilder {
  public:
    using Fallback = std::function<const Schema*(const TableId&)>;
    explicit EventBuilder(Fallback fallback = {}) : fallback_(std::move(fallback)) {}

    Event build(const EventSpec& spec) {
        const Schema* current = schema_of(spec.table);
        switch (spec.kind) {
            case EventKind::Insert:
            case EventKind::Update:
            case EventKind::Delete: {
                if (!current)
                    throw CaseError(spec.where.to_string() + ": " + event_key(spec.kind) + " " +
                                    spec.table.str() +
                                    ": the table's schema is unknown (a create event of it "
                                    "comes first)");
                auto row = [&](const RowText& text) {
                    try {
                        return build_row(text, *current, spec.table);
                    } catch (const RowTextError& e) {
                        throw CaseError(e.what());
                    }
                };
                if (spec.kind == EventKind::Insert)
                    return DataChangeEvent::insert(spec.table, row(*spec.after), spec.meta);
                if (spec.kind == EventKind::Update)
                    return DataChangeEvent::update(spec.table, row(*spec.before), row(*spec.after),
                                                   spec.meta);
                return DataChangeEvent::remove(spec.table, row(*spec.before), spec.meta);
            }
            default:
                break;
        }
        if (spec.kind != EventKind::Create && !current)
            throw CaseError(spec.where.to_string() + ": " + event_key(spec.kind) + " " +
                            spec.table.str() + ": no create event of the table comes before it");
        SchemaChangeEvent change = to_schema_change(spec, current);
        try {
            Schema next = spec.kind == EventKind::Create ? std::get<CreateTableEvent>(change).schema
                                                         : apply_schema_change(*current, change);
            schemas_.insert_or_assign(spec.table, std::move(next));
        } catch (const std::exception& e) {
            throw CaseError(spec.where.to_string() + ": " + event_key(spec.kind) + " " +
                            spec.table.str() + ": " + e.what());
        }
        return to_event(std::move(change));
    }

    /// The table's schema as of the events built so far (else the fallback's).
    const Schema* schema_of(const TableId& table) const {
        if (auto it = schemas_.find(table); it != schemas_.end()) return &it->second;
        return fallback_ ? fallback_(table) : nullptr;
    }

  private:
    std::unordered_map<TableId, Schema> schemas_;
    Fallback fallback_;
};

void run_on(asio::io_context& io, asio::awaitable<void> task) {
    std::exception_ptr error;
    asio::co_spawn(io, std::move(task), [&error](std::exception_ptr e) { error = std::move(e); });
    io.restart();
    io.run();
    if (error) std::rethrow_exception(error);
}

std::string print(const Event& e, const Schema* schema) {
    if (const auto* data = std::get_if<DataChangeEvent>(&e))
        return schema ? format_data_change(*data, *schema)
                      : "DataChangeEvent{tableId=" + data->table.str() + ", (schema unknown)}";
    return format_schema_change(*as_schema_change(e));
}

}  // namespace

CaseOutcome run_case(const PipelinePlan& plan, const TestCase& tc) {
    CaseOutcome out;
    std::unique_ptr<SchemaOperator> schema_operator;
    try {
        auto transform = plan.make_transform(nullptr);
        NotedBadRecords bad_records(plan.bad_record_policy, out.notes);
        if (transform) transform->set_bad_records(&bad_records);
        if (transform && tc.now_millis) transform->fix_clock(*tc.now_millis);
        AcceptingApplier applier;
        auto print_batch = [&](EventBatch& batch) {
            for (const Event& e : batch) {
                const Schema* schema =
                    is_data_change(e) ? schema_operator->sink_schema(table_of(e)) : nullptr;
                out.actual.push_back(print(e, schema));
            }
            batch.clear();
        };
        // Before a schema change applies, the events before it are printed with the schema they
        // were coerced to.
        schema_operator = std::make_unique<SchemaOperator>(
            plan.make_router(), plan.behavior, plan.schema_change_filter, applier,
            [&print_batch](EventBatch& pending,
                           const SchemaChangeEvent& /*change*/) -> asio::awaitable<void> {
                print_batch(pending);
                co_return;
            },
            plan.settings.local_time_zone);
        asio::io_context io;
        EventBuilder input;
        for (const EventSpec& spec : tc.input) {
            EventBatch in;
            in.push_back(input.build(spec));
            EventBatch transformed;
            if (transform)
                transform->process(in, transformed);
            else
                transformed.swap(in);
            EventBatch sink_side;
            run_on(io, schema_operator->process(transformed, sink_side));
            print_batch(sink_side);
        }
    } catch (const CaseError& e) {
        out.error = std::string("the case is wrong: ") + e.what();
        return out;  // fails whatever it expects
    } catch (const std::exception& e) {
        out.error = e.what();
    }
    if (tc.expect_error) {
        out.passed = !out.error.empty() && out.error.find(*tc.expect_error) != std::string::npos;
        return out;
    }
    try {
        EventBuilder expected([&schema_operator](const TableId& table) {
            return schema_operator ? schema_operator->sink_schema(table) : nullptr;
        });
        for (const EventSpec& spec : tc.expect) {
            Event e = expected.build(spec);
            // A row prints with the schema it was typed with: the expected list's, else the
            // sink's.
            out.expected.push_back(
                print(e, is_data_change(e) ? expected.schema_of(spec.table) : nullptr));
        }
    } catch (const CaseError& e) {
        out.error = std::string("the case is wrong: ") + e.what();
        return out;
    }
    out.passed = out.error.empty() && out.expected == out.actual;
    return out;
}

}  // namespace cdcd::cmd_test
