// The exactly-once filter of a snapshot restarted in its middle: which streamed changes a resumed
// read already saw, by transaction visibility and by the read each key belongs to.
#include "sources/postgres/backfill_filter.h"

#include <catch2/catch.hpp>

using namespace cdcd;
using namespace cdcd::postgres;

namespace {

// Integer keys compared as numbers: the server's order for an int key.
bool int_at_or_before(const TableId&, const std::vector<std::string>& a,
                      const std::vector<std::string>& b) {
    return std::stoll(a.at(0)) <= std::stoll(b.at(0));
}

ResumedRead read(std::vector<std::string> done, std::string table, std::vector<std::string> after,
                 const char* snapshot, Lsn high) {
    return ResumedRead{
        {std::move(done), std::move(table), std::move(after)}, *TxnSnapshot::parse(snapshot), high};
}

const TableId kA = TableId::of("public", "a");
const TableId kB = TableId::of("public", "b");

}  // namespace

TEST_CASE("txn snapshot: visibility of committed transactions") {
    auto s = TxnSnapshot::parse("100:105:101,103");
    REQUIRE(s);
    CHECK(s->str() == "100:105:101,103");
    CHECK(s->sees(99));
    CHECK(s->sees(100));
    CHECK_FALSE(s->sees(101));  // in progress when taken
    CHECK(s->sees(102));
    CHECK_FALSE(s->sees(103));
    CHECK(s->sees(104));
    CHECK_FALSE(s->sees(105));  // started after
    CHECK_FALSE(s->sees(4000));
    CHECK(TxnSnapshot::parse("7:7:") == TxnSnapshot{7, 7, {}});
    for (const char* bad : {"", "1", "1:2", "2:1:", "1:3:5", "1:3:2,", "a:3:", "1:3:x"})
        CHECK_FALSE(TxnSnapshot::parse(bad));
}

TEST_CASE("txn snapshot: 32-bit ids placed in the epoch of the snapshot") {
    const std::uint64_t epoch = std::uint64_t{1} << 32;
    // Taken just after the wrap: ids near 2^32 are the previous epoch's, committed before.
    TxnSnapshot s{epoch + 5, epoch + 10, {}};
    CHECK(s.sees(0xFFFFFFF0u));
    CHECK(s.sees(6));
    CHECK_FALSE(s.sees(10));
    // Taken just before it: small ids are the next epoch's, not yet begun.
    TxnSnapshot before{epoch - 20, epoch - 10, {}};
    CHECK(before.sees(static_cast<std::uint32_t>(epoch - 15)));
    CHECK_FALSE(before.sees(3));
}

TEST_CASE("backfill filter: changes seen by the resumed read of their row are dropped") {
    // The exported snapshot emitted a up to key 40; the restart read the rest of a, then b, in
    // a snapshot that saw transactions below 500 except 497.
    BackfillFilter f({read({}, "public.a", {"40"}, "490:500:497", 0x2000)}, int_at_or_before);
    // Rows of the exported snapshot: every streamed change.
    CHECK(f.row(kA, std::vector<std::string>{"40"}, 450) == Verdict::Emit);
    CHECK(f.row(kA, std::vector<std::string>{"7"}, 499) == Verdict::Emit);
    // Rows of the restarted read: what it saw is dropped, the rest emitted.
    CHECK(f.row(kA, std::vector<std::string>{"41"}, 450) == Verdict::Suppress);
    CHECK(f.row(kA, std::vector<std::string>{"41"}, 497) == Verdict::Emit);
    CHECK(f.row(kA, std::vector<std::string>{"41"}, 500) == Verdict::Emit);
    CHECK(f.row(kB, std::vector<std::string>{"1"}, 450) == Verdict::Suppress);
    // A key the stream could not tell (an unchanged TOASTed key): emitted, never lost.
    CHECK(f.row(kA, std::nullopt, 450) == Verdict::Emit);
    CHECK(f.active(0x1FFF));
    CHECK_FALSE(f.active(0x2000));
}

