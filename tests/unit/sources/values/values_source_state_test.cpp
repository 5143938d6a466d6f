// The values source's checkpoint state: its position in the event set. What earlier releases wrote
// (a bare decimal, testdata/) still restores.
#include <catch2/catch.hpp>

#include "sources/values/values_source.h"
#include "tests/unit/testdata.h"

using namespace cdcd;

namespace {

values::ValuesSource fixed_source() {
    values::ValuesSourceSettings settings;
    settings.event_set = "SINGLE_SPLIT_SINGLE_TABLE";
    return values::ValuesSource(settings);
}

const std::string kLegacy = "sources/values/testdata/checkpoint-state-position.txt";

}  // namespace

TEST_CASE("values source: a position written before the state envelope restores") {
    auto source = fixed_source();
    source.restore(testing::testdata(kLegacy));
    CHECK(source.describe_state(source.snapshot_state()).find("\"position\":1234") !=
          std::string::npos);
}

TEST_CASE("values source: the state is its position in the connector state envelope") {
    auto source = fixed_source();
    source.restore(testing::testdata(kLegacy));
    const std::string state = source.snapshot_state();
    CHECK(state == R"({"connector":"values-source","version":1,"state":{"position":1234}})");
    auto restored = fixed_source();
    restored.restore(state);
    CHECK(restored.snapshot_state() == state);
    CHECK_THROWS_WITH(
        restored.restore(R"({"connector":"values-source","version":1,"state":{"position":-1}})"),
        Catch::Matchers::Contains("values-source checkpoint state: negative position -1"));
}

TEST_CASE("values source: an unreadable state is refused with the state quoted") {
    auto source = fixed_source();
    CHECK_THROWS_WITH(source.restore("12x"), Catch::Matchers::Contains("'12x'"));
}
