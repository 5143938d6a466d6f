// SinkWriter::fresh_start_state: on a fresh start the runtime stores the writers' claims as a
// checkpoint before the source runs, so that a crash before the first regular checkpoint resumes
// the writers into the output they claimed, with the source starting fresh.
#include <boost/asio/awaitable.hpp>
#include <catch2/catch.hpp>
#include <filesystem>
#include <optional>
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

struct Observed {
    bool source_fails = false;  // the source throws at once: a crash before any checkpoint
    std::optional<std::string> claim = "claimed output";  // what fresh_start_state() answers
    int claims = 0;
    std::optional<std::string> restored_source;
    std::optional<std::string> restored_writer;
};

Observed* observed = nullptr;

class FailingSource final : public Source {
  public:
    void restore(std::string_view state) override { observed->restored_source = state; }
    boost::asio::awaitable<void> run(SourceOutput&) override {
        if (observed->source_fails) throw std::runtime_error("crash before the first checkpoint");
        co_return;
    }
    std::string snapshot_state() override { return "position"; }
};

class ClaimingWriter final : public SinkWriter {
  public:
    std::optional<std::string> fresh_start_state() override {
        ++observed->claims;
        return observed->claim;
    }
    void restore(std::string_view state) override { observed->restored_writer = state; }
    boost::asio::awaitable<void> write(EventSelection) override { co_return; }
    boost::asio::awaitable<std::string> flush(std::uint64_t) override { co_return "flushed"; }
};

const ConnectorRegistry& registry() {
    static ConnectorRegistry r = fakes::registry_of(
        "failing", [](const ConnectorContext&) { return std::make_unique<FailingSource>(); },
        "claiming",
        [](const ConnectorContext&) { return std::make_unique<fakes::SinkOf<ClaimingWriter>>(); });
    return r;
}

struct Fixture {
    Observed seen;
    std::string dir = (std::filesystem::temp_directory_path() /
                       ("cdcd-fresh-claim-test-" + std::to_string(::getpid())))
                          .string();

    Fixture() {
        observed = &seen;
        std::filesystem::remove_all(dir);
    }
    ~Fixture() {
        std::filesystem::remove_all(dir);
        observed = nullptr;
    }

    int run() {
        seen.restored_source.reset();
        seen.restored_writer.reset();
        auto definition = config::load_pipeline_string(
            "source:\n  type: failing\nsink:\n  type: claiming\npipeline:\n  name: claim\n"
            "  execution.checkpointing.interval: 10min\n",
            "claim.yaml", config::Secrets());
        RunOptions options;
        options.state_dir = dir;
        options.handle_signals = false;
        PipelineRuntime runtime(plan_pipeline(std::move(definition), registry()), options);
        return runtime.run();
    }

    std::vector<state::Checkpoint> stored() {
        return state::CheckpointStore::open(dir)->list("claim");
    }
};

}  // namespace

TEST_CASE(
    "a fresh start stores the writers' claims before the source runs, and a crash resumes them") {
    Fixture f;
    f.seen.source_fails = true;
    REQUIRE(f.run() == 1);
    CHECK(f.seen.claims == 1);
    auto checkpoints = f.stored();
    REQUIRE(checkpoints.size() == 1);
    // Only the writer's claim: restoring it is a fresh start of everything else.
    CHECK(checkpoints[0].parts ==
          std::map<std::string, std::string>{{"sink/0", "claimed output"}, {"previous", "0"}});

    f.seen.source_fails = false;
    REQUIRE(f.run() == 0);
    CHECK(f.seen.claims == 1);  // resumed, not claimed again
    CHECK(f.seen.restored_writer == std::optional<std::string>("claimed output"));
    CHECK_FALSE(f.seen.restored_source);  // the source starts from its startup mode
    // The final checkpoint follows the claim in the pipeline's history.
    auto after = f.stored();
    REQUIRE(after.size() == 2);
    CHECK(after[1].parts.at("source") == "position");
    CHECK(after[1].parts.at("previous") == std::to_string(after[0].id));
}

TEST_CASE("writers with nothing to claim add no checkpoint to a fresh start") {
    Fixture f;
    f.seen.source_fails = true;
    f.seen.claim.reset();
    REQUIRE(f.run() == 1);
    CHECK(f.seen.claims == 1);
    CHECK(f.stored().empty());
}
