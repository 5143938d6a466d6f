// The runtime's side of two-phase-commit sinks whose commit a crash can lose
// (SinkWriter::recoverable_checkpoint): the whole pipeline resumes from the older checkpoint the
// sink names, newer checkpoints are discarded, ids are never reused, enough checkpoints are kept,
// and a needed checkpoint that is gone is an error, never a silent loss.
//
// The sink here models a Kafka-transaction sink: each checkpoint's records form a transaction,
// prepared at the barrier and committed when the checkpoint is durable; a "broker" (the World)
// outlives the pipeline run, and a new writer aborts whatever is still prepared, as a new
// transactional producer does. A run "crashes" by failing in the commit of a chosen checkpoint,
// after that checkpoint is durable.
#include <boost/asio/awaitable.hpp>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "config/pipeline_def.h"
#include "pipeline/connector/registry.h"
#include "pipeline/runtime/pipeline_plan.h"
#include "pipeline/runtime/pipeline_runtime.h"
#include "state/checkpoint_store.h"
#include "tests/unit/pipeline/connector/fake_connectors.h"

using namespace cdcd;

namespace {

const TableId kTable = TableId::of("db", "t");

Schema table_schema() {
    return SchemaBuilder().column("id", DataType::bigint().not_null()).primary_key({"id"}).build();
}

struct World {
    // The target system, which survives crashes.
    std::vector<std::int64_t> committed;                          // visible output, in order
    std::map<std::uint64_t, std::vector<std::int64_t>> prepared;  // checkpoint → its records
    std::set<std::uint64_t> committed_checkpoints;
    // The test's knobs.
    std::uint64_t crash_at_commit = 0;  // notify_checkpoint_complete(id) fails before committing
    int retain = 4;                     // the writer's checkpoints_to_retain()
    std::int64_t source_limit = 0;      // the source emits ids [0, limit)
    // What one run saw.
    std::optional<std::string> restored_source;
    std::optional<std::string> restored_writer;
    std::vector<std::uint64_t> flushed;  // checkpoint ids the writer flushed
    std::int64_t source_position = 0;    // after the last emit

    void new_run() {
        restored_source.reset();
        restored_writer.reset();
        flushed.clear();
    }
};

World* world = nullptr;

class SeqSource final : public Source {
  public:
    void restore(std::string_view state) override {
        world->restored_source = std::string(state);
        position_ = std::stoll(std::string(state));
    }
    boost::asio::awaitable<void> run(SourceOutput& output) override {
        EventBatch create;
        create.push_back(Event(CreateTableEvent{kTable, table_schema()}));
        co_await output.emit(std::move(create));
        while (position_ < world->source_limit && !output.stopping()) {
            EventBatch batch;
            for (int i = 0; i < 10 && position_ < world->source_limit; ++i) {
                RowBuilder b(1);
                b.set_long(0, position_);
                Row row = std::move(b).build();
                batch.push_back(Event(DataChangeEvent::insert(kTable, std::move(row))));
                ++position_;
            }
            world->source_position = position_;
            co_await output.emit(std::move(batch));
            co_await output.sleep(1);
        }
    }
    std::string snapshot_state() override { return std::to_string(position_); }

  private:
    std::int64_t position_ = 0;
};

class TwoPhaseWriter final : public SinkWriter {
  public:
    // A new producer aborts what the previous one left prepared.
    TwoPhaseWriter() { world->prepared.clear(); }

    int checkpoints_to_retain() const override { return world->retain; }

    // The state lists the checkpoints prepared and not yet committed, as "3,4,".
    std::uint64_t recoverable_checkpoint(std::string_view state, std::uint64_t id) override {
        std::istringstream in{std::string(state)};
        std::string item;
        while (std::getline(in, item, ',')) {
            if (item.empty()) continue;
            std::uint64_t c = std::stoull(item);
            if (!world->committed_checkpoints.count(c)) return c - 1;
        }
        return id;
    }
    void restore(std::string_view state) override { world->restored_writer = std::string(state); }

    boost::asio::awaitable<void> write(EventSelection events) override {
        for (const Event& e : events)
            if (auto* data = std::get_if<DataChangeEvent>(&e))
                open_.push_back(data->after->view().get_long(0));
        co_return;
    }
    boost::asio::awaitable<std::string> flush(std::uint64_t checkpoint_id) override {
        std::string state;
        if (checkpoint_id == 0) co_return state;
        world->flushed.push_back(checkpoint_id);
        world->prepared[checkpoint_id] = std::move(open_);
        open_.clear();
        pending_.insert(checkpoint_id);
        for (auto c : pending_) state += std::to_string(c) + ",";
        co_return state;
    }
    boost::asio::awaitable<void> notify_checkpoint_complete(std::uint64_t id) override {
        if (id == world->crash_at_commit) throw std::runtime_error("crash before the commit");
        while (!pending_.empty() && *pending_.begin() <= id) {
            std::uint64_t c = *pending_.begin();
            auto& records = world->prepared[c];
            world->committed.insert(world->committed.end(), records.begin(), records.end());
            world->prepared.erase(c);
            world->committed_checkpoints.insert(c);
            pending_.erase(pending_.begin());
        }
        co_return;
    }

  private:
    std::vector<std::int64_t> open_;
    std::set<std::uint64_t> pending_;
};

const ConnectorRegistry& registry() {
    static ConnectorRegistry r = fakes::registry_of(
        "seq", [](const ConnectorContext&) { return std::make_unique<SeqSource>(); }, "two-phase",
        [](const ConnectorContext&) { return std::make_unique<fakes::SinkOf<TwoPhaseWriter>>(); });
    return r;
}

struct Fixture {
    World w;
    std::string dir;

