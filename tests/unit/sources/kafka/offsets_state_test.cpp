// The Kafka source's checkpoint state: what earlier releases wrote (golden samples under
// testdata/) still restores, position for position.
#include "sources/kafka/offsets_state.h"

#include <catch2/catch.hpp>

#include "tests/unit/testdata.h"

using namespace cdcd;
using namespace cdcd::kafka;

namespace {

const std::string kLegacy = "sources/kafka/testdata/checkpoint-state-v1.txt";

}  // namespace

TEST_CASE("kafka source: a state written by cdcd before the state envelope restores") {
    SourceState s = decode_state(testing::testdata(kLegacy));
    REQUIRE(s.offsets.size() == 3);
    CHECK(s.offsets.at({"app.orders", 0}) == 1024);
    CHECK(s.offsets.at({"app.users", 0}) == 17);
    CHECK(s.offsets.at({"app.users", 2}) == 9);
    REQUIRE(s.schemas.size() == 2);
    CHECK(s.schemas[0].first == TableId::of("app", "orders"));
    CHECK(s.schemas[1].first == TableId::of("app", "users"));
}

TEST_CASE("kafka source: the golden sample is what that release's encoder wrote") {
    const std::string legacy = testing::testdata(kLegacy);
    CHECK(encode_state(decode_state(legacy)) == legacy);
}
