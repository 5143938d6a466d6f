#include "pipeline/runtime/pipeline_runtime.h"

#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <cstdlib>
#include <thread>

#include "pipeline/event/event_format.h"
#include "pipeline/runtime/available_cpus.h"
#include "pipeline/runtime/held_signals.h"
#include "pipeline/runtime/keep_row_buffers.h"
#include "pipeline/runtime/pipeline_runtime_impl.h"

namespace cdcd {

const char* to_string(RuntimePhase phase) {
    switch (phase) {
        case RuntimePhase::Starting:
            return "starting";
        case RuntimePhase::Running:
            return "running";
        case RuntimePhase::Draining:
            return "draining";
        case RuntimePhase::Stopped:
            return "stopped";
    }
    return "unknown";
}

void PipelineRuntime::Impl::build() {
    const auto& def = plan.definition;
    ConnectorContext source_ctx{plan.source_options, def.source,  plan.settings, io,
                                &registry,           &bad_records};
    source = plan.source_factory->create(source_ctx);
    ConnectorContext sink_ctx{
        plan.sink_options, def.sink, plan.settings, io, &registry, &bad_records, [this] {
            return stopping.load();
        }};
    sink = plan.sink_factory->create(sink_ctx);
    source_rows_home = source->row_buffer_return();
    if (!plan.definition.transforms.empty()) {
        std::vector<TransformStage::LaneParts> lanes;
        for (auto& stage : bad_records.transform_stages) {
            transforms.push_back(plan.make_transform(source.get()));
            transforms.back()->set_bad_records(stage.get());
            lanes.push_back({transforms.back().get(), stage.get()});
        }
        std::string why;
        plan.transform_lanes(&why);
        if (lanes.size() > 1 || plan.settings.parallelism > 1)
            spdlog::info("transform: {} lane{} ({})", lanes.size(), lanes.size() > 1 ? "s" : "",
                         why);
        transform_stage = std::make_unique<TransformStage>(io, lanes, &taps, source_rows_home);
        // The loop transforms a batch itself when every lane is busy, with an operator of its
        // own (restored with the lanes'), unless the source's functions may wait on I/O there.
        if (!(plan.source_factory && plan.source_factory->transform_functions)) {
            transforms.push_back(plan.make_transform(source.get()));
            BadRecordStage& stage = bad_records.add_transform_stage();
            transforms.back()->set_bad_records(&stage);
            transform_stage->help_on_loop({transforms.back().get(), &stage});
        }
    }
    schema_operator = std::make_unique<SchemaOperator>(
        plan.make_router(), plan.behavior, plan.schema_change_filter, sink->metadata_applier(),
        [this](EventBatch& pending, const SchemaChangeEvent& change) {
            return flush_writers(pending, change);
        },
        plan.settings.local_time_zone);
    int n = plan.settings.parallelism;
    const std::size_t cpus = available_cpus();
    const bool own_threads = n > 1 && sink->writers_are_independent() && cpus > 1;
    writer_loops = std::make_unique<WriterLoops>(io, own_threads ? static_cast<std::size_t>(n) : 0);
    if (n > 1)
        spdlog::info("sink writers: {} {}", n,
                     own_threads ? "on threads of their own"
                     : !sink->writers_are_independent()
                         ? "on the pipeline's event loop (sink `" + def.sink.type +
                               "` shares state between its writers)"
                         : "on the pipeline's event loop (1 CPU available)");
    for (int i = 0; i < n; ++i) {
        writers.push_back(sink->create_writer(i, n));
        writer_channels.push_back(std::make_unique<WriterChannel>(
            writer_loops->executor(static_cast<std::size_t>(i)), kChannelCapacity));
    }
    register_channel_metrics();
}

/// Elements sent into a channel and not yet received; index 0 is the source channel.
void PipelineRuntime::Impl::register_channel_metrics() {
    queued.clear();
    for (std::size_t i = 0; i < writers.size() + 1; ++i) queued.emplace_back(0);
    for (std::size_t i = 0; i < queued.size(); ++i) {
        metrics::Labels labels{
            {"channel", i == 0 ? std::string("source") : "writer/" + std::to_string(i - 1)}};
        registry.gauge_fn("cdcd_channel_occupancy",
                          "Batches or barriers queued in a channel between stages", labels,
                          [this, i] { return static_cast<double>(queued[i].load()); });
        registry
            .gauge("cdcd_channel_capacity", "Capacity of a channel between stages, in batches",
                   labels)
            .set(static_cast<double>(i == 0 ? kSourceChannelCapacity : kChannelCapacity));
    }
}

awaitable<void> PipelineRuntime::Impl::send_to_source_channel(StreamElement element,
                                                              std::size_t reader) {
    SourceElement sent{std::move(element), reader};
    co_await source_channel.async_send(boost::system::error_code{}, std::move(sent), use_awaitable);
    ++queued[0];
}

awaitable<void> PipelineRuntime::Impl::send_to_writer(std::size_t i, WriterElement element) {
    co_await writer_channels[i]->async_send(boost::system::error_code{}, std::move(element),
                                            use_awaitable);
    ++queued[i + 1];
}

// ---- source -------------------------------------------------------------------------------------
class PipelineRuntime::Impl::Output final : public SourceOutput {
  public:
    explicit Output(Impl& rt) : rt_(rt) {}
    awaitable<void> emit(EventBatch events) override {
        rt_.events_in += events.size();
        rt_.count_source_batch(events.size());
        co_await rt_.send_to_source_channel(StreamElement(std::move(events)));
    }
    bool stopping() const override { return rt_.stopping.load(); }
    awaitable<void> sleep(std::int64_t millis) override {
        if (rt_.stopping) co_return;
        asio::steady_timer timer(rt_.io, std::chrono::milliseconds(millis));
        rt_.sleepers.insert(&timer);
        co_await timer.async_wait(asio::as_tuple(use_awaitable));
        rt_.sleepers.erase(&timer);
    }
    void request_checkpoint() override { rt_.checkpoint_now(); }

