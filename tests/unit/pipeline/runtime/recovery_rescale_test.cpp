// A checkpoint taken at another pipeline.parallelism: the sink redistributes its writers' states
// (Sink::rescale_writer_states), the writers restore theirs (or claim fresh output), and the
// runtime stores the result as a checkpoint at the new parallelism before anything runs, so a
// crash right after resumes without rescaling again. A sink that cannot redistribute its states
// has the restore refused, naming both parallelisms and why, with nothing discarded.
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <boost/asio/awaitable.hpp>
#include <catch2/catch.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "pipeline/connector/registry.h"
#include "state/checkpoint_store.h"
#include "tests/unit/pipeline/connector/fake_connectors.h"
#include "tests/unit/pipeline/runtime/run_pipeline.h"

using namespace cdcd;

namespace {

struct Observed {
    bool source_fails = false;  // the source throws once it has run: a crash
    bool sink_refuses = false;  // rescale_writer_states throws
    int rescales = 0;
    std::vector<std::string> rescaled_from;            // the old writers' states it was given
    std::vector<std::optional<std::string>> restored;  // by writer index
    std::vector<int> claims;  // writers whose fresh_start_state() was asked
};

Observed* observed = nullptr;

class OneShotSource final : public Source {
  public:
    void restore(std::string_view) override {}
    boost::asio::awaitable<void> run(SourceOutput&) override {
        if (observed->source_fails) throw std::runtime_error("crash");
        co_return;
    }
    std::string snapshot_state() override { return "position"; }
};

/// Writer i stores "state of writer i"; what it restores and claims is observed.
class IndexedWriter final : public SinkWriter {
  public:
    explicit IndexedWriter(int index) : index_(index) {}
    std::optional<std::string> fresh_start_state() override {
        observed->claims.push_back(index_);
        return std::nullopt;
    }
    void restore(std::string_view state) override {
        observed->restored[static_cast<std::size_t>(index_)] = std::string(state);
    }
    boost::asio::awaitable<void> write(EventSelection) override { co_return; }
    boost::asio::awaitable<std::string> flush(std::uint64_t) override {
        co_return "state of writer " + std::to_string(index_);
    }

  private:
    int index_;
};

/// Hands every new writer all the old states joined, except writer 1, which starts fresh.
class RescalingSink final : public Sink {
  public:
    std::unique_ptr<SinkWriter> create_writer(int index, int parallelism) override {
        observed->restored.resize(static_cast<std::size_t>(parallelism));
        return std::make_unique<IndexedWriter>(index);
    }
    MetadataApplier& metadata_applier() override { return applier_; }
    std::vector<std::optional<std::string>> rescale_writer_states(
        const std::vector<std::string>& states, int parallelism) const override {
        ++observed->rescales;
        observed->rescaled_from = states;
        if (observed->sink_refuses) throw std::runtime_error("its files are the writers' own");
        std::string joined;
        for (const auto& s : states) joined += (joined.empty() ? "" : " + ") + s;
        std::vector<std::optional<std::string>> out(static_cast<std::size_t>(parallelism), joined);
        if (parallelism > 1) out[1].reset();
        return out;
    }

  private:
    fakes::AcceptingApplier applier_;
};

const ConnectorRegistry& registry() {
    static ConnectorRegistry r = fakes::registry_of(
        "one-shot", [](const ConnectorContext&) { return std::make_unique<OneShotSource>(); },
        "rescaling", [](const ConnectorContext&) { return std::make_unique<RescalingSink>(); });
    return r;
}

struct Fixture {
    Observed seen;
    testing::TemporaryStateDir dir{"rescale-test"};

    Fixture() { observed = &seen; }
    ~Fixture() { observed = nullptr; }

    int run(int parallelism) {
        seen.restored.clear();
        seen.claims.clear();
        return testing::run_pipeline_yaml(
            registry(),
            "source:\n  type: one-shot\nsink:\n  type: rescaling\npipeline:\n  name: rescale\n"
            "  parallelism: " +
                std::to_string(parallelism) + "\n  execution.checkpointing.interval: 10min\n",
            dir.path);
    }

    std::vector<state::Checkpoint> stored() {
        return state::CheckpointStore::open(dir.path)->list("rescale");
    }
};

/// What the runtime logs while it lives.
struct LogCapture {
    std::ostringstream out;
    std::shared_ptr<spdlog::logger> previous = spdlog::default_logger();
    LogCapture() {
        spdlog::set_default_logger(std::make_shared<spdlog::logger>(
            "rescale-test", std::make_shared<spdlog::sinks::ostream_sink_mt>(out)));
    }
    ~LogCapture() { spdlog::set_default_logger(previous); }
};

}  // namespace

