#include <catch2/catch.hpp>

#include "sinks/kafka/transactions.h"
#include "tests/unit/testdata.h"

using namespace cdcd::kafka;

TEST_CASE("the exactly-once writer state keeps the schemas and the pending transactions") {
    TransactionsState t;
    t.group = "cdcd-eos-orders";
    t.token = "00ff12ab34cd56ef";
    t.pending.push_back({7, "ods.orders"});
    t.pending.push_back({8, "ods.items"});
    std::string schemas = R"([{"namespace":"","schema":"db","table":"t","definition":{}}])";
    DecodedWriterState d = decode_writer_state(encode_writer_state(schemas, t));
    CHECK(d.schemas_json == schemas);
    REQUIRE(d.transactions);
    CHECK(d.transactions->group == t.group);
    CHECK(d.transactions->token == t.token);
    REQUIRE(d.transactions->pending.size() == 2);
    CHECK(d.transactions->pending[0].checkpoint == 7);
    CHECK(d.transactions->pending[0].topic == "ods.orders");
    CHECK(d.transactions->pending[1].checkpoint == 8);
    CHECK(d.transactions->pending[1].topic == "ods.items");

    t.pending.clear();
    d = decode_writer_state(encode_writer_state("", t));
    CHECK(d.schemas_json == "[]");
    REQUIRE(d.transactions);
    CHECK(d.transactions->pending.empty());
}

TEST_CASE("a schemas-only writer state (at-least-once, older cdcd) has no transactions") {
    std::string schemas = R"([{"namespace":"","schema":"db","table":"t","definition":{}}])";
    DecodedWriterState d = decode_writer_state(schemas);
    CHECK(d.schemas_json == schemas);
    CHECK_FALSE(d.transactions);
    d = decode_writer_state("");
    CHECK(d.schemas_json.empty());
    CHECK_FALSE(d.transactions);
    CHECK_THROWS(decode_writer_state(R"({"tables":[],"transactions":{"group":"g"}})"));
}

TEST_CASE("kafka sink: writer states written before the state envelope restore") {
    DecodedWriterState d = decode_writer_state(
        cdcd::testing::testdata("sinks/kafka/testdata/writer-state-exactly-once.json"));
    CHECK(d.schemas_json.find("\"table\":\"orders\"") != std::string::npos);
    REQUIRE(d.transactions);
    CHECK(d.transactions->group == "cdcd-eos-orders-relay");
    CHECK(d.transactions->token == "9f86d081884c7d659a2feaa0c55ad015");
    REQUIRE(d.transactions->pending.size() == 2);
    CHECK(d.transactions->pending[0].checkpoint == 41);
    CHECK(d.transactions->pending[1].checkpoint == 42);
    CHECK(d.transactions->pending[1].topic == "ods.orders");

    const std::string schemas_only =
        cdcd::testing::testdata("sinks/kafka/testdata/writer-state-schemas-only.json");
    d = decode_writer_state(schemas_only);
    CHECK(d.schemas_json == schemas_only);
    CHECK_FALSE(d.transactions);
}

TEST_CASE("kafka sink: writer states are version 1 of the connector state envelope") {
    const std::string legacy =
        cdcd::testing::testdata("sinks/kafka/testdata/writer-state-exactly-once.json");
    DecodedWriterState d = decode_writer_state(legacy);
    const std::string blob = encode_writer_state(d.schemas_json, *d.transactions);
    // The payload is the object stored bare before the envelope.
    std::string payload = legacy;
    while (!payload.empty() && payload.back() == '\n') payload.pop_back();
    CHECK(blob == R"({"connector":"kafka-sink","version":1,"state":)" + payload + "}");
    DecodedWriterState back = decode_writer_state(blob);
    CHECK(back.schemas_json == d.schemas_json);
    REQUIRE(back.transactions);
    CHECK(back.transactions->pending.size() == 2);

    const std::string schemas_only =
        cdcd::testing::testdata("sinks/kafka/testdata/writer-state-schemas-only.json");
    const std::string at_least_once = encode_writer_state(schemas_only);
    CHECK_THAT(at_least_once, Catch::Matchers::StartsWith(
                                  R"({"connector":"kafka-sink","version":1,"state":{"tables":[)"));
    back = decode_writer_state(at_least_once);
    CHECK(back.schemas_json == schemas_only);
    CHECK_FALSE(back.transactions);
    CHECK(decode_writer_state(encode_writer_state("")).schemas_json == "[]");
    CHECK_THROWS_WITH(decode_writer_state(R"({"connector":"kafka-sink","version":1,"state":[]})"),
                      Catch::Matchers::Contains("kafka-sink checkpoint state: not a JSON object"));
}
