#include <catch2/catch.hpp>

#include "sinks/kafka/transactions.h"

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
