// A source split into readers (Source::split_readers) reads on the sink writers' threads, and
// its checkpoints stay aligned: what the writers had received when they flushed for checkpoint N
// is exactly what the readers' states in checkpoint N say they had emitted, no more and no less,
// also when the readers send their rows straight to the writers and those wait. A reader's
// schema change reaches the writers before its rows that need it. A reader that fails stops the
// pipeline. With a transform, each reader transforms its own rows by the schemas the transform
// stage has, its own schema changes and the other readers' alike.
#include <atomic>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch.hpp>
#include <charconv>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "pipeline/runtime/available_cpus.h"
#include "tests/unit/pipeline/connector/fake_connectors.h"
#include "tests/unit/pipeline/runtime/run_pipeline.h"

using namespace cdcd;

namespace {

const TableId kTable = TableId::of("db", "t");

struct Seen {
    std::mutex mutex;
    std::set<std::thread::id> reader_threads, writer_threads;
    std::map<std::uint64_t, std::vector<std::string>> reader_states;  // per checkpoint, merged
    std::map<std::uint64_t, std::set<std::int64_t>> flushed;          // ids written before flush(N)
    std::map<int, std::vector<std::int64_t>> ids;                     // per writer, in order
    std::int64_t rows = 30'000;
    std::int64_t fail_at = -1;
    std::int64_t wide_row_at = -1;  // the row of this id is emitted with a column its table lacks
    std::int64_t writer_fails_at = -1;  // a writer given this id throws
    // Writers that pause now and then, so that a reader's batch waits for a writer's channel
    // when a barrier is asked of it.
    bool slow_writers = false;
    // Reader i writes table db.t<i> and adds a column to it once its ids pass this (-1: never).
    std::int64_t add_column_after = -1;
    std::map<TableId, std::size_t> columns;  // per table, as the writers were told
    std::size_t rows_of_another_width = 0;   // rows whose width was not their table's then
    // Both readers write db.t; once their ids pass add_column_after, reader 1 stops, reader 0
    // adds a column, and reader 1 goes on with rows that have it, the first batch of them by
    // emit_after_schema_changes.
    bool shared_table = false;
    std::atomic<bool> reader1_waits{false}, column_added{false};
    // The pipeline's transform appends `id * 10 AS tenfold` to every row (see kTenfold).
    bool transform = false;
    std::size_t rows_not_transformed = 0;  // rows whose last field was not id * 10
};
Seen* seen = nullptr;

/// Reader `index` of `count` emits the ids equal to `index` modulo `count`, ascending, from
/// `next`; its state is the next id it would emit.
class EvenOddReader final : public SourceReader {
  public:
    EvenOddReader(std::int64_t index, std::int64_t count)
        : index_(index), count_(count), next_(index) {}
    boost::asio::awaitable<void> run(SourceOutput& output) override {
        {
            std::lock_guard lock(seen->mutex);
            seen->reader_threads.insert(std::this_thread::get_id());
        }
        const bool own_table = seen->add_column_after >= 0 && !seen->shared_table;
        const TableId table = own_table ? TableId::of("db", "t" + std::to_string(index_)) : kTable;
        co_await output.emit(testing::create_id_table(table));
        std::size_t width = 1;
        bool after_change = false;
        while (next_ < seen->rows && !output.stopping()) {
            EventBatch batch;
            if (seen->shared_table && width == 1 && next_ > seen->add_column_after) {
                // Reader 1 has sent its narrow rows; reader 0's column reaches the loop; then
                // reader 1's wide rows go out.
                if (index_ == 1) {
                    seen->reader1_waits = true;
                    while (!seen->column_added && !output.stopping()) co_await output.sleep(1);
                    after_change = true;
                } else {
                    while (!seen->reader1_waits && !output.stopping()) co_await output.sleep(1);
                    EventBatch add;
                    add.push_back(
                        Event(AddColumnEvent{table,
                                             {{Column{"extra", DataType::bigint(), "", {}},
                                               ColumnWithPosition::Position::Last, ""}}}));
                    co_await output.emit(std::move(add));
                    seen->column_added = true;
                }
                width = 2;
            }
            if (own_table && width == 1 && next_ > seen->add_column_after) {
                // In the batch before the rows that have the column.
                batch.push_back(Event(AddColumnEvent{table,
                                                     {{Column{"extra", DataType::bigint(), "", {}},
                                                       ColumnWithPosition::Position::Last, ""}}}));
                width = 2;
            }
            for (int i = 0; i < 50 && next_ < seen->rows; ++i, next_ += count_) {
                if (next_ == seen->fail_at) throw std::runtime_error("reader failed on purpose");
                // A row one column wider than its table (no schema change said so): breaks the
                // source's contract, as the Kafka source's split readers once did.
                const std::size_t row_width = next_ == seen->wide_row_at ? width + 1 : width;
                RowBuilder b(row_width);
                b.set_long(0, next_);
                if (row_width == 2) b.set_long(1, -next_);
                batch.push_back(Event(DataChangeEvent::insert(table, std::move(b).build())));
            }
            if (after_change) {
                after_change = false;
                co_await output.emit_after_schema_changes(std::move(batch));
            } else {
                co_await output.emit(std::move(batch));
            }
            if ((next_ / count_) % 500 == 0) co_await output.sleep(1);  // lets checkpoints in
        }
    }
    std::string snapshot_state() override { return std::to_string(next_); }