  private:
    Impl& rt_;
};

void PipelineRuntime::Impl::count_source_batch(std::size_t events) {
    rm.source.records_out.inc(events);
    rm.source_batches.inc();
}

void PipelineRuntime::Impl::checkpoint_now() {
    // Ends checkpoint_loop's wait: it takes the checkpoint at once. One in flight is left alone
    // (the source asks again when it completes).
    if (!stopping && !source_done && !checkpoint_in_flight) checkpoint_timer.cancel();
}

awaitable<void> PipelineRuntime::Impl::source_task() {
    Output output(*this);
    co_await source->run(output);
    source_done = true;
    checkpoint_timer.cancel();
    // The final checkpoint carries the source's end state, so a restart emits nothing again.
    std::uint64_t id = next_checkpoint_id++;
    auto& pending = checkpoints[id];
    pending.source_state = source->snapshot_state();
    pending.dead_letters += bad_records.source_stage->take_pending();
    pending.final = true;
    co_await send_to_source_channel(StreamElement(Barrier{id}));
    co_await send_to_source_channel(StreamElement(EndOfInput{}));
}

// ---- processing ---------------------------------------------------------------------------------
/// Without a transform: routes each batch as it arrives.
awaitable<void> PipelineRuntime::Impl::processor_task() {
    EventBatch out;
    while (true) {
        auto [ec, received] = co_await source_channel.async_receive(asio::as_tuple(use_awaitable));
        if (ec) co_return;
        --queued[0];
        StreamElement& element = received.element;
        if (readers.empty() || std::holds_alternative<EventBatch>(element)) {
            if (co_await process(element, out)) co_return;
            if (received.reader != SourceElement::kNoReader) reader_batch_routed(received.reader);
            continue;
        }
        std::vector<StreamElement> passed = align_readers(std::move(element));
        for (StreamElement& aligned : passed)
            if (co_await process(aligned, out)) co_return;
        if (!passed.empty()) release_readers();
    }
}

awaitable<bool> PipelineRuntime::Impl::process(StreamElement& element, EventBatch& out) {
    if (auto* batch = std::get_if<EventBatch>(&element)) {
        // Before the schema operator sees the batch: its upstream schemas are the source's.
        taps.offer(TapPoint::Source, *batch,
                   [this](TableId t) { return schema_operator->upstream_schema(t); });
        co_await route(*batch, out);
        co_return false;
    }
    if (auto* barrier = std::get_if<Barrier>(&element)) {
        std::string no_transform_state;
        std::string no_dead_letters;
        co_await pass_barrier(*barrier, no_transform_state, no_dead_letters);
        co_return false;
    }
    co_await end_writers();
    co_return true;
}

/// With a transform, one task hands the source's stream to the transform stage and another
/// routes what comes out, so the loop routes and writes earlier batches while the transform
/// thread works on later ones. The readers' barriers and ends enter the stage as they align.
awaitable<void> PipelineRuntime::Impl::transform_feeder_task() {
    while (true) {
        auto [ec, received] = co_await source_channel.async_receive(asio::as_tuple(use_awaitable));
        if (ec) co_return;
        --queued[0];
        std::vector<StreamElement> passed;
        if (auto* batch = std::get_if<EventBatch>(&received.element)) {
            mirror_schema_changes(*batch);
            if (!readers.empty()) readers_of_transformed.push_back(received.reader);
            passed.push_back(std::move(received.element));
        } else if (readers.empty()) {
            passed.push_back(std::move(received.element));
        } else {
            passed = align_readers(std::move(received.element));
        }
        for (StreamElement& element : passed) {
            bool end = std::holds_alternative<EndOfInput>(element);
            co_await transform_stage->send(std::move(element));
            if (end) co_return;
        }
    }
}

awaitable<void> PipelineRuntime::Impl::transform_router_task() {
    EventBatch out;
    while (true) {
        TransformStage::Result result = co_await transform_stage->receive();
        if (auto* batch = std::get_if<EventBatch>(&result.element)) {
            co_await route(*batch, out);
            if (!readers_of_transformed.empty()) {
                std::size_t reader = readers_of_transformed.front();
                readers_of_transformed.pop_front();
                if (reader != SourceElement::kNoReader) reader_batch_routed(reader);
            }
        } else if (auto* barrier = std::get_if<Barrier>(&result.element)) {
            co_await pass_barrier(*barrier, result.transform_state, result.dead_letters);
            if (!readers.empty()) release_readers();  // every writer has it
        } else {
            co_await end_writers();
            co_return;
        }
    }
}

awaitable<void> PipelineRuntime::Impl::end_writers() {
    for (std::size_t i = 0; i < writer_channels.size(); ++i)
        co_await send_to_writer(i, WriterElement(EndOfInput{}));
}

awaitable<void> PipelineRuntime::Impl::route(EventBatch& in, EventBatch& out) {
    co_await schema_operator->process(in, out);
    schema_change_timer.cancel();  // its schema changes are applied
    co_await dispatch(out);
}

/// Sends sink-side events to the writers: data by primary-key partition, schema changes to all.
awaitable<void> PipelineRuntime::Impl::dispatch(EventBatch& out) {
    if (out.empty()) co_return;
    events_out += out.size();
    rm.sink.records_in.inc(out.size());
    // The schema operator has applied every schema change in `out` (a change flushes what came
    // before it): sink schemas are those of the events.
    auto sink_schema = [this](TableId t) { return schema_operator->sink_schema(t); };
    taps.offer(TapPoint::Transform, out, sink_schema);
    if (writers.size() == 1) {
        taps.offer(TapPoint::Sink, out, sink_schema, 0);
        EventBatch batch;
        batch.swap(out);
        rm.sink_batches.inc();
        co_await send_to_writer(0, WriterElement(std::move(batch)));
        co_return;
    }
    if (!writer_loops->own_threads()) {
        // The writers share this thread: each takes its part of the batch where it is.
        std::shared_ptr<SharedBatch> shared =
            share_among_writers(out, writers.size(), plan.partitioning, sink_schema);
        for (std::size_t i = 0; i < writers.size(); ++i) {
            if (shared->parts[i].empty()) continue;
            taps.offer(TapPoint::Sink, shared->part(i), sink_schema, static_cast<int>(i));
            rm.sink_batches.inc();
            co_await send_to_writer(i, WriterElement(shared));
        }
        co_return;
    }
    std::vector<EventBatch> parts(writers.size());
    partition_events(out, parts, plan.partitioning, sink_schema);
    // Sent as they come: holding parts back to send fewer, larger batches to writers on threads
    // of their own measured slower (their rows no longer fit the caches).
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (parts[i].empty()) continue;
        taps.offer(TapPoint::Sink, parts[i], sink_schema, static_cast<int>(i));
        rm.sink_batches.inc();
        co_await send_to_writer(i, WriterElement(std::move(parts[i])));
    }
}

