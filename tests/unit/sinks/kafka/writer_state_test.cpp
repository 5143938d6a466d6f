// A Kafka sink writer's checkpoint state (sinks/kafka/writer_state.h): its tables' schemas and,
// with exactly-once, the transactions not yet known committed; and, at another parallelism,
// every new writer restores from the old writers' states merged.
#include "sinks/kafka/writer_state.h"

#include <catch2/catch.hpp>

#include "pipeline/schema/schema_json.h"
#include "sinks/kafka/kafka_sink.h"
#include "tests/unit/testdata.h"

using namespace cdcd;
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

namespace {

std::string tables(const std::vector<std::string>& names) {
    TableSchemas all;
    for (const auto& name : names)
        all.emplace_back(TableId::of("db", name),
                         SchemaBuilder().column("id", DataType::bigint()).build());
    return table_schemas_to_json(all);
}

TransactionsState txn(std::vector<std::uint64_t> pending) {
    TransactionsState t{"cdcd-eos-p", "0123456789abcdef", {}, "cdcd-p"};
    for (auto c : pending) t.pending.push_back({c, "topic-" + std::to_string(c)});
    return t;
}

std::vector<std::string> table_names(const DecodedWriterState& state) {
    std::vector<std::string> names;
    for (const auto& [id, schema] : table_schemas_from_json(state.schemas_json))
        names.push_back(id.table_name());
    return names;
}

}  // namespace

TEST_CASE("kafka sink: the writers' states merge: every table, every pending transaction") {
    // Writer 1 took its state after checkpoint 4's commit, writer 0 before it.
    auto merged = decode_writer_state(
        merge_writer_states({encode_writer_state(tables({"a", "b"}), txn({4, 5})),
                             encode_writer_state(tables({"b", "c"}), txn({5, 6}))}));
    CHECK(table_names(merged) == std::vector<std::string>{"a", "b", "c"});
    REQUIRE(merged.transactions);
    CHECK(merged.transactions->group == "cdcd-eos-p");
    CHECK(merged.transactions->token == "0123456789abcdef");
    CHECK(merged.transactions->ids == "cdcd-p");  // the run's transactional ids, to fence them
    CHECK(merged.transactions->pending == txn({4, 5, 6}).pending);
}

TEST_CASE("kafka sink: at-least-once writer states merge into their tables") {
    auto merged = decode_writer_state(
        merge_writer_states({encode_writer_state(tables({"b"})), encode_writer_state(""),
                             encode_writer_state(tables({"a"}))}));
    CHECK(table_names(merged) == std::vector<std::string>{"a", "b"});
    CHECK_FALSE(merged.transactions);
    CHECK(table_names(decode_writer_state(merge_writer_states({}))).empty());
}

TEST_CASE("kafka sink: writer states of different transaction histories are refused") {
    TransactionsState other = txn({3});
    other.token = "fedcba9876543210";
    CHECK_THROWS_WITH(merge_writer_states({encode_writer_state(tables({"a"}), txn({3})),
                                           encode_writer_state(tables({"a"}), other)}),
                      Catch::Contains("different transactions"));
}

TEST_CASE("kafka sink: every writer of the new parallelism gets the merged state") {
    KafkaSinkSettings settings;
    KafkaSink sink(settings);
    auto states = sink.rescale_writer_states(
        {encode_writer_state(tables({"a"})), encode_writer_state(tables({"b"}))}, 3);
    REQUIRE(states.size() == 3);
    for (const auto& s : states) {
        REQUIRE(s);
        CHECK(table_names(decode_writer_state(*s)) == std::vector<std::string>{"a", "b"});
    }
}
