// The postgres source's checkpoint state: round trips, and malformed states refused by name.
#include "sources/postgres/state_codec.h"

#include <catch2/catch.hpp>

using namespace cdcd;
using namespace cdcd::postgres;

TEST_CASE("postgres state: position and schemas round-trip") {
    SourceState s;
    s.slot = "orders_slot";
    s.phase = Phase::Stream;
    s.lsn = 0x16'B374D848ULL;
    s.txn_events = 17;
    s.tables.emplace_back(
        TableId::of("public", "orders"),
        SchemaBuilder().column("id", DataType::int_().not_null()).primary_key({"id"}).build());
    const std::string blob = encode_state(s);
    CHECK(blob.find("\"lsn\":\"16/B374D848\"") != std::string::npos);
    SourceState back = decode_state(blob);
    CHECK(back.slot == "orders_slot");
    CHECK(back.phase == Phase::Stream);
    CHECK(back.lsn == s.lsn);
    CHECK(back.txn_events == 17);
    REQUIRE(back.tables.size() == 1);
    CHECK(back.tables[0] == s.tables[0]);
    CHECK(encode_state(back) == blob);
}

TEST_CASE("postgres state: the snapshot's progress round-trips in phase snapshot only") {
    SourceState s;
    s.slot = "s";
    s.phase = Phase::Snapshot;
    s.lsn = 0x42;
    s.snapshot = {{"public.a", "public.b"}, "public.c", {"17", "x y"}};
    SourceState back = decode_state(encode_state(s));
    CHECK(back.snapshot == s.snapshot);
    s.phase = Phase::Stream;
    CHECK(decode_state(encode_state(s)).snapshot == SnapshotProgress{});
    // Before chunked snapshots the state had no progress: from the start.
    CHECK(
        decode_state(
            R"({"connector":"postgres-source","version":1,"state":{"slot":"s","phase":"snapshot","lsn":"0/42","txn_events":0,"tables":[]}})")
            .snapshot == SnapshotProgress{});
    CHECK_THROWS_WITH(
        decode_state(
            R"({"connector":"postgres-source","version":1,"state":{"slot":"s","phase":"snapshot","lsn":"0/42","txn_events":0,"tables":[],"snapshot":{"done":[1],"table":"","after":[]}}})"),
        Catch::Contains("snapshot.done"));
}

TEST_CASE("postgres state: malformed states are refused naming the field") {
    auto state = [](const std::string& payload) {
        return R"({"connector":"postgres-source","version":1,"state":)" + payload + "}";
    };
    CHECK_THROWS_WITH(decode_state(state(
                          R"({"slot":"s","phase":"done","lsn":"0/0","txn_events":0,"tables":[]})")),
                      Catch::Contains("phase 'done'"));
    CHECK_THROWS_WITH(
        decode_state(
            state(R"({"slot":"s","phase":"stream","lsn":"12","txn_events":0,"tables":[]})")),
        Catch::Contains("lsn '12'"));
    CHECK_THROWS_WITH(
        decode_state(
            state(R"({"slot":"s","phase":"stream","lsn":"0/1","txn_events":-1,"tables":[]})")),
        Catch::Contains("txn_events"));
    CHECK_THROWS_WITH(
        decode_state(state(R"({"phase":"stream","lsn":"0/1","txn_events":0,"tables":[]})")),
        Catch::Contains("slot"));
    CHECK_THROWS(decode_state(R"({"connector":"kafka-source","version":2,"state":{}})"));
    CHECK_THROWS(decode_state(R"({"connector":"postgres-source","version":2,"state":{}})"));
}

TEST_CASE("postgres state: a restarted snapshot's reads round-trip in both phases") {
    SourceState s;
    s.slot = "s";
    s.phase = Phase::Snapshot;
    s.lsn = 0x42;
    s.snapshot = {{"public.a"}, "public.b", {"9"}};
    s.resumed.push_back(
        ResumedRead{{{}, "public.a", {"17"}}, *TxnSnapshot::parse("750:754:751,753"), 0x16C0000});
    const std::string blob = encode_state(s);
    CHECK(blob.find(R"("snapshot":"750:754:751,753","high":"0/16C0000")") != std::string::npos);
    CHECK(decode_state(blob).resumed == s.resumed);
    s.phase = Phase::Stream;
    CHECK(decode_state(encode_state(s)).resumed == s.resumed);
    // A state written before restarts were exactly-once has none; none is not written.
    s.resumed.clear();
    CHECK(encode_state(s).find("resumed") == std::string::npos);
    auto state = [](const std::string& resumed) {
        return R"({"connector":"postgres-source","version":1,"state":{"slot":"s","phase":"stream","lsn":"0/42","txn_events":0,"tables":[],"resumed":)" +
               resumed + "}}";
    };
    CHECK_THROWS_WITH(
        decode_state(state(
            R"([{"from":{"done":[],"table":"","after":[]},"snapshot":"9:3:","high":"0/1"}])")),
        Catch::Contains("resumed[0].snapshot '9:3:'"));
    CHECK_THROWS_WITH(
        decode_state(
            state(R"([{"from":{"done":[],"table":"","after":[]},"snapshot":"1:3:","high":"x"}])")),
        Catch::Contains("resumed[0].high"));
    CHECK_THROWS_WITH(
        decode_state(state(
            R"([{"from":{"done":[2],"table":"","after":[]},"snapshot":"1:3:","high":"0/1"}])")),
        Catch::Contains("resumed[0].from.done"));
}

TEST_CASE("postgres state: the slot about to be created round-trips, absent when none") {
    SourceState s;
    s.slot = "cdcd_orders";
    s.creating_slot_after = 0x1'0000ABCDULL;
    const SourceState back = decode_state(encode_state(s));
    CHECK(back.creating_slot_after == s.creating_slot_after);
    CHECK(back.lsn == 0);
    s.creating_slot_after.reset();
    CHECK(encode_state(s).find("creating_slot_after") == std::string::npos);
    CHECK_FALSE(decode_state(encode_state(s)).creating_slot_after);
    CHECK_THROWS_WITH(
        decode_state(
            R"({"connector":"postgres-source","version":1,"state":{"slot":"s","phase":"snapshot","lsn":"0/0","txn_events":0,"tables":[],"creating_slot_after":"nope"}})"),
        Catch::Contains("creating_slot_after 'nope'"));
}
