// Checkpoint state, over every registered connector. A source: each state sample (a previous
// release's format) restores; what the source then snapshots restores again to the same bytes
// (encode and decode are each other's inverse on what the source writes); `cdcd checkpoints show`
// renders it as JSON; and bytes that are no state of the source are refused by restore with an
// exception, which the runtime reports naming the checkpoint, never a crash. A sink: the state
// writer 0 returns at a checkpoint, after a table was created, restores into a new writer, which
// returns the same state at the next checkpoint (without a server: nothing but the schema is
// written); and the states of one parallelism's writers, redistributed by the sink to another
// parallelism (a changed pipeline.parallelism), restore into that many writers.
#include <simdjson.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch.hpp>

#include "pipeline/connector/registry.h"
#include "tests/unit/conformance/connector_harness.h"
#include "tests/unit/conformance/harness_pipeline.h"

using namespace cdcd;
using namespace cdcd::conformance;

namespace {

struct CreatedSource {
    PipelinePlan plan;
    boost::asio::io_context io;
    std::unique_ptr<Source> source;

    explicit CreatedSource(const ConnectorHarness& h)
        : plan(conformance::plan(minimal_pipeline(h))) {
        ConnectorContext ctx{plan.source_options, plan.definition.source, plan.settings, io};
        source = plan.source_factory->create(ctx);
    }
};

struct CreatedSink {
    PipelinePlan plan;
    boost::asio::io_context io;
    std::unique_ptr<Sink> sink;

    explicit CreatedSink(const ConnectorHarness& h) : plan(conformance::plan(minimal_pipeline(h))) {
        ConnectorContext ctx{plan.sink_options, plan.definition.sink, plan.settings, io};
        sink = plan.sink_factory->create(ctx);
    }

    /// Runs the loop until `task` has ended (a writer's own background tasks may run on).
    template <typename T>
    T run(boost::asio::awaitable<T> task) {
        auto result = boost::asio::co_spawn(io, std::move(task), boost::asio::use_future);
        while (result.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
            if (io.run_one() == 0) io.restart();
        return result.get();
    }
};

const TableId kTable = TableId::of("db", "conformance");

Schema table_schema() {
    return SchemaBuilder()
        .column("id", DataType::bigint().not_null())
        .column("name", DataType::string())
        .primary_key({"id"})
        .build();
}

bool is_json(const std::string& text) {
    simdjson::dom::parser parser;
    simdjson::dom::element element;
    return parser.parse(text).get(element) == simdjson::SUCCESS;
}

}  // namespace

TEST_CASE("every source restores its state samples, and re-encodes what it restored stably") {
    for (const auto& h : harnesses()) {
        if (h.role != Role::Source) continue;
        DYNAMIC_SECTION("source " << h.type) {
            INFO("a source's harness lists at least one checkpoint state (state_samples)");
            REQUIRE_FALSE(h.state_samples.empty());
            for (std::size_t i = 0; i < h.state_samples.size(); ++i) {
                INFO("state sample " << i);
                CreatedSource first(h);
                REQUIRE_NOTHROW(first.source->restore(h.state_samples[i]));
                std::string encoded = first.source->snapshot_state();
                CreatedSource second(h);
                REQUIRE_NOTHROW(second.source->restore(encoded));
                CHECK(second.source->snapshot_state() == encoded);
                std::string shown = second.source->describe_state(encoded);
                INFO(shown);
                CHECK(is_json(shown));
            }
        }
    }
}

TEST_CASE("every source refuses bytes that are not its state") {
    using namespace std::string_literals;
    for (const auto& h : harnesses()) {
        if (h.role != Role::Source) continue;
        DYNAMIC_SECTION("source " << h.type) {
            for (const std::string& garbage :
                 {"\xff\xfe not a checkpoint state \x01"s, "{\"v\":99}"s, "-1"s}) {
                INFO("state '" << garbage << "'");
                CreatedSource created(h);
                CHECK_THROWS_AS(created.source->restore(garbage), std::exception);
            }
        }
    }
}

TEST_CASE("every sink writer's checkpoint state restores and re-encodes stably") {
    for (const auto& h : harnesses()) {
        if (h.role != Role::Sink) continue;
        DYNAMIC_SECTION("sink " << h.type) {
            CreatedSink first(h);
            auto writer = first.sink->create_writer(0, 1);
            EventBatch create;
            create.push_back(Event(CreateTableEvent{kTable, table_schema()}));
            first.run(writer->write(create));
            std::string state = first.run(writer->flush(1));
            INFO("state '" << state << "'");
            first.run(writer->close());
            writer.reset();  // gone, as in a restart (a file sink's file is locked while open)

            CreatedSink second(h);
            auto restored = second.sink->create_writer(0, 1);
            REQUIRE_NOTHROW(restored->restore(state));
            restored->restore_schemas({{kTable, table_schema()}});
            CHECK(second.run(restored->flush(2)) == state);
            second.run(restored->close());
        }
    }
}

TEST_CASE("every sink's writer states redistribute to another parallelism and restore there") {
    for (const auto& h : harnesses()) {
        if (h.role != Role::Sink) continue;
        for (auto [before, after] : {std::pair{1, 2}, std::pair{2, 1}, std::pair{2, 3}}) {
            DYNAMIC_SECTION("sink " << h.type << ", " << before << " writers to " << after) {
                CreatedSink first(h);
                std::vector<std::string> states;
                for (int i = 0; i < before; ++i) {
                    auto writer = first.sink->create_writer(i, before);
                    EventBatch create;
                    create.push_back(Event(CreateTableEvent{kTable, table_schema()}));
                    first.run(writer->write(create));
                    states.push_back(first.run(writer->flush(1)));
                    first.run(writer->close());
                }
                CreatedSink second(h);
                std::vector<std::optional<std::string>> rescaled;
                REQUIRE_NOTHROW(rescaled = second.sink->rescale_writer_states(states, after));
                REQUIRE(rescaled.size() == static_cast<std::size_t>(after));
                for (int i = 0; i < after; ++i) {
                    auto writer = second.sink->create_writer(i, after);
                    if (const auto& state = rescaled[static_cast<std::size_t>(i)]) {
                        INFO("writer " << i << " state '" << *state << "'");
                        REQUIRE_NOTHROW(writer->restore(*state));
                    }
                    writer->restore_schemas({{kTable, table_schema()}});
                    (void)second.run(writer->flush(2));
                    second.run(writer->close());
                }
            }
        }
    }
}