TEST_CASE("a checkpoint of 3 writers resumes with 2: the sink's states, redistributed") {
    Fixture f;
    REQUIRE(f.run(3) == 0);  // its final checkpoint: 3 writers' states
    REQUIRE(f.stored().back().fingerprint.at("pipeline.parallelism") == "3");

    f.seen.source_fails = true;  // crashes after the restore: what was stored stays
    REQUIRE(f.run(2) == 1);
    CHECK(f.seen.rescales == 1);
    CHECK(f.seen.rescaled_from ==
          std::vector<std::string>{"state of writer 0", "state of writer 1", "state of writer 2"});
    const std::string joined = "state of writer 0 + state of writer 1 + state of writer 2";
    REQUIRE(f.seen.restored.size() == 2);
    CHECK(f.seen.restored[0] == std::optional<std::string>(joined));
    CHECK_FALSE(f.seen.restored[1]);                 // starts fresh: not restored...
    CHECK(f.seen.claims == std::vector<int>{0, 1});  // ...and every writer is asked what it owns

    // Stored before the source ran: the restored state at parallelism 2, the same position.
    auto after = f.stored();
    const state::Checkpoint& rescaled = after.back();
    CHECK(rescaled.fingerprint.at("pipeline.parallelism") == "2");
    CHECK(rescaled.parts.at("source") == "position");
    CHECK(rescaled.parts.at("sink/0") == joined);
    CHECK_FALSE(rescaled.parts.count("sink/1"));
    CHECK_FALSE(rescaled.parts.count("sink/2"));

    // The crash resumes from it at parallelism 2 without redistributing again.
    f.seen.source_fails = false;
    REQUIRE(f.run(2) == 0);
    CHECK(f.seen.rescales == 1);
    CHECK(f.seen.restored[0] == std::optional<std::string>(joined));
    CHECK(f.stored().back().parts.at("sink/1") == "state of writer 1");
}

TEST_CASE("a sink that cannot redistribute its writers' states has the restore refused") {
    Fixture f;
    REQUIRE(f.run(1) == 0);
    auto before = f.stored();
    f.seen.sink_refuses = true;
    {
        LogCapture log;
        REQUIRE(f.run(2) == 1);
        CHECK_THAT(log.out.str(),
                   Catch::Contains("was taken with pipeline.parallelism=1, and this pipeline has "
                                   "2, but sink `rescaling` cannot resume at another "
                                   "parallelism: its files are the writers' own. Nothing was "
                                   "restored or discarded. Run it with pipeline.parallelism: 1"));
    }
    CHECK(f.seen.rescales == 1);
    REQUIRE(f.seen.restored.size() == 2);
    CHECK_FALSE(f.seen.restored[0]);  // nothing restored
    auto after = f.stored();
    REQUIRE(after.size() == before.size());  // nothing discarded or added
    CHECK(after.back().id == before.back().id);

    // The same parallelism as the checkpoint still resumes.
    REQUIRE(f.run(1) == 0);
    CHECK(f.seen.restored[0] == std::optional<std::string>("state of writer 0"));
}

TEST_CASE("a sink whose writers store nothing resumes at any parallelism by default") {
    struct Stateless final : SinkWriter {
        boost::asio::awaitable<void> write(EventSelection) override { co_return; }
        boost::asio::awaitable<std::string> flush(std::uint64_t) override { co_return ""; }
    };
    fakes::SinkOf<Stateless> sink;
    auto states = sink.rescale_writer_states({"", ""}, 3);
    CHECK(states == std::vector<std::optional<std::string>>(3));
    CHECK_THROWS_WITH(sink.rescale_writer_states({"", "offset 7"}, 1),
                      Catch::Contains("its writers keep a state of their own"));
}

TEST_CASE("a parallelism no pipeline runs at is a damaged checkpoint, refused as such") {
    Fixture f;
    REQUIRE(f.run(1) == 0);
    {
        auto store = state::CheckpointStore::open(f.dir.path);
        state::Checkpoint damaged = store->list("rescale").back();
        damaged.id += 1;
        damaged.fingerprint["pipeline.parallelism"] = "2000000000";
        store->write("rescale", damaged, 3);
    }
    LogCapture log;
    REQUIRE(f.run(1) == 1);
    CHECK_THAT(log.out.str(), Catch::Contains("was taken with pipeline.parallelism=2000000000, "
                                              "and this pipeline has 1; restore is refused"));
    CHECK(f.seen.rescales == 0);  // the sink is not asked to make 2,000,000,000 states
}
