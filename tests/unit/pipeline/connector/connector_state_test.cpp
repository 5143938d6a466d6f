// The connector state envelope: what a connector wraps its payload in, and how a restore reads
// it back or refuses it (another connector's state, a newer version, a malformed payload).
#include "pipeline/connector/connector_state.h"

#include <catch2/catch.hpp>

using namespace cdcd;
using Catch::Matchers::Contains;

TEST_CASE("a payload round-trips through the envelope") {
    std::string blob = wrap_connector_state("values-source", 1, R"({"position":42})");
    CHECK(blob == R"({"connector":"values-source","version":1,"state":{"position":42}})");
    REQUIRE(is_connector_state(blob));
    ConnectorStateReader reader(blob, "values-source", 1);
    CHECK(reader.version() == 1);
    CHECK(reader.payload_json() == R"({"position":42})");
    StateFields fields(reader, reader.payload());
    CHECK(fields.integer("position") == 42);
    CHECK(fields.has("position"));
    CHECK_FALSE(fields.has("other"));
}

TEST_CASE("formats from before the envelope are told apart by their first bytes") {
    CHECK_FALSE(is_connector_state("1234"));                        // values source
    CHECK_FALSE(is_connector_state("cdcd-kafka-source 1\n"));       // kafka source
    CHECK_FALSE(is_connector_state(R"({"v":1,"rawJson":false})"));  // dingtalk-cdc
    CHECK_FALSE(is_connector_state(R"({"tables":[]})"));            // kafka sink
    CHECK_FALSE(is_connector_state(std::string("\x01\x02", 2)));    // oss-cdc
    CHECK_FALSE(is_connector_state(""));
}

TEST_CASE("another connector's state, a newer version or a bad envelope is refused by name") {
    std::string blob = wrap_connector_state("kafka-source", 3, "{}");
    CHECK_THROWS_WITH(ConnectorStateReader(blob, "values-source", 1),
                      Contains("values-source checkpoint state") &&
                          Contains("the state of connector 'kafka-source'") &&
                          Contains("--reset-state"));
    CHECK_THROWS_WITH(
        ConnectorStateReader(blob, "kafka-source", 2),
        Contains("kafka-source checkpoint state: version 3") && Contains("reads up to version 2"));
    CHECK_THROWS_WITH(ConnectorStateReader(R"({"connector":"x","version":1})", "x", 1),
                      Contains("no \"state\""));
    CHECK_THROWS_WITH(ConnectorStateReader(R"({"connector":"x","version":0,"state":1})", "x", 1),
                      Contains("no \"version\""));
    CHECK_THROWS_WITH(ConnectorStateReader(R"({"connector":"x")", "x", 1),
                      Contains("x checkpoint state: not a JSON object"));
}

TEST_CASE("a missing or mistyped payload field is named with its path") {
    std::string blob = wrap_connector_state("x", 1, R"({"a":{"n":"text"}})");
    ConnectorStateReader reader(blob, "x", 1);
    StateFields outer(reader, reader.payload());
    StateFields inner(reader, outer.element("a"), "a");
    CHECK_THROWS_WITH(inner.integer("n"),
                      Contains("x checkpoint state: field \"a.n\" is missing or not an integer"));
    CHECK_THROWS_WITH(outer.string("b"), Contains("field \"b\" is missing or not a string"));
    CHECK_THROWS_AS(StateFields(reader, inner.element("n"), "a.n"), ConnectorStateError);
}
