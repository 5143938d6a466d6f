// Which thread runs a sink's writers. At pipeline.parallelism 2 a sink whose writers are
// independent (Sink::writers_are_independent) gets one thread per writer, and every call on a
// writer comes from its thread; any other sink's writers share the pipeline's loop. Either way
// every record arrives once, a key's changes stay on one writer in order, a schema change reaches
// every writer before the data that needs it, checkpoints complete, and a writer whose input runs
// dry is told so (SinkWriter::input_drained).
#include "pipeline/runtime/writer_loops.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "pipeline/data/row_buffer_pool.h"
#include "pipeline/runtime/available_cpus.h"
#include "tests/unit/pipeline/connector/fake_connectors.h"
#include "tests/unit/pipeline/runtime/run_pipeline.h"

using namespace cdcd;

namespace {

const TableId kTable = TableId::of("db", "t");
constexpr std::int64_t kRows = 20'000;

/// What the writers saw, from whichever threads they ran on.
struct Seen {
    std::mutex mutex;
    std::thread::id source_thread;
    std::map<int, std::set<std::thread::id>> writer_threads;
    std::map<int, std::vector<std::int64_t>> ids;
    std::map<int, int> notified;
    std::map<int, int> drained;  // input_drained calls
    std::map<int, int> closed;
    std::vector<std::string> errors;
    std::shared_ptr<RowBufferReturn> source_rows_home;  // KeyedSource's, when set

    void on_writer(int index) {
        std::lock_guard lock(mutex);
        writer_threads[index].insert(std::this_thread::get_id());
    }
};

Seen* seen = nullptr;

/// kRows inserts keyed by id; halfway a column is added and the rows that follow carry it.
class KeyedSource final : public Source {
  public:
    void restore(std::string_view) override {}
    boost::asio::awaitable<void> run(SourceOutput& output) override {
        seen->source_thread = std::this_thread::get_id();
        co_await output.emit(testing::create_id_table(kTable));
        std::size_t columns = 1;
        while (position_ < kRows) {
            EventBatch batch;
            if (position_ == kRows / 2) {
                ColumnWithPosition note;
                note.column.name = "note";
                batch.push_back(Event(AddColumnEvent{kTable, {note}}));
                columns = 2;
            }
            for (int i = 0; i < 100; ++i, ++position_) {
                RowBuilder b(columns);
                b.set_long(0, position_);
                if (columns == 2) b.set_string(1, "n");
                batch.push_back(Event(DataChangeEvent::insert(kTable, std::move(b).build())));
            }
            co_await output.emit(std::move(batch));
            if (position_ % 2'000 == 0) co_await output.sleep(2);  // lets checkpoints in
        }
    }
    std::string snapshot_state() override { return std::to_string(position_); }
    std::shared_ptr<RowBufferReturn> row_buffer_return() const override {
        return seen->source_rows_home;
    }

  private:
    std::int64_t position_ = 0;
};

class RecordingWriter final : public SinkWriter {
  public:
    explicit RecordingWriter(int index) : index_(index) {}
    boost::asio::awaitable<void> write(EventSelection events) override {
        seen->on_writer(index_);
        for (const Event& e : events) {
            if (std::holds_alternative<AddColumnEvent>(e)) {
                columns_ = 2;
            } else if (const auto* data = std::get_if<DataChangeEvent>(&e)) {
                RowView row = data->after->view();
                std::lock_guard lock(seen->mutex);
                if (row.arity() != columns_)
                    seen->errors.push_back("writer " + std::to_string(index_) + ": a row of " +
                                           std::to_string(row.arity()) + " columns before the " +
                                           "schema change that adds its column");
                seen->ids[index_].push_back(row.get_long(0));
            }
        }
        co_return;
    }
    boost::asio::awaitable<void> input_drained() override {
        seen->on_writer(index_);
        std::lock_guard lock(seen->mutex);
        ++seen->drained[index_];
        co_return;
    }
    boost::asio::awaitable<std::string> flush(std::uint64_t) override {
        seen->on_writer(index_);
        co_return std::string();
    }
    boost::asio::awaitable<void> notify_checkpoint_complete(std::uint64_t) override {
        seen->on_writer(index_);
        std::lock_guard lock(seen->mutex);
        ++seen->notified[index_];
        co_return;
    }
    boost::asio::awaitable<void> close() override {
        seen->on_writer(index_);
        // Slow, as a sink flushing its last output: the run must wait for it.
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        std::lock_guard lock(seen->mutex);
        ++seen->closed[index_];
        co_return;
    }

  private:
    int index_;
    std::size_t columns_ = 1;
};

int run_pipeline(bool independent, const std::string& dir) {
    ConnectorRegistry registry = fakes::registry_of(
        "keyed", [](const ConnectorContext&) { return std::make_unique<KeyedSource>(); },
        "recording",
        [independent](const ConnectorContext&) {
            return std::make_unique<fakes::IndexedSinkOf<RecordingWriter>>(independent);
        });
    return testing::run_pipeline_yaml(
        registry,
        "source:\n  type: keyed\nsink:\n  type: recording\npipeline:\n  name: loops\n"
        "  parallelism: 2\n  execution.checkpointing.interval: 5ms\n",
        dir);
}

struct Fixture {
    Seen s;
    testing::TemporaryStateDir state{"writer-loops-test"};
    const std::string& dir = state.path;
    Fixture() { seen = &s; }
    ~Fixture() { seen = nullptr; }

