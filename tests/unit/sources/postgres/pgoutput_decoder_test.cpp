// The pgoutput decoder: every message type of protocol version 1, as PostgreSQL writes it, and
// malformed input refused with the place it breaks.
#include "sources/postgres/pgoutput_decoder.h"

#include <catch2/catch.hpp>

#include "tests/unit/sources/postgres/pgoutput_bytes.h"

using namespace cdcd::postgres;
using cdcd::postgres::testing::Bytes;

TEST_CASE("pgoutput: Begin and Commit carry the transaction's LSNs") {
    auto begin = std::get<BeginMessage>(
        decode_pgoutput(Bytes().tag('B').u64(0x1'0000'0010).u64(123456789).u32(731)));
    CHECK(begin.final_lsn == 0x1'0000'0010ULL);
    CHECK(begin.commit_time_us == 123456789);
    CHECK(begin.xid == 731);
    auto commit = std::get<CommitMessage>(
        decode_pgoutput(Bytes().tag('C').u8(0).u64(0x20).u64(0x48).u64(99)));
    CHECK(commit.commit_lsn == 0x20);
    CHECK(commit.end_lsn == 0x48);
    CHECK(commit.commit_time_us == 99);
}

TEST_CASE("pgoutput: a Relation names its columns, types, modifiers and key") {
    auto m = std::get<RelationMessage>(decode_pgoutput(testing::relation(
        16385, "public", "orders",
        {{"id", 23, -1, true}, {"price", 1700, (10 << 16) + 2 + 4, false}}, 'f')));
    CHECK(m.relation_oid == 16385);
    CHECK(m.namespace_name == "public");
    CHECK(m.relation_name == "orders");
    CHECK(m.replica_identity == 'f');
    REQUIRE(m.columns.size() == 2);
    CHECK(m.columns[0].part_of_key);
    CHECK(m.columns[0].name == "id");
    CHECK(m.columns[0].type_oid == 23);
    CHECK(m.columns[0].type_modifier == -1);
    CHECK_FALSE(m.columns[1].part_of_key);
    CHECK(m.columns[1].type_modifier == (10 << 16) + 6);
}

TEST_CASE("pgoutput: Insert carries the new tuple: text, NULL and unchanged TOAST values") {
    auto m = std::get<InsertMessage>(
        decode_pgoutput(Bytes().tag('I').u32(7).tag('N').u16(3).text("42").null().text("")));
    CHECK(m.relation_oid == 7);
    REQUIRE(m.new_tuple.size() == 3);
    CHECK(m.new_tuple[0].kind == TupleValue::Kind::Text);
    CHECK(m.new_tuple[0].text == "42");
    CHECK(m.new_tuple[1].kind == TupleValue::Kind::Null);
    CHECK(m.new_tuple[2].kind == TupleValue::Kind::Text);
    CHECK(m.new_tuple[2].text.empty());
}

TEST_CASE("pgoutput: Update without, with key and with full old tuple") {
    auto plain = std::get<UpdateMessage>(
        decode_pgoutput(Bytes().tag('U').u32(7).tag('N').u16(2).text("1").toast()));
    CHECK_FALSE(plain.old_kind);
    REQUIRE(plain.new_tuple.size() == 2);
    CHECK(plain.new_tuple[1].kind == TupleValue::Kind::UnchangedToast);

    auto key = std::get<UpdateMessage>(decode_pgoutput(
        Bytes().tag('U').u32(7).tag('K').u16(2).text("1").null().tag('N').u16(2).text("2").text(
            "x")));
    CHECK(key.old_kind == 'K');
    CHECK(key.old_tuple[0].text == "1");
    CHECK(key.new_tuple[0].text == "2");

    auto full = std::get<UpdateMessage>(decode_pgoutput(
        Bytes().tag('U').u32(7).tag('O').u16(1).text("a").tag('N').u16(1).text("b")));
    CHECK(full.old_kind == 'O');
    CHECK(full.old_tuple[0].text == "a");
    CHECK(full.new_tuple[0].text == "b");
}

