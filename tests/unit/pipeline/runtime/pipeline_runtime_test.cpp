// The runtime's start: the checkpoint restore runs while the event loop already serves the
// admin endpoint, which answers /readyz 503 `starting` until the source runs. The state directory
// is locked before any connector exists, and a damaged checkpoint or store neither blocks the
// restart nor --reset-state.
#include "pipeline/runtime/pipeline_runtime.h"

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <catch2/catch.hpp>
#include <condition_variable>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "admin/address.h"
#include "admin/admin_server.h"
#include "config/pipeline_def.h"
#include "config/secrets.h"
#include "pipeline/runtime/pipeline_plan.h"
#include "state/checkpoint_store.h"
#include "tests/unit/pipeline/connector/fake_connectors.h"
#include "tests/unit/state/raw_checkpoint.h"

namespace asio = boost::asio;
using namespace cdcd;
using namespace std::chrono_literals;

namespace {

/// What the test and the source share: the source's restore blocks until released.
struct Gate {
    std::mutex mutex;
    std::condition_variable changed;
    bool restore_entered = false;
    bool restore_released = false;
    std::string restored_state;
    std::atomic<bool> finish{false};
    std::atomic<int> connectors_created{0};

    void enter_restore(std::string_view state) {
        std::unique_lock lock(mutex);
        restore_entered = true;
        restored_state = std::string(state);
        changed.notify_all();
        // A state the source cannot read (as a connector refuses a part of another version).
        if (state == "unreadable") throw std::runtime_error("unreadable position");
        // Bounded: a runtime that blocks its loop during the restore fails the test, not hangs.
        changed.wait_for(lock, 5s, [&] { return restore_released; });
    }
    bool wait_entered() {
        std::unique_lock lock(mutex);
        return changed.wait_for(lock, 10s, [&] { return restore_entered; });
    }
    void release() {
        std::lock_guard lock(mutex);
        restore_released = true;
        changed.notify_all();
    }
};

class GatedSource final : public Source {
  public:
    explicit GatedSource(Gate& gate) : gate_(gate) {}
    void restore(std::string_view state) override { gate_.enter_restore(state); }
    asio::awaitable<void> run(SourceOutput& output) override {
        for (int i = 0; i < 3000 && !gate_.finish && !output.stopping(); ++i)
            co_await output.sleep(10);
    }
    std::string snapshot_state() override { return "position"; }