TEST_CASE("backfill filter: several restarts, each key with the read that emitted it") {
    int comparisons = 0;
    auto counting = [&](const TableId& t, const std::vector<std::string>& a,
                        const std::vector<std::string>& b) {
        ++comparisons;
        return int_at_or_before(t, a, b);
    };
    BackfillFilter f({read({}, "public.a", {"40"}, "100:100:", 0x100),
                      read({}, "public.a", {"70"}, "200:200:", 0x200),
                      read({"public.a"}, "public.b", {}, "300:300:", 0x300)},
                     counting);
    // Transaction 150: seen by the second and third reads only.
    CHECK(f.row(kA, std::vector<std::string>{"30"}, 150) == Verdict::Emit);      // exported
    CHECK(f.row(kA, std::vector<std::string>{"50"}, 150) == Verdict::Emit);      // first read
    CHECK(f.row(kA, std::vector<std::string>{"80"}, 150) == Verdict::Suppress);  // second read
    CHECK(f.row(kB, std::vector<std::string>{"1"}, 150) == Verdict::Suppress);   // third read
    // Transaction 250: seen by the third read only.
    CHECK(f.row(kA, std::vector<std::string>{"80"}, 250) == Verdict::Emit);
    CHECK(f.row(kB, std::vector<std::string>{"1"}, 250) == Verdict::Suppress);
    // Transaction 300 was seen by none: no comparison at all.
    comparisons = 0;
    CHECK(f.row(kA, std::vector<std::string>{"80"}, 300) == Verdict::Emit);
    CHECK(comparisons == 0);
}

TEST_CASE("backfill filter: a truncate is dropped only when every read of the table saw it") {
    BackfillFilter whole({read({"public.a"}, "public.b", {}, "100:200:", 0x100)}, int_at_or_before);
    CHECK(whole.truncate(kB, 150) == Verdict::Suppress);
    CHECK(whole.truncate(kB, 250) == Verdict::Emit);
    CHECK(whole.truncate(kA, 150) == Verdict::Emit);  // a was read whole in the exported one
    BackfillFilter split({read({}, "public.a", {"40"}, "100:200:", 0x100)}, int_at_or_before);
    CHECK(split.truncate(kA, 250) == Verdict::Emit);
    CHECK_THROWS_WITH(split.truncate(kA, 150),
                      Catch::Contains("public.a") && Catch::Contains("--reset-state"));
}

TEST_CASE("backfill filter: streamed messages filtered, an update across reads keeps its side") {
    TableFilter tables("db", "db.public.a", std::nullopt, false);
    const Schema schema = SchemaBuilder()
                              .column("id", DataType::int_().not_null())
                              .column("v", DataType::string())
                              .primary_key({"id"})
                              .build();
    ChangeDecoder decoder(tables, [&](const RelationMessage&) { return schema; });
    RelationMessage rel{16384, "public", "a", 'd', {{true, "id", 23, -1}, {false, "v", 25, -1}}};
    EventBatch events;
    std::vector<BadRecord> bad;
    decoder.decode(rel, events, bad);
    BackfillFilter f({read({}, "public.a", {"40"}, "100:200:", 0x100)}, int_at_or_before);
    auto tuple = [](std::string id, std::string v) {
        return TupleData{{TupleValue::Kind::Text, std::move(id)},
                         {TupleValue::Kind::Text, std::move(v)}};
    };
    auto run = [&](const PgoutputMessage& m, std::uint32_t xid) {
        EventBatch out;
        std::vector<BadRecord> b;
        decoder.decode(m, out, b);
        f.apply(m, xid, decoder, out, b);
        return out;
    };
    // Insert of a key the restarted read saw: dropped; not seen: kept.
    CHECK(run(InsertMessage{16384, tuple("50", "x")}, 150).empty());
    CHECK(run(InsertMessage{16384, tuple("50", "x")}, 250).size() == 1);
    CHECK(run(InsertMessage{16384, tuple("10", "x")}, 150).size() == 1);
    CHECK(run(DeleteMessage{16384, 'K', tuple("60", "")}, 150).empty());
    // The key moves from 10 (exported snapshot: emitted) to 50 (the read saw the result): only
    // the old key's delete is left.
    UpdateMessage move{16384, 'K', tuple("10", ""), tuple("50", "y")};
    auto out = run(move, 150);
    REQUIRE(out.size() == 1);
    const auto& change = std::get<DataChangeEvent>(out[0]);
    CHECK(change.op == OpType::Delete);
    // Back from 50 to 10: the read holds no 50 any more... its insert of 10 is what is new.
    UpdateMessage back{16384, 'K', tuple("50", ""), tuple("10", "z")};
    out = run(back, 150);
    REQUIRE(out.size() == 1);
    CHECK(std::get<DataChangeEvent>(out[0]).op == OpType::Insert);
    // A truncate the read saw of a table split between the exported snapshot and the read.
    CHECK_THROWS(run(TruncateMessage{0, {16384}}, 150));
}
