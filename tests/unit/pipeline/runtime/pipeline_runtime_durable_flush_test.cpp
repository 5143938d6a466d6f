// A writer whose checkpoint flush becomes durable in the background
// (SinkWriter::flush_for_checkpoint with CheckpointFlush::until_durable, as the file sink's
// fdatasync on a helper thread) goes on writing what follows the barrier meanwhile. Its
// checkpoint is acknowledged, stored and notified only once the flush is durable, checkpoints
// stay in order, the run ends after the final one, and a flush that cannot become durable fails
// the run.
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/unit/pipeline/connector/fake_connectors.h"
#include "tests/unit/pipeline/runtime/run_pipeline.h"

using namespace cdcd;

namespace {

const TableId kTable = TableId::of("db", "t");
constexpr std::int64_t kRows = 20'000;

/// What the writers saw, from whichever threads they ran on.
struct Seen {
    std::mutex mutex;
    std::vector<std::string> errors;
    std::map<int, std::vector<std::uint64_t>> durable;  // checkpoint ids, as they became durable
    std::map<int, std::vector<std::uint64_t>> notified;
    std::map<int, int> overlapped;  // flushes the writer wrote on past before they were durable
    std::int64_t rows = 0;
    bool fail_to_sync = false;
    bool never_durable = false;  // a sync that hangs
};

Seen* seen = nullptr;

/// kRows inserts keyed by id, pausing now and then so that checkpoints come in between.
class CountingSource final : public Source {
  public:
    void restore(std::string_view) override {}
    boost::asio::awaitable<void> run(SourceOutput& output) override {
        co_await output.emit(testing::create_id_table(kTable));
        while (position_ < kRows) {
            EventBatch batch;
            for (int i = 0; i < 100; ++i, ++position_) {
                RowBuilder b(1);
                b.set_long(0, position_);
                batch.push_back(Event(DataChangeEvent::insert(kTable, std::move(b).build())));
            }
            co_await output.emit(std::move(batch));
            if (position_ % 2'000 == 0) co_await output.sleep(2);
        }
    }
    std::string snapshot_state() override { return std::to_string(position_); }

  private:
    std::int64_t position_ = 0;
};

/// Hands its state over at the barrier and becomes durable only once it has written something
/// after it (or after 200 ms: the last checkpoints have nothing after them).
class BackgroundFlushWriter final : public SinkWriter {
  public:
    explicit BackgroundFlushWriter(int index) : index_(index) {}
    boost::asio::awaitable<void> write(EventSelection events) override {
        ++writes_;
        std::lock_guard lock(seen->mutex);
        for (const Event& e : events)
            if (std::holds_alternative<DataChangeEvent>(e)) ++seen->rows;
        co_return;
    }
    boost::asio::awaitable<std::string> flush(std::uint64_t) override {
        co_return std::to_string(writes_);
    }
    boost::asio::awaitable<CheckpointFlush> flush_for_checkpoint(std::uint64_t id) override {
        CheckpointFlush flushed;
        flushed.state = std::to_string(writes_);
        flushed.until_durable = become_durable(id, writes_);
        co_return flushed;
    }
    boost::asio::awaitable<void> notify_checkpoint_complete(std::uint64_t id) override {
        std::lock_guard lock(seen->mutex);
        const auto& durable = seen->durable[index_];
        if (std::find(durable.begin(), durable.end(), id) == durable.end())
            seen->errors.push_back("writer " + std::to_string(index_) + ": checkpoint " +
                                   std::to_string(id) + " completed before its flush was durable");
        seen->notified[index_].push_back(id);
        co_return;
    }

  private:
    boost::asio::awaitable<void> become_durable(std::uint64_t id, std::uint64_t writes_then) {
        boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor);
        if (seen->never_durable) {
            timer.expires_after(std::chrono::hours(1));
            co_await timer.async_wait(boost::asio::use_awaitable);
        }
        for (int waited = 0; waited < 200 && writes_ == writes_then; ++waited) {
            timer.expires_after(std::chrono::milliseconds(1));
            co_await timer.async_wait(boost::asio::use_awaitable);
        }
        std::lock_guard lock(seen->mutex);
        if (seen->fail_to_sync) throw std::runtime_error("cannot sync: the disk is gone");
        if (writes_ > writes_then) ++seen->overlapped[index_];
        seen->durable[index_].push_back(id);
    }