  private:
    std::int64_t index_, count_, next_;
};

class SplittingSource final : public Source {
  public:
    void restore(std::string_view) override {}
    boost::asio::awaitable<void> run(SourceOutput&) override {
        throw std::logic_error("a split source is read by its readers");
    }
    std::string snapshot_state() override { return {}; }
    std::vector<std::unique_ptr<SourceReader>> split_readers(std::size_t count) override {
        std::vector<std::unique_ptr<SourceReader>> readers;
        for (std::size_t i = 0; i < count; ++i)
            readers.push_back(std::make_unique<EvenOddReader>(static_cast<std::int64_t>(i),
                                                              static_cast<std::int64_t>(count)));
        return readers;
    }
    std::string merge_reader_states(const std::vector<std::string>& states) override {
        std::string merged;
        for (const auto& s : states) merged += (merged.empty() ? "" : ",") + s;
        return merged;
    }
};

class RecordingWriter final : public SinkWriter {
  public:
    explicit RecordingWriter(int index) : index_(index) {}
    boost::asio::awaitable<void> write(EventSelection events) override {
        {
            std::lock_guard lock(seen->mutex);
            seen->writer_threads.insert(std::this_thread::get_id());
            for (const Event& e : events) {
                if (const auto* create = std::get_if<CreateTableEvent>(&e))
                    widths_[create->table] = create->schema.size();
                if (const auto* add = std::get_if<AddColumnEvent>(&e))
                    seen->columns[add->table] = widths_[add->table] += add->added.size();
                const auto* data = std::get_if<DataChangeEvent>(&e);
                if (data == nullptr) continue;
                RowView row = data->after->view();
                std::int64_t id = row.get_long(0);
                if (id == seen->writer_fails_at)
                    throw std::runtime_error("writer failed on purpose");
                // With the transform: id, tenfold, then `extra` when the row has it (the
                // default LENIENT evolution adds the transform's new column last in the sink).
                if (seen->transform && (row.arity() < 2 || row.get_long(1) != id * 10 ||
                                        (row.arity() == 3 && row.get_long(2) != -id)))
                    ++seen->rows_not_transformed;
                seen->ids[index_].push_back(id);
                written_.insert(id);
                if (data->after->view().arity() != widths_[data->table])
                    ++seen->rows_of_another_width;
            }
        }
        if (seen->slow_writers && ++batches_ % 16 == 0) {
            boost::asio::steady_timer pause(co_await boost::asio::this_coro::executor,
                                            std::chrono::milliseconds(1));
            co_await pause.async_wait(boost::asio::use_awaitable);
        }
    }
    boost::asio::awaitable<std::string> flush(std::uint64_t id) override {
        std::lock_guard lock(seen->mutex);
        if (id > 0) seen->flushed[id].insert(written_.begin(), written_.end());
        co_return std::string();
    }

  private:
    int index_;
    std::set<std::int64_t> written_;
    std::map<TableId, std::size_t> widths_;  // each table's, as this writer was told
    std::uint64_t batches_ = 0;
};

class RecordingSink final : public Sink {
  public:
    std::unique_ptr<SinkWriter> create_writer(int index, int) override {
        return std::make_unique<RecordingWriter>(index);
    }
    MetadataApplier& metadata_applier() override { return applier_; }
    bool writers_are_independent() const override { return true; }

  private:
    fakes::AcceptingApplier applier_;
};

/// Records each checkpoint's merged reader states as the runtime asks for them.
class ObservedSplittingSource final : public Source {
  public:
    void restore(std::string_view) override {}
    boost::asio::awaitable<void> run(SourceOutput& output) override { return inner_.run(output); }
    std::string snapshot_state() override { return {}; }
    std::vector<std::unique_ptr<SourceReader>> split_readers(std::size_t count) override {
        return inner_.split_readers(count);
    }
    std::string merge_reader_states(const std::vector<std::string>& states) override {
        std::lock_guard lock(seen->mutex);
        seen->reader_states[++merges_] = states;
        return inner_.merge_reader_states(states);
    }