    Fixture() {
        world = &w;
        dir = (std::filesystem::temp_directory_path() /
               ("cdcd-rollback-test-" + std::to_string(::getpid())))
                  .string();
        std::filesystem::remove_all(dir);
    }
    ~Fixture() {
        std::filesystem::remove_all(dir);
        world = nullptr;
    }

    int run(int num_retained) {
        w.new_run();
        std::string yaml =
            "source:\n  type: seq\nsink:\n  type: two-phase\npipeline:\n  name: rollback\n"
            "  execution.checkpointing.interval: 5ms\n  state.checkpoints.num-retained: " +
            std::to_string(num_retained) + "\n";
        auto definition = config::load_pipeline_string(yaml, "rollback.yaml", config::Secrets());
        RunOptions options;
        options.state_dir = dir;
        options.handle_signals = false;
        PipelineRuntime runtime(plan_pipeline(std::move(definition), registry()), options);
        return runtime.run();
    }

    std::vector<std::uint64_t> stored_ids() {
        auto store = state::CheckpointStore::open(dir);
        std::vector<std::uint64_t> ids;
        for (const auto& c : store->list("rollback")) ids.push_back(c.id);
        return ids;
    }

    /// Every id in [0, n) exactly once, in order (one writer, one source split).
    bool committed_exactly_once(std::int64_t n) const {
        if (static_cast<std::int64_t>(w.committed.size()) != n) return false;
        for (std::int64_t i = 0; i < n; ++i)
            if (w.committed[i] != i) return false;
        return true;
    }
};

}  // namespace

TEST_CASE(
    "a sink whose commit was lost makes the whole pipeline resume from the older checkpoint") {
    Fixture f;
    f.w.source_limit = 1'000'000'000;  // ends with the crash
    f.w.crash_at_commit = 6;
    REQUIRE(f.run(1) == 1);
    // The writer asked for 4 checkpoints although num-retained is 1; 6 is durable, not committed.
    CHECK(f.stored_ids() == std::vector<std::uint64_t>{3, 4, 5, 6});
    REQUIRE(f.w.committed_checkpoints == std::set<std::uint64_t>{1, 2, 3, 4, 5});
    const std::int64_t committed_in_first_run = static_cast<std::int64_t>(f.w.committed.size());
    REQUIRE(f.committed_exactly_once(committed_in_first_run));
    REQUIRE(f.w.source_position > committed_in_first_run);  // checkpoint 6 held records

    f.w.crash_at_commit = 0;
    f.w.source_limit = f.w.source_position + 200;
    REQUIRE(f.run(1) == 0);
    // Restored from checkpoint 5: the source resumes right after the last committed record, and
    // the writer gets its state of checkpoint 5 (where nothing older is pending).
    REQUIRE(f.w.restored_source);
    CHECK(*f.w.restored_source == std::to_string(committed_in_first_run));
    REQUIRE(f.w.restored_writer);
    CHECK(*f.w.restored_writer == "5,");
    CHECK(f.committed_exactly_once(f.w.source_limit));
    // Checkpoint 6 was discarded and its id (and any before it) is not used again.
    REQUIRE_FALSE(f.w.flushed.empty());
    CHECK(f.w.flushed.front() > 6);
    auto ids = f.stored_ids();
    REQUIRE_FALSE(ids.empty());
    CHECK(ids.front() > 6);
}

TEST_CASE("without a rollback the latest checkpoint is restored as before") {
    Fixture f;
    f.w.source_limit = 1000;
    REQUIRE(f.run(2) == 0);
    auto first = f.stored_ids();
    CHECK(first.size() == 4);  // the writer's 4, more than num-retained 2
    f.w.source_limit = 1500;
    REQUIRE(f.run(2) == 0);
    REQUIRE(f.w.restored_source);
    CHECK(*f.w.restored_source == "1000");
    CHECK(f.committed_exactly_once(1500));
    CHECK(f.w.flushed.front() == first.back() + 1);
}

TEST_CASE("a lost commit of the very first checkpoint resumes from the source's startup mode") {
    Fixture f;
    f.w.source_limit = 1'000'000'000;
    f.w.crash_at_commit = 1;
    REQUIRE(f.run(3) == 1);
    CHECK(f.stored_ids() == std::vector<std::uint64_t>{1});
    CHECK(f.w.committed.empty());

    f.w.crash_at_commit = 0;
    f.w.source_limit = f.w.source_position + 100;
    REQUIRE(f.run(3) == 0);
    CHECK_FALSE(f.w.restored_source);  // a fresh start
    CHECK_FALSE(f.w.restored_writer);
    CHECK(f.committed_exactly_once(f.w.source_limit));
    REQUIRE_FALSE(f.w.flushed.empty());
    CHECK(f.w.flushed.front() > 1);
}

TEST_CASE("a rollback to a checkpoint that is no longer stored is refused, nothing is discarded") {
    Fixture f;
    f.w.retain = 1;  // a writer that under-declares what it needs
    f.w.source_limit = 1'000'000'000;
    f.w.crash_at_commit = 6;
    REQUIRE(f.run(1) == 1);
    REQUIRE(f.stored_ids() == std::vector<std::uint64_t>{6});

    f.w.crash_at_commit = 0;
    f.w.source_limit = f.w.source_position + 100;
    CHECK(f.run(1) == 1);
    CHECK_FALSE(f.w.restored_source);
    CHECK(f.w.flushed.empty());  // nothing ran
    CHECK(f.stored_ids() == std::vector<std::uint64_t>{6});
}
