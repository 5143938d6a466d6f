// A source split into readers (Source::split_readers): reader i runs on writer i's loop, so
// that rows are built on the threads that write them.
//
// A reader's batch whose tables' rows need no schema operator (the loop's UnchangedRoutes: one
// sink table each, no coercion) is routed and partitioned on the reader's own thread and goes
// from there into the writers' channels, as the loop would have sent it, without a trip through
// the loop. Any other batch (a schema change, an unknown table, a coercion, or any while a tap
// is attached) goes to the loop, which routes and partitions it as it does a source's on the
// loop; and the reader sends nothing straight to a writer until the loop has routed it, so that
// the writers have what came before (a schema change applied) first. Each key's changes are in
// one reader (Source::split_readers), which sends them to one writer, in order, either way.
//
// With a transform, each reader has an operator of its own and transforms the batches it routes
// itself before it routes them, on its thread; the batches that go to the loop pass its transform
// stage. The reader's operator sees every schema change the stage's operators see, in the same
// order: the loop posts it to the reader's thread as it sends it into the stage, so before the
// reader hears that its batch has been routed (or gets routes that know a new table). Its rows
// that fail an expression go to the bad-record policy's transform stage of the reader, whose
// dead-letter lines join the checkpoint of the reader's next barrier.
//
// Checkpoints stay aligned. The coordinator asks every reader, on its own thread, to snapshot
// its state and send barrier N; a reader that has sent it holds its next batch until the loop
// has received barrier N from every reader and sent it on to every writer. So nothing a reader
// emits after its barrier reaches the loop or a writer before the barrier does, and the loop
// passes one barrier N on, with the readers' merged states as the source's part of checkpoint
// N, exactly where a source on the loop would have put it.
#include <spdlog/spdlog.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <optional>

#include "pipeline/runtime/partitioner.h"
#include "pipeline/runtime/pipeline_runtime_impl.h"

namespace cdcd {

class PipelineRuntime::Impl::ReaderOutput final : public SourceOutput {
  public:
    /// `transform` (optional): the reader's own operator, and `transform_bad_records` its stage
    /// of the bad-record policy.
    ReaderOutput(Impl& rt, const asio::any_io_executor& executor, std::size_t index,
                 std::shared_ptr<const UnchangedRoutes> routes,
                 transform::TransformOperator* transform = nullptr,
                 BadRecordStage* transform_bad_records = nullptr)
        : rt_(rt),
          executor_(executor),
          index_(index),
          routes_(std::move(routes)),
          transform_(transform),
          transform_bad_records_(transform_bad_records),
          gate_(executor),
          sleeper_(executor) {}

    awaitable<void> emit(EventBatch events) override {
        co_await emit_batch(std::move(events), true);
    }
    /// Through the loop, whose one channel has every schema change a reader sent before it.
    awaitable<void> emit_after_schema_changes(EventBatch events) override {
        co_await emit_batch(std::move(events), false);
    }
    bool stopping() const override { return rt_.stopping.load(); }
    awaitable<void> sleep(std::int64_t millis) override {
        if (rt_.stopping) co_return;
        sleeper_.expires_after(std::chrono::milliseconds(millis));
        co_await sleeper_.async_wait(asio::as_tuple(use_awaitable));
    }
    void request_checkpoint() override {
        asio::post(rt_.io, [&rt = rt_] { rt.checkpoint_now(); });
    }

    /// On the reader's loop: cuts the reader's state (and its transform's dead letters) into
    /// its slots of `cut` and sends barrier `id` to the loop, then holds emit() until release().
    /// While a batch is on its way (emit() waits for the release of the barrier before, a
    /// writer's channel, or the loop), the barrier follows it: the reader's state already counts
    /// that batch, so the batch must reach the writers first.
    awaitable<void> barrier(std::uint64_t id, std::shared_ptr<ReaderCut> cut) {
        if (emitting_) {
            barrier_due_.emplace(id, std::move(cut));
            co_return;
        }
        co_await send_barrier(id, std::move(cut));
    }
    /// On the reader's loop: its state and its transform's dead letters into its slots of `cut`.
    void cut(ReaderCut& cut) {
        cut.states[index_] = rt_.readers[index_]->snapshot_state();
        if (transform_bad_records_)
            cut.dead_letters[index_] = transform_bad_records_->take_pending();
    }
    /// From the loop: schema changes entering the transform stage, for the reader's operator.
    void mirror(std::shared_ptr<const EventBatch> changes) {
        asio::post(executor_, [this, changes = std::move(changes)] {
            if (transform_failed_) return;
            EventBatch copy = *changes;
            EventBatch out;
            try {
                transform_->process(copy, out);
            } catch (const std::exception& e) {
                // The stage's operators fail the pipeline with this error; until then, the
                // loop transforms every batch of this reader.
                transform_failed_ = true;
                spdlog::debug("source reader {}: its transform stopped: {}", index_, e.what());
            }
        });
    }
    /// From the loop: the barrier has reached every writer; emit() goes on.
    void release() {
        asio::post(executor_, [this] {
            held_ = false;
            gate_.cancel();
        });
    }
    /// From the loop: the routes the reader routes its next batches by itself.
    void set_routes(std::shared_ptr<const UnchangedRoutes> routes) {
        asio::post(executor_,
                   [this, routes = std::move(routes)]() mutable { routes_ = std::move(routes); });
    }
    /// From the loop: one of the batches the reader sent it has been routed.
    void routed() {
        asio::post(executor_, [this] {
            --routing_;
            gate_.cancel();
        });
    }
    void wake() {
        asio::post(executor_, [this] { sleeper_.cancel(); });
    }
    /// Events emitted, and those the reader routed itself; read on the loop once the reader has
    /// ended.
    std::uint64_t events() const { return events_; }
    std::uint64_t written() const { return written_; }