/// Flink's FlushEvent: everything before a schema change reaches the target before it applies.
/// The flush and the apply that follows it must end within schema-operator.rpc-timeout (as
/// Flink's schema operator waits that long for its coordinator), else the pipeline fails.
awaitable<void> PipelineRuntime::Impl::flush_writers(EventBatch& pending,
                                                     const SchemaChangeEvent& change) {
    arm_schema_change_timeout(change);
    co_await dispatch(pending);
    auto done = std::make_shared<Countdown>(io.get_executor(), writers.size());
    for (std::size_t i = 0; i < writer_channels.size(); ++i) {
        // A named element: GCC 12 mis-compiles brace-initialised temporaries inside a
        // co_await expression (the shared_ptr's count was dropped twice: use after free).
        FlushRequest request{done};
        WriterElement element(std::move(request));
        co_await send_to_writer(i, std::move(element));
    }
    co_await done->wait();
}

void PipelineRuntime::Impl::arm_schema_change_timeout(const SchemaChangeEvent& change) {
    schema_change_timer.expires_after(std::chrono::milliseconds(plan.schema_change_timeout_ms));
    schema_change_timer.async_wait([this, what = format_schema_change(change),
                                    table = table_of(change).str()](boost::system::error_code ec) {
        if (ec || stopping) return;
        std::string why =
            "schema change " + what + " of sink table " + table +
            " was not applied within pipeline.schema-operator.rpc-timeout (" +
            std::to_string(plan.schema_change_timeout_ms) +
            " ms): the sink writers had not flushed the events before it, or sink `" +
            plan.definition.sink.type +
            "` had not applied it. The pipeline stops and resumes from its last "
            "checkpoint when restarted; raise schema-operator.rpc-timeout if the sink is "
            "only slow";
        spdlog::error("{}", why);
        rm.failures.inc();
        fail(std::make_exception_ptr(std::runtime_error(why)));
    });
}