TEST_CASE("pgoutput: Delete carries the key or the whole old row") {
    auto m =
        std::get<DeleteMessage>(decode_pgoutput(Bytes().tag('D').u32(9).tag('K').u16(1).text("5")));
    CHECK(m.relation_oid == 9);
    CHECK(m.old_kind == 'K');
    CHECK(m.old_tuple[0].text == "5");
    auto full =
        std::get<DeleteMessage>(decode_pgoutput(Bytes().tag('D').u32(9).tag('O').u16(1).null()));
    CHECK(full.old_kind == 'O');
}

TEST_CASE("pgoutput: Truncate lists its relations and options") {
    auto m =
        std::get<TruncateMessage>(decode_pgoutput(Bytes().tag('T').u32(2).u8(1).u32(11).u32(12)));
    CHECK(m.options == 1);
    CHECK(m.relation_oids == std::vector<Oid>{11, 12});
}

TEST_CASE("pgoutput: Type, Origin and logical decoding messages decode") {
    auto type = std::get<TypeMessage>(
        decode_pgoutput(Bytes().tag('Y').u32(16400).str("public").str("mood")));
    CHECK(type.type_oid == 16400);
    CHECK(type.type_name == "mood");
    auto origin = std::get<OriginMessage>(decode_pgoutput(Bytes().tag('O').u64(5).str("node1")));
    CHECK(origin.name == "node1");
    auto message = std::get<LogicalMessage>(
        decode_pgoutput(Bytes().tag('M').u8(1).u64(8).str("pfx").u32(3).str("ab")));
    CHECK(message.transactional);
    CHECK(message.prefix == "pfx");
    CHECK(message.content == std::string("ab\0", 3));
    CHECK(message_tag(message) == 'M');
}

TEST_CASE("pgoutput: malformed messages are refused with where they break") {
    CHECK_THROWS_WITH(decode_pgoutput(""), Catch::Contains("truncated"));
    CHECK_THROWS_WITH(decode_pgoutput(Bytes().tag('Z')),
                      Catch::Contains("unknown message type 'Z'"));
    CHECK_THROWS_WITH(decode_pgoutput(Bytes().tag('B').u64(1)), Catch::Contains("at byte 9"));
    CHECK_THROWS_WITH(decode_pgoutput(Bytes().tag('I').u32(7).tag('N').u16(1).tag('x')),
                      Catch::Contains("unknown tuple value kind 'x'"));
    CHECK_THROWS_WITH(decode_pgoutput(Bytes().tag('I').u32(7).tag('N').u16(1).tag('b').u32(0)),
                      Catch::Contains("binary tuple value"));
    CHECK_THROWS_WITH(decode_pgoutput(Bytes().tag('I').u32(7).tag('K').u16(0)),
                      Catch::Contains("insert without its new tuple"));
    CHECK_THROWS_WITH(decode_pgoutput(Bytes().tag('D').u32(7).tag('N').u16(0)),
                      Catch::Contains("delete without its old tuple"));
    CHECK_THROWS_WITH(
        decode_pgoutput(Bytes().tag('I').u32(7).tag('N').u16(1).tag('t').u32(100).u8(1)),
        Catch::Contains("truncated (100 bytes wanted)"));
    CHECK_THROWS_WITH(decode_pgoutput(Bytes().tag('R').u32(1).str("s")), Catch::Contains("NUL"));
    CHECK_THROWS_WITH(decode_pgoutput(Bytes().tag('I').u32(7).tag('N').u16(2000)),
                      Catch::Contains("tuple of 2000 columns"));
    CHECK_THROWS_WITH(decode_pgoutput(Bytes().tag('T').u32(1000000).u8(0).u32(1)),
                      Catch::Contains("truncate of 1000000 relations"));
    CHECK_THROWS_WITH(decode_pgoutput(Bytes().tag('O').u64(5).str("n").u8(0)),
                      Catch::Contains("1 bytes left after message 'O'"));
}