    int index_;
    std::uint64_t writes_ = 0;  // on the writer's executor only
};

int run_pipeline(int parallelism, const std::string& dir, const std::string& options = "") {
    const bool independent = parallelism > 1;  // writers on threads of their own
    ConnectorRegistry registry = fakes::registry_of(
        "counting", [](const ConnectorContext&) { return std::make_unique<CountingSource>(); },
        "background-flush",
        [independent](const ConnectorContext&) {
            return std::make_unique<fakes::IndexedSinkOf<BackgroundFlushWriter>>(independent);
        });
    return testing::run_pipeline_yaml_within(
        registry,
        "source:\n  type: counting\nsink:\n  type: background-flush\npipeline:\n  name: durable\n"
        "  parallelism: " +
            std::to_string(parallelism) + "\n  execution.checkpointing.interval: 5ms\n" + options,
        dir, std::chrono::seconds(60));
}

struct Fixture {
    Seen s;
    testing::TemporaryStateDir state{"durable-flush-test"};
    Fixture() { seen = &s; }
    ~Fixture() { seen = nullptr; }
};

}  // namespace

TEST_CASE_METHOD(Fixture, "a writer writes on while its checkpoint flush becomes durable") {
    for (int parallelism : {1, 2}) {
        DYNAMIC_SECTION("parallelism " << parallelism) {
            REQUIRE(run_pipeline(parallelism, state.path) == 0);
            CHECK(s.errors.empty());
            for (const auto& error : s.errors) UNSCOPED_INFO(error);
            CHECK(s.rows == kRows);
            for (int w = 0; w < parallelism; ++w) {
                const auto& durable = s.durable[w];
                REQUIRE(durable.size() >= 2);  // checkpoints mid-run, and the final one
                CHECK(std::is_sorted(durable.begin(), durable.end()));
                // Every checkpoint was notified (the last, the final one, too), and only once its
                // flush was durable (checked at each notification).
                CHECK(s.notified[w] == durable);
                // The writer wrote on past barriers whose flush was still in progress.
                CHECK(s.overlapped[w] > 0);
            }
        }
    }
}

TEST_CASE_METHOD(Fixture, "a checkpoint flush that cannot become durable fails the run") {
    s.fail_to_sync = true;
    CHECK(run_pipeline(1, state.path) != 0);
    CHECK(s.notified[0].empty());  // no checkpoint completed
}

TEST_CASE_METHOD(Fixture, "a checkpoint whose flush never ends fails the run at the timeout") {
    // Without execution.checkpointing.timeout the pipeline would run on, no checkpoint after
    // the one whose flush hangs.
    auto log = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(64);
    auto previous = spdlog::default_logger();
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("captured", log));
    s.never_durable = true;
    const auto started = std::chrono::steady_clock::now();
    const int status = run_pipeline(1, state.path, "  execution.checkpointing.timeout: 300ms\n");
    const auto took = std::chrono::steady_clock::now() - started;
    spdlog::set_default_logger(previous);
    CHECK(status != 0);
    CHECK(took < std::chrono::seconds(30));
    std::string text;
    for (const auto& line : log->last_formatted()) text += line;
    CHECK_THAT(text, Catch::Matchers::Contains(
                         "did not complete within execution.checkpointing.timeout (300 ms): "
                         "sink `background-flush` writer(s) 0 have not acknowledged it"));
    // Meanwhile the log said what it waited for (every quarter of this short timeout; every
    // 30 s at the default 10 min), instead of nothing until the failure.
    CHECK_THAT(text, Catch::Matchers::Contains("has waited"));
    CHECK_THAT(text, Catch::Matchers::Contains(
                         "ms: sink `background-flush` writer(s) 0 have not acknowledged it (their "
                         "flush has not ended); it fails the pipeline if not complete within "
                         "execution.checkpointing.timeout (300 ms)"));
    CHECK(s.notified[0].empty());
}