// ---- writers ------------------------------------------------------------------------------------
awaitable<void> PipelineRuntime::Impl::writer_task(std::size_t index) {
    auto& writer = *writers[index];
    auto& channel = *writer_channels[index];
    // The last checkpoint's acknowledgement while the writer's flush becomes durable: the next
    // barrier and the close wait for it, so checkpoints are acknowledged in order and the run
    // ends after its final one.
    std::shared_ptr<Countdown> acknowledged;
    while (true) {
        auto [ec, element] = co_await channel.async_receive(asio::as_tuple(use_awaitable));
        if (ec) co_return;
        --queued[index + 1];
        if (auto* batch = std::get_if<EventBatch>(&element)) {
            co_await writer.write(*batch);
            release_written(std::move(*batch));
            if (!channel.ready()) co_await writer.input_drained();
        } else if (auto* shared = std::get_if<std::shared_ptr<SharedBatch>>(&element)) {
            co_await writer.write((*shared)->part(index));
            release_written(**shared);
            if (!channel.ready()) co_await writer.input_drained();
        } else if (auto* barrier = std::get_if<Barrier>(&element)) {
            if (acknowledged) co_await acknowledged->wait();
            co_await checkpoint_writer(index, barrier->checkpoint_id, acknowledged);
        } else if (auto* flush = std::get_if<FlushRequest>(&element)) {
            co_await writer.flush(0);
            post_to_pipeline_loop([done = flush->done] { done->arrive(); });
        } else {
            if (acknowledged) co_await acknowledged->wait();
            co_await writer.close();
            post_to_pipeline_loop([this] {
                if (++writers_closed < writers.size()) return;
                writers_working.reset();
                finish();
            });
            co_return;
        }
    }
}

