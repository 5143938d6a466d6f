// Checkpoint state, over every registered source: each state sample (a previous release's
// format) restores; what the source then snapshots restores again to the same bytes (encode and
// decode are each other's inverse on what the source writes); `cdcd checkpoints show` renders it
// as JSON; and bytes that are no state of the source are refused by restore with an exception,
// which the runtime reports naming the checkpoint, never a crash.
#include <simdjson.h>

#include <boost/asio/io_context.hpp>
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