  private:
    SplittingSource inner_;
    std::uint64_t merges_ = 0;
};

// `*` first, so that a column the source adds comes before the computed one.
const char* const kTenfold =
    "transform:\n  - source-table: db.\\.*\n    projection: \\*, id * 10 AS tenfold\n";

int run_pipeline(const std::string& dir) {
    ConnectorRegistry registry = fakes::registry_of(
        "split",
        [](const ConnectorContext&) { return std::make_unique<ObservedSplittingSource>(); },
        "recording", [](const ConnectorContext&) { return std::make_unique<RecordingSink>(); });
    return testing::run_pipeline_yaml_within(
        registry,
        std::string("source:\n  type: split\nsink:\n  type: recording\n") +
            (seen->transform ? kTenfold : "") +
            "pipeline:\n  name: readers\n  parallelism: 2\n  execution.checkpointing.interval: "
            "2ms\n",
        dir, std::chrono::seconds(60));
}

struct Fixture {
    Seen s;
    testing::TemporaryStateDir state{"source-readers-test"};
    const std::string& dir = state.path;
    Fixture() { seen = &s; }
    ~Fixture() { seen = nullptr; }
};

std::int64_t as_int(const std::string& s) {
    std::int64_t v = 0;
    std::from_chars(s.data(), s.data() + s.size(), v);
    return v;
}

/// Every id written once, each reader's in order in every writer, and each aligned barrier's
/// reader states exactly what the writers held when they flushed for it.
void check_aligned_run(Seen& s) {
    CHECK(s.reader_threads.size() == 2);
    CHECK(s.reader_threads == s.writer_threads);
    std::vector<std::int64_t> all;
    for (auto& [writer, ids] : s.ids) {
        std::vector<std::int64_t> from_reader[2];  // each reader's ids, in the order written
        for (std::int64_t id : ids) from_reader[id % 2].push_back(id);
        CHECK(std::is_sorted(from_reader[0].begin(), from_reader[0].end()));
        CHECK(std::is_sorted(from_reader[1].begin(), from_reader[1].end()));
        all.insert(all.end(), ids.begin(), ids.end());
    }
    std::sort(all.begin(), all.end());
    REQUIRE(all.size() == static_cast<std::size_t>(s.rows));
    for (std::int64_t i = 0; i < s.rows; ++i) REQUIRE(all[static_cast<std::size_t>(i)] == i);
    // Merges are numbered in the order the runtime asked: barrier merges, then the final one.
    // Each aligned barrier's merge matches one flush: what the writers held then is exactly the
    // ids each reader's state says it had emitted.
    REQUIRE(s.reader_states.size() >= 3);  // checkpoints were taken mid-stream
    std::vector<std::set<std::int64_t>> flushes;
    for (auto& [id, ids] : s.flushed) flushes.push_back(ids);
    std::size_t matched = 0;
    for (auto& [merge, states] : s.reader_states) {
        REQUIRE(states.size() == 2);
        std::set<std::int64_t> emitted;
        for (std::int64_t r = 0; r < 2; ++r)
            for (std::int64_t id = r; id < std::min(as_int(states[r]), s.rows); id += 2)
                emitted.insert(id);
        bool found = false;
        for (const auto& f : flushes) found = found || f == emitted;
        INFO("merge " << merge << ": readers at " << states[0] << ", " << states[1]);
        CHECK(found);
        matched += found;
    }
    CHECK(matched == s.reader_states.size());
}

/// Clears what a run recorded, and its state, for another run.
void start_again(Seen& s, const std::string& dir) {
    std::filesystem::remove_all(dir);
    s.ids.clear();
    s.flushed.clear();
    s.reader_states.clear();
    s.reader_threads.clear();
    s.writer_threads.clear();
    s.reader1_waits = false;
    s.column_added = false;
}

}  // namespace

TEST_CASE_METHOD(Fixture, "source readers run on the writers' threads with aligned checkpoints") {
    if (available_cpus() < 2) return;  // the writers share the loop: the source does not split
    REQUIRE(run_pipeline(dir) == 0);
    check_aligned_run(s);
}

TEST_CASE_METHOD(Fixture, "a barrier asked of a reader whose batch waits for a writer follows it") {
    // A reader sends its batches straight to the writers' channels. A barrier asked of it
    // while one of them waits (for a full channel, or for the release of the barrier before)
    // must follow that batch: the reader's state already counts it. Before it did, the barrier
    // went ahead and checkpoints held states past what the writers had (a kill -9 then lost
    // those rows).
    if (available_cpus() < 2) return;
    s.slow_writers = true;
    REQUIRE(run_pipeline(dir) == 0);
    check_aligned_run(s);
}