awaitable<void> PipelineRuntime::Impl::checkpoint_writer(std::size_t index, std::uint64_t id,
                                                         std::shared_ptr<Countdown>& acknowledged) {
    CheckpointFlush flushed = co_await writers[index]->flush_for_checkpoint(id);
    // Cut here: what the writer rejects after the barrier belongs to the next checkpoint.
    std::string dead = bad_records.writer_stages[index]->take_pending();
    if (!flushed.until_durable) {
        co_await on_pipeline_loop(
            acknowledge(id, index, std::move(flushed.state), std::move(dead)));
        co_return;
    }
    auto executor = co_await asio::this_coro::executor;
    acknowledged = std::make_shared<Countdown>(executor, 1);
    auto exit = on_exit("sink " + plan.definition.sink.type + " writer " + std::to_string(index) +
                        " at checkpoint " + std::to_string(id));
    asio::co_spawn(
        executor,
        [](Impl& rt, std::size_t writer, std::uint64_t checkpoint, CheckpointFlush flush,
           std::string dead_letters) -> awaitable<void> {
            co_await std::move(*flush.until_durable);
            co_await rt.on_pipeline_loop(rt.acknowledge(checkpoint, writer, std::move(flush.state),
                                                        std::move(dead_letters)));
        }(*this, index, id, std::move(flushed), std::move(dead)),
        [this, done = acknowledged, exit](const std::exception_ptr& e) {
            done->arrive();
            if (e) post_to_pipeline_loop([exit, e] { exit(e); });
        });
}

awaitable<void> PipelineRuntime::Impl::on_pipeline_loop(awaitable<void> task) {
    if (!writer_loops->own_threads()) {
        co_await std::move(task);
        co_return;
    }
    co_await asio::co_spawn(io, std::move(task), use_awaitable);
}

awaitable<void> PipelineRuntime::Impl::on_writer_loop(std::size_t index, awaitable<void> task) {
    if (!writer_loops->own_threads()) {
        co_await std::move(task);
        co_return;
    }
    co_await asio::co_spawn(writer_loops->executor(index), std::move(task), use_awaitable);
}

void PipelineRuntime::Impl::release_written(SharedBatch& shared) {
    // Once every writer has written its part: the whole batch, as a batch of one writer's.
    if (shared.written()) release_written(std::move(shared.events));
}

void PipelineRuntime::Impl::release_written(EventBatch batch) {
    if (!readers.empty()) {
        // The source's readers build rows on the writers' threads: this one's next rows.
        keep_row_buffers(batch);
        return;
    }
    if (source_rows_home && !transform_stage) {
        // The source's own thread built them: back there from here, writer thread or loop.
        return_row_buffers(batch, *source_rows_home);
        return;
    }
    if (!writer_loops->own_threads()) {
        if (transform_stage)
            transform_stage->recycle_written(batch);
        else
            keep_row_buffers(batch);  // writers on the loop: the rows the source built there
        return;
    }
    asio::post(io, [this, written = std::move(batch)]() mutable {
        if (transform_stage) {
            transform_stage->recycle_written(written);
            return;
        }
        // Without a transform, the rows written are the source's, which most sources build on
        // the loop (a pool on a loop that builds none holds at most its bound).
        keep_row_buffers(written);
    });
}

void PipelineRuntime::Impl::post_to_pipeline_loop(std::function<void()> handler) {
    if (!writer_loops->own_threads()) {
        handler();
        return;
    }
    asio::post(io, std::move(handler));
}