  private:
    /// `may_route_here`: the reader may route the batch itself when the loop's routes have its
    /// tables; else the loop routes it.
    awaitable<void> emit_batch(EventBatch events, bool may_route_here) {
        // From here to its end, a barrier asked of the reader waits for this batch: the reader's
        // state already counts it.
        emitting_ = true;
        // Held after this reader's barrier until every writer has it.
        while (held_) co_await wait_at_gate();
        events_ += events.size();
        rt_.count_source_batch(events.size());
        bool here = may_route_here && !transform_failed_ && routed_here(events);
        if (here) {
            // The loop routes this reader's earlier batches first; a schema change among them
            // may change the routes.
            while (routing_ > 0) co_await wait_at_gate();
            here = routed_here(events);
        }
        if (here) {
            co_await write(std::move(events));
        } else {
            ++routing_;
            co_await rt_.send_to_source_channel(StreamElement(std::move(events)), index_);
        }
        emitting_ = false;
        if (barrier_due_) {
            auto [id, due_cut] = std::move(*barrier_due_);
            barrier_due_.reset();
            co_await send_barrier(id, std::move(due_cut));
        }
    }

    awaitable<void> send_barrier(std::uint64_t id, std::shared_ptr<ReaderCut> barrier_cut) {
        cut(*barrier_cut);
        held_ = true;
        // Sent also when the reader has ended: the loop aligns every barrier it injected before
        // it takes the final checkpoint.
        StreamElement marker(Barrier{id});
        co_await rt_.send_to_source_channel(std::move(marker));
    }

    awaitable<void> wait_at_gate() {
        gate_.expires_at(asio::steady_timer::time_point::max());
        co_await gate_.async_wait(asio::as_tuple(use_awaitable));
    }

    /// Whether every event is a data change of a table routes_ has, with no tap attached.
    bool routed_here(const EventBatch& events) const {
        if (rt_.taps.any_attached()) return false;
        std::optional<TableId> known;  // batches usually hold one table's changes
        for (const Event& e : events) {
            const auto* data = std::get_if<DataChangeEvent>(&e);
            if (data == nullptr) return false;
            if (known == data->table) continue;
            if (routes_->sink_of(data->table) == nullptr) return false;
            known = data->table;
        }
        return true;
    }

    /// Transforms the batch (with a transform), routes and partitions it by routes_ and hands
    /// it to the writers, as the loop would.
    awaitable<void> write(EventBatch events) {
        // A failing row throws under `fail` (the reader, and so the pipeline, fails with its
        // message, as the stage would), else goes to the policy and is dropped.
        if (transform_) transform_->process_in_place(events);
        std::optional<TableId> upstream;
        TableId sink;
        std::uint32_t columns = 0;
        for (Event& e : events) {
            auto& data = std::get<DataChangeEvent>(e);
            if (upstream != data.table) {
                upstream = data.table;
                sink = *routes_->sink_of(data.table);
                columns = static_cast<std::uint32_t>(routes_->sink_schema(sink)->size());
            }
            require_width(data.before, columns, sink);
            require_width(data.after, columns, sink);
            data.table = sink;
        }
        written_ += events.size();
        rt_.rm.sink.records_in.inc(events.size());
        std::vector<EventBatch> parts(rt_.writers.size());
        partition_events(events, parts, rt_.plan.partitioning,
                         [this](TableId t) { return routes_->sink_schema(t); });
        // Its own writer's part first: the other writer's thread may be busy for a while.
        for (std::size_t k = 0; k < parts.size(); ++k) {
            std::size_t w = (index_ + k) % parts.size();
            if (parts[w].empty()) continue;
            rt_.rm.sink_batches.inc();
            WriterElement element(std::move(parts[w]));
            co_await rt_.send_to_writer(w, std::move(element));
        }
    }

