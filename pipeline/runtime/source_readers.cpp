// A source split into readers (Source::split_readers): reader i runs on writer i's loop, so
// that rows are built on the threads that write them, and sends its batches to the loop, which
// routes and partitions them as it does a source's on the loop.
//
// Checkpoints stay aligned. The coordinator asks every reader, on its own thread, to snapshot
// its state and send barrier N; a reader that has sent it holds its next batch until the loop
// has received barrier N from every reader. So nothing a reader emits after its barrier reaches
// the loop before the last reader's barrier, and the loop passes one barrier N on, with the
// readers' merged states as the source's part of checkpoint N, exactly where a source on the
// loop would have put it.
#include <spdlog/spdlog.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>

#include "pipeline/runtime/pipeline_runtime_impl.h"

namespace cdcd {

class PipelineRuntime::Impl::ReaderOutput final : public SourceOutput {
  public:
    ReaderOutput(Impl& rt, const asio::any_io_executor& executor)
        : rt_(rt), executor_(executor), gate_(executor), sleeper_(executor) {}

    awaitable<void> emit(EventBatch events) override {
        // Held after this reader's barrier until every reader has sent it.
        while (held_) {
            gate_.expires_at(asio::steady_timer::time_point::max());
            co_await gate_.async_wait(asio::as_tuple(use_awaitable));
        }
        events_ += events.size();
        rt_.count_source_batch(events.size());
        co_await rt_.send_to_source_channel(StreamElement(std::move(events)));
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

    /// On the reader's loop: barrier `id` was sent; emit() holds until release().
    void hold() { held_ = true; }
    void release() {
        asio::post(executor_, [this] {
            held_ = false;
            gate_.cancel();
        });
    }
    void wake() {
        asio::post(executor_, [this] { sleeper_.cancel(); });
    }
    /// Events emitted; read on the loop once the reader has ended.
    std::uint64_t events() const { return events_; }

  private:
    Impl& rt_;
    asio::any_io_executor executor_;
    asio::steady_timer gate_;
    asio::steady_timer sleeper_;
    bool held_ = false;
    std::uint64_t events_ = 0;
};

bool PipelineRuntime::Impl::start_readers() {
    // Readers pay only where the writers have threads of their own to build rows on, and no
    // transform thread sits between: its one thread sets the pace, and rows built on the
    // writers' threads cost it more (GENERATED -> transform -> file at parallelism 2: +13 % wall
    // and CPU with readers).
    if (!writer_loops->own_threads() || transform_stage) return false;
    readers = source->split_readers(writers.size());
    if (readers.empty()) return false;
    if (readers.size() != writers.size())
        throw std::logic_error("source " + plan.definition.source.type + " split into " +
                               std::to_string(readers.size()) + " readers, not " +
                               std::to_string(writers.size()));
    spdlog::info("source readers: {} on the sink writers' threads", readers.size());
    reader_final_states.assign(readers.size(), {});
    for (std::size_t i = 0; i < readers.size(); ++i) {
        auto executor = writer_loops->executor(i);
        reader_outputs.push_back(std::make_unique<ReaderOutput>(*this, executor));
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
    reader_final_states[index] = readers[index]->snapshot_state();
    StreamElement end(EndOfInput{});
    co_await send_to_source_channel(std::move(end));
}

void PipelineRuntime::Impl::inject_reader_barriers(std::uint64_t id) {
    // Each reader writes its slot on its own thread before it sends its barrier; the loop reads
    // them once every reader's barrier has come.
    auto states = std::make_shared<std::vector<std::string>>(readers.size());
    reader_barriers[id].states = states;
    for (std::size_t i = 0; i < readers.size(); ++i) {
        auto exit = on_exit("source " + plan.definition.source.type + " reader " +
                            std::to_string(i) + " at checkpoint " + std::to_string(id));
        asio::co_spawn(writer_loops->executor(i), send_reader_barrier(i, id, states),
                       [this, exit](const std::exception_ptr& e) {
                           if (e) post_to_pipeline_loop([exit, e] { exit(e); });
                       });
    }
}

awaitable<void> PipelineRuntime::Impl::send_reader_barrier(
    std::size_t index, std::uint64_t id, std::shared_ptr<std::vector<std::string>> states) {
    (*states)[index] = readers[index]->snapshot_state();
    static_cast<ReaderOutput&>(*reader_outputs[index]).hold();
    // Sent also when the reader has ended: the loop aligns every barrier it injected before it
    // takes the final checkpoint.
    StreamElement marker(Barrier{id});
    co_await send_to_source_channel(std::move(marker));
}

std::vector<StreamElement> PipelineRuntime::Impl::align_readers(StreamElement element) {
    std::vector<StreamElement> passed;
    if (auto* barrier = std::get_if<Barrier>(&element)) {
        auto it = reader_barriers.find(barrier->checkpoint_id);
        if (it == reader_barriers.end() || ++it->second.received < readers.size()) return passed;
        checkpoints[barrier->checkpoint_id].source_state =
            source->merge_reader_states(*it->second.states);
        reader_barriers.erase(it);
        for (auto& output : reader_outputs) static_cast<ReaderOutput&>(*output).release();
        passed.push_back(std::move(element));
    } else if (++readers_ended == readers.size()) {
        source_done = true;  // no barrier is injected from here on
        checkpoint_timer.cancel();
    }
    // After the last reader's end, and once the barriers injected before it have aligned (a
    // reader that has ended still sends them, so every send into the channel is received):
    // the final checkpoint, then the end.
    if (readers_ended < readers.size() || !reader_barriers.empty()) return passed;
    for (auto& output : reader_outputs) events_in += static_cast<ReaderOutput&>(*output).events();
    std::uint64_t id = next_checkpoint_id++;
    auto& pending = checkpoints[id];
    pending.source_state = source->merge_reader_states(reader_final_states);
    pending.dead_letters += bad_records.source_stage->take_pending();
    pending.final = true;
    passed.emplace_back(Barrier{id});
    passed.emplace_back(EndOfInput{});
    return passed;
}

void PipelineRuntime::Impl::wake_readers() {
    for (auto& output : reader_outputs) static_cast<ReaderOutput&>(*output).wake();
}

}  // namespace cdcd