// ---- lifecycle ----------------------------------------------------------------------------------
void PipelineRuntime::Impl::begin_drain(const char* why) {
    if (stopping) return;
    stopping = true;
    set_phase(RuntimePhase::Draining);
    spdlog::info("{}: draining (stop sources, final checkpoint, flush sinks; timeout {} ms)", why,
                 plan.shutdown_timeout_ms);
    checkpoint_timer.cancel();
    for (auto* t : sleepers) t->cancel();
    wake_readers();
    drain_timer.expires_after(std::chrono::milliseconds(plan.shutdown_timeout_ms));
    stop_deadline = drain_timer.expiry();
    drain_timer.async_wait([this](boost::system::error_code ec) {
        if (ec) return;
        const char* why =
            "drain did not finish within pipeline.shutdown.timeout; exiting without a final "
            "checkpoint";
        spdlog::error("{}", why);
        fail(std::make_exception_ptr(std::runtime_error(why)));
    });
}

void PipelineRuntime::Impl::wait_for_signal() {
    signals.async_wait([this](boost::system::error_code ec, int signal) {
        if (ec) return;
        if (stopping) {
            spdlog::warn("second signal ({}): exiting at once", signal);
            std::_Exit(130);
        }
        begin_drain(signal == SIGINT ? "SIGINT" : "SIGTERM");
        wait_for_signal();
    });
}

void PipelineRuntime::Impl::set_phase(RuntimePhase p) {
    if (phase == p) return;
    phase = p;
    rm.ready.set(p == RuntimePhase::Running ? 1 : 0);
    if (options.on_phase) options.on_phase(p);
}

void PipelineRuntime::Impl::finish() {
    set_phase(RuntimePhase::Stopped);
    drain_timer.cancel();
    checkpoint_timer.cancel();
    schema_change_timer.cancel();
    checkpoint_expiry_timer.cancel();
    signals.cancel();
    spdlog::info("pipeline '{}' finished: {} events in, {} events out, {} checkpoints",
                 plan.settings.name, events_in, events_out, checkpoints_completed);
    if (transform_stage && transform_stage->runs_per_lane().size() > 1)
        spdlog::info("transform: runs of data changes per lane: {}",
                     fmt::join(transform_stage->runs_per_lane(), ", "));
    if (transform_stage && transform_stage->runs_on_loop() > 0)
        spdlog::info("transform: runs of data changes on the event loop, every lane busy: {}",
                     transform_stage->runs_on_loop());
}

void PipelineRuntime::Impl::fail(std::exception_ptr error) {
    if (!first_error) first_error = std::move(error);
    stopping = true;
    set_phase(RuntimePhase::Stopped);
    if (transform_stage) transform_stage->close();
    io.stop();
}

std::function<void(std::exception_ptr)> PipelineRuntime::Impl::on_exit(const std::string& task) {
    return [this, task](const std::exception_ptr& e) {
        if (!e) return;
        try {
            std::rethrow_exception(e);
        } catch (const std::exception& ex) {
            spdlog::error("{} failed: {}", task, ex.what());
        }
        rm.failures.inc();
        fail(e);
    };
}

int PipelineRuntime::Impl::run() {
    try {
        // Before any connector exists: a second start on a running pipeline's directory must
        // fail before it touches an external system (a Kafka sink's new transactional
        // producer fences the running one's).
        state_lock = state::StateDirLock::acquire(state_dir());
        build();
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        set_phase(RuntimePhase::Stopped);
        return 1;
    }
    // The restore (opening RocksDB, decoding every part) runs on a thread of its own while
    // the event loop already serves what shares it (admin endpoint: /readyz answers 503
    // starting; systemd watchdog). Nothing on the loop touches the pipeline's objects until
    // the restore has finished and handed them back through post().
    auto keep_running = asio::make_work_guard(io);
    // Signals are handled from here on: SIGTERM during a restore lets it finish, then the
    // pipeline stops without starting (nothing ran, so there is nothing to drain).
    if (options.handle_signals) {
        signals.add(SIGTERM);
        signals.add(SIGINT);
        wait_for_signal();
        // One sent while cdcd loaded its configuration arrives now (SIGHUP's handler, if any,
        // is set up before the runtime runs).
        release_signals();
    }
    std::thread restorer([this, &keep_running] {
        std::exception_ptr error;
        try {
            restore();
        } catch (...) {
            error = std::current_exception();
        }
        asio::post(io, [this, &keep_running, error] {
            keep_running.reset();
            start(error);
        });
    });
    try {
        io.run();
    } catch (...) {
        restorer.join();  // a handler threw: the restore ends (its post() is never run)
        writer_loops->stop();
        destroy_suspended_tasks();
        throw;
    }
    restorer.join();
    writer_loops->stop();
    destroy_suspended_tasks();
    return first_error ? 1 : 0;
}