    // A row goes to the writers as it is, and they read it by its sink table's columns: one of
    // another width (built on a schema the reader's routes do not have yet, the Kafka source's
    // defect of stop 52) would be written by the wrong columns, silently. The reader fails
    // instead, and the pipeline with it; a restart resumes from the last checkpoint.
    [[gnu::always_inline]] void require_width(const std::optional<Row>& row, std::uint32_t columns,
                                              TableId sink) const {
        if (row && row->arity() != columns) [[unlikely]]
            fail_width(row->arity(), columns, sink);
    }
    [[noreturn, gnu::cold, gnu::noinline]] void fail_width(std::size_t width, std::size_t columns,
                                                           TableId sink) const {
        throw std::logic_error("source reader " + std::to_string(index_) + ": a change for " +
                               sink.str() + " has a row of " + std::to_string(width) +
                               " columns where the table has " + std::to_string(columns) +
                               " (a schema change the routes have not seen yet): stopping rather "
                               "than write it by the wrong columns");
    }

    Impl& rt_;
    asio::any_io_executor executor_;
    std::size_t index_;
    std::shared_ptr<const UnchangedRoutes> routes_;  // set on the reader's loop only
    transform::TransformOperator* transform_;        // used on the reader's loop only
    BadRecordStage* transform_bad_records_;
    bool transform_failed_ = false;  // a schema change failed it: the loop transforms all
    asio::steady_timer gate_;        // waited at while held_ or routing_
    asio::steady_timer sleeper_;
    bool held_ = false;
    bool emitting_ = false;
    // A barrier asked for during an emit, sent at its end.
    std::optional<std::pair<std::uint64_t, std::shared_ptr<ReaderCut>>> barrier_due_;
    std::size_t routing_ = 0;  // batches sent to the loop and not routed yet
    std::uint64_t events_ = 0;
    std::uint64_t written_ = 0;
};

bool PipelineRuntime::Impl::start_readers() {
    // Readers pay only where the writers have threads of their own to build rows on. With a
    // transform, each reader transforms its own batches (feeding the one transform stage from
    // readers made the stage set the pace, with rows built on the writers' threads costing it
    // more: GENERATED -> transform -> file at parallelism 2, +13 % wall and CPU). A source that
    // adds functions to expressions (FETCH_CONTENT) has them evaluated on one thread only.
    if (!writer_loops->own_threads()) return false;
    if (transform_stage && plan.source_factory && plan.source_factory->transform_functions)
        return false;
    readers = source->split_readers(writers.size());
    if (readers.empty()) return false;
    if (readers.size() != writers.size())
        throw std::logic_error("source " + plan.definition.source.type + " split into " +
                               std::to_string(readers.size()) + " readers, not " +
                               std::to_string(writers.size()));
    spdlog::info("source readers: {} on the sink writers' threads", readers.size());
    reader_final_cut = std::make_shared<ReaderCut>(readers.size());
    // Those of the restored schemas, if any.
    std::shared_ptr<const UnchangedRoutes> routes = schema_operator->unchanged_routes();
    published_schema_version = schema_operator->schema_version();
    std::vector<BadRecordStage*> transform_stages(readers.size(), nullptr);
    if (transform_stage) {
        // Each starts where the stage's operators start: the restored state, if any.
        for (std::size_t i = 0; i < readers.size(); ++i) {
            auto op = plan.make_transform(source.get());
            if (restored_transform_state) op->restore(*restored_transform_state);
            op->restore_unselected(schema_operator->upstream_schemas());
            transform_stages[i] = &bad_records.add_transform_stage();
            op->set_bad_records(transform_stages[i]);
            reader_transforms.push_back(std::move(op));
        }
        spdlog::info("transform: on each source reader's thread too");
    }
    for (std::size_t i = 0; i < readers.size(); ++i) {
        auto executor = writer_loops->executor(i);
        transform::TransformOperator* op =
            reader_transforms.empty() ? nullptr : reader_transforms[i].get();
        reader_outputs.push_back(
            std::make_unique<ReaderOutput>(*this, executor, i, routes, op, transform_stages[i]));
        auto exit =
            on_exit("source " + plan.definition.source.type + " reader " + std::to_string(i));
        asio::co_spawn(executor, reader_task(i), [this, exit](const std::exception_ptr& e) {
            if (e) post_to_pipeline_loop([exit, e] { exit(e); });
        });
    }
    return true;
}

awaitable<void> PipelineRuntime::Impl::reader_task(std::size_t index) {
    co_await readers[index]->run(*reader_outputs[index]);
    static_cast<ReaderOutput&>(*reader_outputs[index]).cut(*reader_final_cut);
    StreamElement end(EndOfInput{});
    co_await send_to_source_channel(std::move(end));
}

void PipelineRuntime::Impl::inject_reader_barriers(std::uint64_t id) {
    // Each reader writes its slot on its own thread before it sends its barrier; the loop reads
    // them once every reader's barrier has come.
    auto cut = std::make_shared<ReaderCut>(readers.size());
    reader_barriers[id].cut = cut;
    for (std::size_t i = 0; i < readers.size(); ++i) {
        auto exit = on_exit("source " + plan.definition.source.type + " reader " +
                            std::to_string(i) + " at checkpoint " + std::to_string(id));
        auto& output = static_cast<ReaderOutput&>(*reader_outputs[i]);
        asio::co_spawn(writer_loops->executor(i), output.barrier(id, cut),
                       [this, exit](const std::exception_ptr& e) {
                           if (e) post_to_pipeline_loop([exit, e] { exit(e); });
                       });
    }
}

std::vector<StreamElement> PipelineRuntime::Impl::align_readers(StreamElement element) {
    std::vector<StreamElement> passed;
    if (auto* barrier = std::get_if<Barrier>(&element)) {
        auto it = reader_barriers.find(barrier->checkpoint_id);
        if (it == reader_barriers.end() || ++it->second.received < readers.size()) return passed;
        auto& checkpoint = checkpoints[barrier->checkpoint_id];
        checkpoint.source_state = source->merge_reader_states(it->second.cut->states);
        // Bad records a source hands to its policy as it merges (their offsets are in this
        // state) join this checkpoint, as do those of the readers' transforms.
        checkpoint.dead_letters += bad_records.source_stage->take_pending();
        for (const std::string& lines : it->second.cut->dead_letters)
            checkpoint.dead_letters += lines;
        reader_barriers.erase(it);
        passed.push_back(std::move(element));  // the readers go on once it is sent on
    } else if (++readers_ended == readers.size()) {
        source_done = true;  // no barrier is injected from here on
        checkpoint_timer.cancel();
    }
    // After the last reader's end, and once the barriers injected before it have aligned (a
    // reader that has ended still sends them, so every send into the channel is received):
    // the final checkpoint, then the end.
    if (readers_ended < readers.size() || !reader_barriers.empty()) return passed;
    for (auto& output : reader_outputs) {
        events_in += static_cast<ReaderOutput&>(*output).events();
        events_out += static_cast<ReaderOutput&>(*output).written();
    }
    std::uint64_t id = next_checkpoint_id++;
    auto& pending = checkpoints[id];
    pending.source_state = source->merge_reader_states(reader_final_cut->states);
    pending.dead_letters += bad_records.source_stage->take_pending();
    for (const std::string& lines : reader_final_cut->dead_letters) pending.dead_letters += lines;
    pending.final = true;
    passed.emplace_back(Barrier{id});
    passed.emplace_back(EndOfInput{});
    return passed;
}

void PipelineRuntime::Impl::release_readers() {
    for (auto& output : reader_outputs) static_cast<ReaderOutput&>(*output).release();
}

void PipelineRuntime::Impl::reader_batch_routed(std::size_t index) {
    publish_routes();  // posted first: the reader sees the routes its batch made
    static_cast<ReaderOutput&>(*reader_outputs.at(index)).routed();
}

void PipelineRuntime::Impl::publish_routes() {
    if (schema_operator->schema_version() == published_schema_version) return;
    published_schema_version = schema_operator->schema_version();
    std::shared_ptr<const UnchangedRoutes> routes = schema_operator->unchanged_routes();
    for (auto& output : reader_outputs) static_cast<ReaderOutput&>(*output).set_routes(routes);
}

void PipelineRuntime::Impl::mirror_schema_changes(const EventBatch& batch) {
    if (reader_transforms.empty()) return;
    EventBatch changes = schema_changes_in(batch);
    if (changes.empty()) return;
    auto shared = std::make_shared<const EventBatch>(std::move(changes));
    for (auto& output : reader_outputs) static_cast<ReaderOutput&>(*output).mirror(shared);
}

void PipelineRuntime::Impl::wake_readers() {
    for (auto& output : reader_outputs) static_cast<ReaderOutput&>(*output).wake();
}

}  // namespace cdcd