TEST_CASE_METHOD(Fixture, "a reader's rows after its schema change reach the writers after it") {
    // The schema change goes through the loop; the rows after it, which the reader could route
    // itself, wait until the loop has routed it, so no writer gets a row wider than its table.
    if (available_cpus() < 2) return;
    s.add_column_after = s.rows / 3;
    REQUIRE(run_pipeline(dir) == 0);
    check_aligned_run(s);
    CHECK(s.columns[TableId::of("db", "t0")] == 2);
    CHECK(s.columns[TableId::of("db", "t1")] == 2);
    CHECK(s.rows_of_another_width == 0);
}

TEST_CASE_METHOD(Fixture,
                 "rows built on another reader's schema change reach the writers after it") {
    // Reader 0 adds a column to the table both read; reader 1 then sends rows that have it. They
    // go through the loop (emit_after_schema_changes), behind the change. Sent by emit(), the
    // reader routed them itself, and 50-325 of them reached the writers before the change did,
    // wider than their table.
    if (available_cpus() < 2) return;
    s.shared_table = true;
    s.add_column_after = s.rows / 3;
    for (int run = 0; run < 5; ++run) {
        start_again(s, dir);
        REQUIRE(run_pipeline(dir) == 0);
        check_aligned_run(s);
        CHECK(s.columns[kTable] == 2);
        CHECK(s.rows_of_another_width == 0);
    }
}

TEST_CASE_METHOD(Fixture, "a source reader that fails stops the pipeline") {
    if (available_cpus() < 2) return;
    s.fail_at = s.rows / 2 + 1;  // reader 1's
    CHECK(run_pipeline(dir) == 1);
}

TEST_CASE_METHOD(
    Fixture, "a reader's row wider than its table stops the pipeline before any writer has it") {
    if (available_cpus() < 2) return;
    s.wide_row_at = s.rows / 2 + 1;  // reader 1's
    CHECK(run_pipeline(dir) == 1);
    CHECK(s.rows_of_another_width == 0);  // before: written by the table's one column, exit 0
}

TEST_CASE_METHOD(Fixture, "a writer that fails while readers send to it stops the pipeline") {
    // The readers route their rows themselves and may be waiting for the failed writer's full
    // channel: the run still ends, with the failure.
    if (available_cpus() < 2) return;
    s.slow_writers = true;
    s.writer_fails_at = s.rows / 2;
    CHECK(run_pipeline(dir) == 1);
}

TEST_CASE_METHOD(Fixture, "runs whose readers end among frequent checkpoints all end") {
    // The last reader's end can come while a barrier injected just before is still on its way
    // from another reader. Before the loop waited for such barriers, the send of one could wait
    // forever on a channel nobody read any more, and the run never ended (the test above hung
    // about once in 25 runs). Many short runs, each bounded by the watchdog.
    if (available_cpus() < 2) return;
    s.rows = 6'000;
    for (int run = 0; run < 20; ++run) {
        std::filesystem::remove_all(dir);
        s.ids.clear();
        REQUIRE(run_pipeline(dir) == 0);
        std::size_t rows = 0;
        for (auto& [writer, ids] : s.ids) rows += ids.size();
        REQUIRE(rows == static_cast<std::size_t>(s.rows));
    }
}

TEST_CASE_METHOD(Fixture,
                 "with a transform, each reader transforms its rows, checkpoints aligned") {
    if (available_cpus() < 2) return;
    s.transform = true;
    REQUIRE(run_pipeline(dir) == 0);
    check_aligned_run(s);
    CHECK(s.rows_not_transformed == 0);
}

TEST_CASE_METHOD(Fixture, "with a transform, a reader's rows after its schema change get it") {
    // Its operator learns the new column as the transform stage does (the loop hands it every
    // schema change it sends into the stage). Without that, the reader transformed its wider
    // rows by the schema it began with, and wrote them narrower than their table.
    if (available_cpus() < 2) return;
    s.transform = true;
    s.add_column_after = s.rows / 3;
    REQUIRE(run_pipeline(dir) == 0);
    check_aligned_run(s);
    CHECK(s.columns[TableId::of("db", "t0")] == 3);
    CHECK(s.columns[TableId::of("db", "t1")] == 3);
    CHECK(s.rows_of_another_width == 0);
    CHECK(s.rows_not_transformed == 0);
}

TEST_CASE_METHOD(Fixture,
                 "with a transform, a reader's rows after another's schema change get it") {
    if (available_cpus() < 2) return;
    s.transform = true;
    s.shared_table = true;
    s.add_column_after = s.rows / 3;
    for (int run = 0; run < 3; ++run) {
        start_again(s, dir);
        REQUIRE(run_pipeline(dir) == 0);
        check_aligned_run(s);
        CHECK(s.columns[kTable] == 3);
        CHECK(s.rows_of_another_width == 0);
        CHECK(s.rows_not_transformed == 0);
    }
}