    /// Every id once over both writers, each writer's in ascending order.
    void check_records() {
        CHECK(s.errors.empty());
        std::vector<std::int64_t> all;
        for (auto& [index, ids] : s.ids) {
            CHECK(std::is_sorted(ids.begin(), ids.end()));
            CHECK(!ids.empty());
            all.insert(all.end(), ids.begin(), ids.end());
        }
        std::sort(all.begin(), all.end());
        REQUIRE(all.size() == static_cast<std::size_t>(kRows));
        for (std::int64_t i = 0; i < kRows; ++i) REQUIRE(all[static_cast<std::size_t>(i)] == i);
    }
};

}  // namespace

TEST_CASE_METHOD(Fixture, "independent writers each run on a thread of their own") {
    REQUIRE(run_pipeline(true, dir) == 0);
    check_records();
    if (available_cpus() < 2) {  // threads would only take turns: the writers share the loop
        for (int i = 0; i < 2; ++i) CHECK(*s.writer_threads[i].begin() == s.source_thread);
        return;
    }
    REQUIRE(s.writer_threads.size() == 2);
    const auto& first = s.writer_threads[0];
    const auto& second = s.writer_threads[1];
    REQUIRE(first.size() == 1);  // write, flush, notify and close: one thread
    REQUIRE(second.size() == 1);
    CHECK(*first.begin() != *second.begin());
    CHECK(*first.begin() != s.source_thread);
    CHECK(*second.begin() != s.source_thread);
    CHECK(s.notified[0] > 0);  // checkpoints completed, and were notified on the writer's thread
    CHECK(s.notified[1] > 0);
    CHECK(s.drained[0] > 0);  // the source pauses: each writer was told its input ran dry
    CHECK(s.drained[1] > 0);
    CHECK(s.closed[0] == 1);  // the run ended after the writers had closed
    CHECK(s.closed[1] == 1);
}

TEST_CASE_METHOD(Fixture, "other writers share the pipeline's loop") {
    RowBufferPool& pool = RowBufferPool::this_thread();  // the loop runs on this thread
    std::string drained;
    while (pool.take(drained, 0)) {
    }
    REQUIRE(pool.size() == 0);
    REQUIRE(run_pipeline(false, dir) == 0);
    check_records();
    // The rows the writers have written go to the loop's row buffer pool, for the source's next
    // rows, rather than back to malloc (a quarter of a values pipeline's CPU time).
    CHECK(pool.size() > 0);
    for (int i = 0; i < 2; ++i) {
        REQUIRE(s.writer_threads[i].size() == 1);
        CHECK(*s.writer_threads[i].begin() == s.source_thread);
        CHECK(s.notified[i] > 0);
        CHECK(s.drained[i] > 0);
        CHECK(s.closed[i] == 1);
    }
}

TEST_CASE("WriterLoops: no threads means the shared loop, and threads are stopped and joined") {
    boost::asio::io_context shared;
    WriterLoops none(shared, 0);
    CHECK_FALSE(none.own_threads());
    CHECK(none.executor(5) == shared.get_executor());

    WriterLoops two(shared, 2);
    REQUIRE(two.own_threads());
    two.start();
    std::promise<std::thread::id> on_first, on_second;
    boost::asio::post(two.executor(0), [&] { on_first.set_value(std::this_thread::get_id()); });
    boost::asio::post(two.executor(1), [&] { on_second.set_value(std::this_thread::get_id()); });
    auto first = on_first.get_future().get();
    auto second = on_second.get_future().get();
    CHECK(first != second);
    CHECK(first != std::this_thread::get_id());
    two.stop();  // returns: the threads have ended though their loops had work guards
    two.stop();  // and again, as the destructor does
}

TEST_CASE_METHOD(Fixture, "written rows go back to a source that builds them on its own thread") {
    // A source that decodes on a thread of its own (Kafka's consumer) gets its rows' buffers back
    // there, from the loop or a writer's thread alike, rather than have them freed elsewhere.
    for (bool independent : {false, true}) {
        DYNAMIC_SECTION((independent ? "writers on threads of their own" : "writers on the loop")) {
            RowBufferPool& pool = RowBufferPool::this_thread();  // the loop runs on this thread
            std::string drained;
            while (pool.take(drained, 0)) {
            }
            s.source_rows_home = std::make_shared<RowBufferReturn>();
            REQUIRE(run_pipeline(independent, dir) == 0);
            check_records();
            CHECK(s.source_rows_home->waiting_bytes() > 0);
            CHECK(pool.size() == 0);  // none kept by the loop, which built none of them
        }
    }
}
