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

TEST_CASE("kafka source: the state is version 2 of the connector state envelope") {
    SourceState s = decode_state(testing::testdata(kLegacy));
    const std::string blob = encode_state(s);
    CHECK_THAT(blob, Catch::Matchers::StartsWith(
                         R"({"connector":"kafka-source","version":2,"state":{"offsets":[)"
                         R"({"topic":"app.orders","partition":0,"offset":1024},)"));
    SourceState back = decode_state(blob);
    CHECK(back.offsets == s.offsets);
    CHECK(table_schemas_to_json(back.schemas) == table_schemas_to_json(s.schemas));
    CHECK(encode_state(back) == blob);
    // No offsets and no tables yet.
    CHECK(decode_state(encode_state(SourceState{})).offsets.empty());
}

TEST_CASE("kafka source: a malformed enveloped state is refused naming the field") {
    auto state = [](const std::string& payload) {
        return R"({"connector":"kafka-source","version":2,"state":)" + payload + "}";
    };
    using Catch::Matchers::Contains;
    CHECK_THROWS_WITH(
        decode_state(state(R"({"offsets":[{"topic":"t","partition":0}],"tables":[]})")),
        Contains("kafka-source checkpoint state: field \"offsets[].offset\""));
    CHECK_THROWS_WITH(
        decode_state(
            state(R"({"offsets":[{"topic":"t","partition":4294967296,"offset":1}],"tables":[]})")),
        Contains("partition 4294967296 out of range"));
    CHECK_THROWS_WITH(decode_state(state(R"({"offsets":[]})")), Contains("\"tables\""));
}
