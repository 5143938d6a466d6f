// A source split into readers (Source::split_readers) reads on the sink writers' threads, and
// its checkpoints stay aligned: what the writers had received when they flushed for checkpoint N
// is exactly what the readers' states in checkpoint N say they had emitted, no more and no less.
// A reader that fails stops the pipeline.
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
};
Seen* seen = nullptr;

/// Reader `index` of `count` emits the ids equal to `index` modulo `count`, ascending, from
/// `next`; its state is the next id it would emit.
class EvenOddReader final : public SourceReader {
  public:
    EvenOddReader(std::int64_t index, std::int64_t count) : count_(count), next_(index) {}
    boost::asio::awaitable<void> run(SourceOutput& output) override {
        {
            std::lock_guard lock(seen->mutex);
            seen->reader_threads.insert(std::this_thread::get_id());
        }
        co_await output.emit(testing::create_id_table(kTable));
        while (next_ < seen->rows && !output.stopping()) {
            EventBatch batch;
            for (int i = 0; i < 50 && next_ < seen->rows; ++i, next_ += count_) {
                if (next_ == seen->fail_at) throw std::runtime_error("reader failed on purpose");
                RowBuilder b(1);
                b.set_long(0, next_);
                batch.push_back(Event(DataChangeEvent::insert(kTable, std::move(b).build())));
            }
            co_await output.emit(std::move(batch));
            if ((next_ / count_) % 500 == 0) co_await output.sleep(1);  // lets checkpoints in
        }
    }
    std::string snapshot_state() override { return std::to_string(next_); }

  private:
    std::int64_t count_, next_;
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
    boost::asio::awaitable<void> write(EventBatch& events) override {
        std::lock_guard lock(seen->mutex);
        seen->writer_threads.insert(std::this_thread::get_id());
        for (const Event& e : events)
            if (const auto* data = std::get_if<DataChangeEvent>(&e)) {
                std::int64_t id = data->after->view().get_long(0);
                seen->ids[index_].push_back(id);
                written_.insert(id);
            }
        co_return;
    }
    boost::asio::awaitable<std::string> flush(std::uint64_t id) override {
        std::lock_guard lock(seen->mutex);
        if (id > 0) seen->flushed[id].insert(written_.begin(), written_.end());
        co_return std::string();
    }

  private:
    int index_;
    std::set<std::int64_t> written_;
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

int run_pipeline(const std::string& dir) {
    ConnectorRegistry registry = fakes::registry_of(
        "split",
        [](const ConnectorContext&) { return std::make_unique<ObservedSplittingSource>(); },
        "recording", [](const ConnectorContext&) { return std::make_unique<RecordingSink>(); });
    return testing::run_pipeline_yaml_within(
        registry,
        "source:\n  type: split\nsink:\n  type: recording\npipeline:\n  name: readers\n"
        "  parallelism: 2\n  execution.checkpointing.interval: 2ms\n",
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

}  // namespace

TEST_CASE_METHOD(Fixture, "source readers run on the writers' threads with aligned checkpoints") {
    if (available_cpus() < 2) return;  // the writers share the loop: the source does not split
    REQUIRE(run_pipeline(dir) == 0);
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

TEST_CASE_METHOD(Fixture, "a source reader that fails stops the pipeline") {
    if (available_cpus() < 2) return;
    s.fail_at = s.rows / 2 + 1;  // reader 1's
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