void PipelineRuntime::Impl::destroy_suspended_tasks() {
    // A coroutine destroyed on one loop may hold work on another, and posts its unwinding to
    // its own: rounds until nothing is left, while every loop still exists (a handful of
    // nested awaits at most; after a normal end there is nothing to destroy).
    for (int round = 0; round < 4; ++round) {
        io.shutdown();
        writer_loops->shutdown();
    }
}

/// On the loop, once the restore is done: start every task, or stop on a failed restore.
void PipelineRuntime::Impl::start(const std::exception_ptr& restore_error) {
    if (restore_error) {
        try {
            std::rethrow_exception(restore_error);
        } catch (const std::exception& e) {
            spdlog::error("{}", e.what());
        }
        fail(restore_error);
        return;
    }
    if (stopping) {
        spdlog::info("pipeline '{}': stop requested while it was starting; not started",
                     plan.settings.name);
        finish();
        return;
    }
    spdlog::info("pipeline '{}' running{}: {} → {} (parallelism {}, checkpoint every {} ms)",
                 plan.settings.name, plan.batch ? " in BATCH mode (ends with its input)" : "",
                 plan.definition.source.type, plan.definition.sink.type, plan.settings.parallelism,
                 plan.settings.checkpoint_interval_ms);
    try {
        if (!start_readers())
            asio::co_spawn(io, source_task(), on_exit("source " + plan.definition.source.type));
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        fail(std::current_exception());
        return;
    }
    if (transform_stage) {
        asio::co_spawn(io, transform_feeder_task(), on_exit("pipeline"));
        asio::co_spawn(io, transform_router_task(), on_exit("pipeline"));
    } else {
        asio::co_spawn(io, processor_task(), on_exit("pipeline"));
    }
    for (std::size_t i = 0; i < writers.size(); ++i) {
        auto exit = on_exit("sink " + plan.definition.sink.type + " writer " + std::to_string(i));
        asio::co_spawn(writer_loops->executor(i), writer_task(i),
                       [this, exit](const std::exception_ptr& e) {
                           if (e) post_to_pipeline_loop([exit, e] { exit(e); });
                       });
    }
    // The pipeline's loop runs out of work once it has sent the writers their end; writers on
    // threads of their own may still be writing then, and the run ends only after they close.
    if (writer_loops->own_threads()) writers_working.emplace(io.get_executor());
    writer_loops->start();
    asio::co_spawn(io, checkpoint_loop(), on_exit("checkpoint coordinator"));
    asio::co_spawn(io, checkpoint_expiry_loop(), on_exit("checkpoint coordinator"));
    set_phase(RuntimePhase::Running);
}

PipelineRuntime::PipelineRuntime(PipelinePlan plan, RunOptions options)
    : impl_(std::make_unique<Impl>(std::move(plan), std::move(options))) {}
PipelineRuntime::~PipelineRuntime() = default;
int PipelineRuntime::run() {
    return impl_->run();
}
asio::io_context& PipelineRuntime::io() {
    return impl_->io;
}
metrics::Registry& PipelineRuntime::metrics() {
    return impl_->registry;
}
RuntimePhase PipelineRuntime::phase() const {
    return impl_->phase;
}
std::optional<std::chrono::steady_clock::time_point> PipelineRuntime::stop_deadline() const {
    return impl_->stop_deadline;
}
TapHub& PipelineRuntime::taps() {
    return impl_->taps;
}

}  // namespace cdcd