  private:
    Gate& gate_;
};

ConnectorRegistry test_registry(Gate& gate) {
    return fakes::registry_of(
        "gated",
        [&gate](const ConnectorContext&) -> std::unique_ptr<Source> {
            ++gate.connectors_created;
            return std::make_unique<GatedSource>(gate);
        },
        "discard",
        [&gate](const ConnectorContext&) -> std::unique_ptr<Sink> {
            ++gate.connectors_created;
            return std::make_unique<fakes::SinkOf<fakes::DiscardingWriter>>();
        });
}

PipelinePlan test_plan(const ConnectorRegistry& registry) {
    auto def = config::load_pipeline_string(
        "source:\n  type: gated\nsink:\n  type: discard\npipeline:\n  name: gated\n"
        "  execution.checkpointing.interval: 10min\n",
        "gated.yaml", config::Secrets());
    return plan_pipeline(std::move(def), registry);
}

std::string fresh_dir(const std::string& name) {
    auto dir = std::filesystem::temp_directory_path() /
               ("cdcd-runtime-test-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    return dir.string();
}

void store_checkpoint(const std::string& dir, std::map<std::string, std::string> fingerprint,
                      std::uint64_t id = 41, const std::string& source = "restored-position") {
    state::Checkpoint c;
    c.id = id;
    c.created_ms = 1000;
    c.fingerprint = std::move(fingerprint);
    c.parts["source"] = source;
    state::CheckpointStore::open(dir)->write("gated", c, 3);
}

/// Status line and body of GET path.
std::string get(std::uint16_t port, const std::string& path) {
    asio::io_context io;
    asio::ip::tcp::socket socket(io);
    socket.connect({asio::ip::make_address("127.0.0.1"), port});
    std::string request = "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    asio::write(socket, asio::buffer(request));
    std::string response;
    boost::system::error_code ec;
    asio::read(socket, asio::dynamic_buffer(response), ec);  // until the server closes
    return response;
}

/// A runtime of the gated source over a stored checkpoint (id 41), with the admin endpoint on its
/// loop as the service wires it: the endpoint stops when the pipeline does.
struct GatedRun {
    explicit GatedRun(
        const std::string& name, bool handle_signals = false,
        const std::function<void(std::map<std::string, std::string>&)>& edit_fingerprint = {},
        const std::function<void(RunOptions&)>& edit_options = {})
        : registry(test_registry(gate)), dir(fresh_dir(name)) {
        auto plan = test_plan(registry);
        fingerprint = plan.fingerprint();
        if (edit_fingerprint) edit_fingerprint(fingerprint);
        store_checkpoint(dir, fingerprint);
        RunOptions options;
        options.state_dir = dir;
        options.handle_signals = handle_signals;
        if (edit_options) edit_options(options);
        options.on_phase = [this](RuntimePhase p) {
            phases.push_back(p);
            if (p == RuntimePhase::Stopped) server->stop();
        };
        runtime = std::make_unique<PipelineRuntime>(std::move(plan), std::move(options));
        admin::Routes routes;
        routes.metrics = [this] { return runtime->metrics().expose(); };
        routes.ready = [this] { return runtime->phase() == RuntimePhase::Running; };
        routes.state = [this] { return std::string(to_string(runtime->phase())); };
        server = std::make_unique<admin::AdminServer>(runtime->io(),
                                                      admin::parse_address("127.0.0.1:0"), routes);
    }
    ~GatedRun() { std::filesystem::remove_all(dir); }

    std::future<int> start() {
        return std::async(std::launch::async, [this] { return runtime->run(); });
    }
    std::string get(const std::string& path) const { return ::get(server->port(), path); }
    std::uint64_t latest_checkpoint() const {
        return state::CheckpointStore::open_read_only(dir)->latest("gated")->id;
    }
    std::vector<std::uint64_t> stored_ids() const {
        return state::CheckpointStore::open_read_only(dir)->ids("gated");
    }
    /// Another checkpoint of this pipeline, whose source state is `source`.
    void add_checkpoint(std::uint64_t id, const std::string& source) const {
        store_checkpoint(dir, fingerprint, id, source);
    }
    bool wait_running() const {
        for (int i = 0; i < 500; ++i) {
            if (get("/readyz").starts_with("HTTP/1.1 200")) return true;
            std::this_thread::sleep_for(10ms);
        }
        return false;
    }

    Gate gate;
    std::map<std::string, std::string> fingerprint;
    ConnectorRegistry registry;
    std::string dir;
    std::vector<RuntimePhase> phases;
    std::unique_ptr<PipelineRuntime> runtime;
    std::unique_ptr<admin::AdminServer> server;
};

/// Keeps what the runtime logs while it lives, for tests of the messages an operator reads.
struct CapturedLog {
    CapturedLog()
        : sink(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(64)),
          previous(spdlog::default_logger()) {
        sink->set_pattern("%l %v");
        spdlog::set_default_logger(std::make_shared<spdlog::logger>("captured", sink));
    }
    ~CapturedLog() { spdlog::set_default_logger(previous); }
    std::string text() const {
        std::string out;
        for (const auto& line : sink->last_formatted()) out += line + "\n";
        return out;
    }
    std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink;
    std::shared_ptr<spdlog::logger> previous;
};

}  // namespace

TEST_CASE("the admin endpoint answers 503 starting while the checkpoint is restored") {
    GatedRun run("restore");
    auto exit_code = run.start();
    REQUIRE(run.gate.wait_entered());
    // The restore is blocked inside the source: the loop must answer meanwhile, not afterwards.
    std::string during = run.get("/readyz");
    CHECK(during.starts_with("HTTP/1.1 503"));
    CHECK(during.find("\r\n\r\nstarting") != std::string::npos);
    CHECK(run.get("/healthz").starts_with("HTTP/1.1 200"));
    std::string metrics = run.get("/metrics");
    CHECK(metrics.find("cdcd_ready{pipeline=\"gated\"} 0") != std::string::npos);
    run.gate.release();

    bool running = false;
    for (int i = 0; i < 500 && !running; ++i) {
        running = run.get("/readyz").starts_with("HTTP/1.1 200");
        if (!running) std::this_thread::sleep_for(10ms);
    }
    CHECK(running);
    CHECK(run.gate.restored_state == "restored-position");
    CHECK(run.get("/metrics").find("cdcd_checkpoint_last_id{pipeline=\"gated\"} 41") !=
          std::string::npos);
    run.gate.finish = true;
    REQUIRE(exit_code.wait_for(20s) == std::future_status::ready);
    CHECK(exit_code.get() == 0);
    CHECK(run.phases == std::vector<RuntimePhase>{RuntimePhase::Running, RuntimePhase::Stopped});
    // The pipeline went on from the restored checkpoint.
    CHECK(run.latest_checkpoint() > 41);
}

TEST_CASE("a failed restore stops the event loop and the run fails") {
    GatedRun run("refused", false,
                 [](auto& fingerprint) { fingerprint["source.type"] = "another"; });
    auto exit_code = run.start();
    // The failed restore must stop the loop, which serves the admin endpoint meanwhile.
    REQUIRE(exit_code.wait_for(20s) == std::future_status::ready);
    CHECK(exit_code.get() == 1);
    CHECK(run.runtime->phase() == RuntimePhase::Stopped);
    CHECK_FALSE(run.gate.restore_entered);
}

TEST_CASE("SIGTERM during the restore lets it finish, then stops without starting") {
    GatedRun run("sigterm", true);
    auto exit_code = run.start();
    REQUIRE(run.gate.wait_entered());
    // Without the runtime's handler this signal would end the test process.
    REQUIRE(::kill(::getpid(), SIGTERM) == 0);
    bool draining = false;
    for (int i = 0; i < 500 && !draining; ++i) {
        draining = run.get("/readyz").find("\r\n\r\ndraining") != std::string::npos;
        if (!draining) std::this_thread::sleep_for(10ms);
    }
    CHECK(draining);
    run.gate.release();
    REQUIRE(exit_code.wait_for(20s) == std::future_status::ready);
    CHECK(exit_code.get() == 0);
    CHECK(run.phases == std::vector<RuntimePhase>{RuntimePhase::Draining, RuntimePhase::Stopped});
    // Nothing ran: the restored checkpoint is still the latest.
    CHECK(run.latest_checkpoint() == 41);
}

TEST_CASE("a second runtime on a running pipeline's state directory fails before any connector") {
    GatedRun run("second-start");
    auto first = run.start();
    REQUIRE(run.gate.wait_entered());
    run.gate.release();
    REQUIRE(run.wait_running());

    Gate other;
    auto other_registry = test_registry(other);
    RunOptions options;
    options.state_dir = run.dir;
    options.handle_signals = false;
    CapturedLog log;
    PipelineRuntime second(test_plan(other_registry), options);
    CHECK(second.run() == 1);
    // No connector was created: a Kafka sink's producer would have fenced the running one's.
    CHECK(other.connectors_created == 0);
    CHECK_THAT(log.text(), Catch::Contains("state directory " + run.dir +
                                           " is in use by another cdcd process (pid " +
                                           std::to_string(::getpid()) + ")"));
    // The first one is unaffected and finishes, writing its final checkpoint.
    CHECK(run.get("/readyz").starts_with("HTTP/1.1 200"));
    run.gate.finish = true;
    REQUIRE(first.wait_for(20s) == std::future_status::ready);
    CHECK(first.get() == 0);
    CHECK(run.latest_checkpoint() > 41);
}

TEST_CASE("an undecodable latest checkpoint is skipped with a warning, the older one restored") {
    GatedRun run("undecodable-latest");
    cdcd::test::put_raw_checkpoint(run.dir, "gated", 42, "garbage");
    CapturedLog log;
    auto exit_code = run.start();
    REQUIRE(run.gate.wait_entered());
    CHECK(run.gate.restored_state == "restored-position");  // checkpoint 41's
    run.gate.release();
    REQUIRE(run.wait_running());
    CHECK_THAT(log.text(), Catch::Contains("warning pipeline 'gated': checkpoint 42 in " + run.dir +
                                           " cannot be decoded (corrupt checkpoint: truncated)"));
    run.gate.finish = true;
    REQUIRE(exit_code.wait_for(20s) == std::future_status::ready);
    CHECK(exit_code.get() == 0);
    // 42 was discarded and its id is not used again.
    auto ids = run.stored_ids();
    CHECK(std::find(ids.begin(), ids.end(), 42) == ids.end());
    CHECK(ids.back() > 42);
}

TEST_CASE("run --from-checkpoint restores that checkpoint and discards the newer ones after it") {
    GatedRun run("from-checkpoint", false, {},
                 [](RunOptions& options) { options.from_checkpoint = 42; });
    run.add_checkpoint(42, "position-42");
    run.add_checkpoint(43, "position-43");
    auto exit_code = run.start();
    REQUIRE(run.gate.wait_entered());
    CHECK(run.gate.restored_state == "position-42");
    // Nothing is discarded before the restore has succeeded.
    CHECK(run.stored_ids() == std::vector<std::uint64_t>{41, 42, 43});
    run.gate.release();
    REQUIRE(run.wait_running());
    run.gate.finish = true;
    REQUIRE(exit_code.wait_for(20s) == std::future_status::ready);
    CHECK(exit_code.get() == 0);
    auto ids = run.stored_ids();
    CHECK(std::find(ids.begin(), ids.end(), 43) == ids.end());
    CHECK(ids.back() > 43);
}

TEST_CASE(
    "run --from-checkpoint of a checkpoint that is not stored fails, listing the stored ones") {
    GatedRun run("from-missing", false, {},
                 [](RunOptions& options) { options.from_checkpoint = 7; });
    run.add_checkpoint(42, "position-42");
    CapturedLog log;
    auto exit_code = run.start();
    REQUIRE(exit_code.wait_for(20s) == std::future_status::ready);
    CHECK(exit_code.get() == 1);
    CHECK_FALSE(run.gate.restore_entered);
    CHECK_THAT(log.text(), Catch::Contains("no checkpoint 7 of pipeline 'gated' is stored in " +
                                           run.dir + "; the stored ones are 41, 42"));
    CHECK(run.stored_ids() == std::vector<std::uint64_t>{41, 42});
}

TEST_CASE("a part a connector refuses fails the start, naming the checkpoint and older ones") {
    GatedRun run("connector-refuses");
    run.add_checkpoint(42, "unreadable");
    CapturedLog log;
    auto exit_code = run.start();
    REQUIRE(exit_code.wait_for(20s) == std::future_status::ready);
    CHECK(exit_code.get() == 1);
    // No silent fall back to 41: a sink that is not idempotent would write some output twice.
    CHECK(run.gate.restored_state == "unreadable");
    CHECK_THAT(log.text(),
               Catch::Contains("cannot restore checkpoint 42 from " + run.dir +
                               ": its part 'source' was refused by source gated: unreadable "
                               "position") &&
                   Catch::Contains("Older checkpoints stored: 41; `cdcd run --from-checkpoint"));
    CHECK(run.stored_ids() == std::vector<std::uint64_t>{41, 42});
}

TEST_CASE("run --reset-state starts over on a pipeline whose checkpoints do not decode") {
    GatedRun run("reset-undecodable", false, {},
                 [](RunOptions& options) { options.reset_state = true; });
    cdcd::test::put_raw_checkpoint(run.dir, "gated", 42, "garbage");
    run.gate.finish = true;
    auto exit_code = run.start();
    REQUIRE(exit_code.wait_for(20s) == std::future_status::ready);
    CHECK(exit_code.get() == 0);
    CHECK_FALSE(run.gate.restore_entered);  // a fresh start
    CHECK(run.stored_ids() == std::vector<std::uint64_t>{1});
}

TEST_CASE("a damaged state store is refused by run and moved aside by --reset-state") {
    namespace fs = std::filesystem;
    GatedRun damaged("damaged-store");
    std::ofstream(fs::path(damaged.dir) / "CURRENT", std::ios::trunc) << "garbage";
    {
        CapturedLog log;
        auto exit_code = damaged.start();
        REQUIRE(exit_code.wait_for(20s) == std::future_status::ready);
        CHECK(exit_code.get() == 1);
        CHECK_THAT(log.text(), Catch::Contains("cannot open state directory " + damaged.dir) &&
                                   Catch::Contains("--reset-state"));
    }

    GatedRun run("damaged-reset", false, {},
                 [](RunOptions& options) { options.reset_state = true; });
    std::ofstream(fs::path(run.dir) / "CURRENT", std::ios::trunc) << "garbage";
    run.gate.finish = true;
    auto exit_code = run.start();
    REQUIRE(exit_code.wait_for(20s) == std::future_status::ready);
    CHECK(exit_code.get() == 0);
    CHECK_FALSE(run.gate.restore_entered);
    CHECK(run.stored_ids() == std::vector<std::uint64_t>{1});
    // The damaged directory is kept, whole, next to the fresh one.
    std::vector<fs::path> aside;
    for (const auto& entry : fs::directory_iterator(fs::path(run.dir).parent_path()))
        if (entry.path().string().starts_with(run.dir + ".corrupt-")) aside.push_back(entry.path());
    REQUIRE(aside.size() == 1);
    std::string current;
    std::ifstream(aside[0] / "CURRENT") >> current;
    CHECK(current == "garbage");
    fs::remove_all(aside[0]);
}
