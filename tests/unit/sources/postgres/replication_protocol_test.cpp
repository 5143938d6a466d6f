// The streaming replication protocol's CopyData messages: XLogData and keepalives from the
// server, standby status updates to it, and LSN text.
#include "sources/postgres/replication_protocol.h"

#include <catch2/catch.hpp>

#include "tests/unit/sources/postgres/pgoutput_bytes.h"

using namespace cdcd::postgres;
using cdcd::postgres::testing::Bytes;

TEST_CASE("replication: XLogData carries its WAL range and the pgoutput payload") {
    // The payload points into the message's bytes, which must outlive it.
    const Bytes bytes = Bytes().tag('w').u64(0x10).u64(0x20).u64(7).tag('B').u8(1);
    auto m = std::get<XLogData>(decode_server_copy(bytes));
    CHECK(m.wal_start == 0x10);
    CHECK(m.wal_end == 0x20);
    CHECK(m.send_time_us == 7);
    CHECK(m.payload == std::string("B\x01", 2));
}

TEST_CASE("replication: a keepalive may ask for a reply") {
    auto m =
        std::get<PrimaryKeepalive>(decode_server_copy(Bytes().tag('k').u64(0x99).u64(1).u8(1)));
    CHECK(m.wal_end == 0x99);
    CHECK(m.reply_requested);
    auto quiet =
        std::get<PrimaryKeepalive>(decode_server_copy(Bytes().tag('k').u64(1).u64(1).u8(0)));
    CHECK_FALSE(quiet.reply_requested);
    CHECK_THROWS_WITH(decode_server_copy(Bytes().tag('k').u64(1)), Catch::Contains("truncated"));
    CHECK_THROWS_WITH(decode_server_copy(Bytes().tag('q')),
                      Catch::Contains("unknown replication message type 'q'"));
}

TEST_CASE("replication: the standby status update reports received and flushed LSNs") {
    const std::string m = standby_status_update(0x0102030405060708ULL, 0x10, 0x55, true);
    const std::string expected =
        Bytes().tag('r').u64(0x0102030405060708ULL).u64(0x10).u64(0x10).u64(0x55).u8(1).str();
    CHECK(m == expected);
    CHECK(m.size() == 34);
}

TEST_CASE("replication: PostgreSQL's epoch is 2000-01-01") {
    CHECK(to_postgres_epoch_us(946'684'800'000'000LL) == 0);
    CHECK(to_postgres_epoch_us(946'684'801'000'000LL) == 1'000'000);
    CHECK(unix_ms_of(0) == 946'684'800'000LL);
    CHECK(unix_ms_of(1'999) == 946'684'800'001LL);
    CHECK(unix_ms_of(-1) == 946'684'799'999LL);  // rounded down, before 2000 too
}

TEST_CASE("replication: LSNs print and parse as PostgreSQL writes them") {
    CHECK(format_lsn(0) == "0/0");
    CHECK(format_lsn(0x16B3748) == "0/16B3748");
    CHECK(format_lsn(0x16'B374D848ULL) == "16/B374D848");
    CHECK(parse_lsn("16/B374D848") == 0x16'B374D848ULL);
    CHECK(parse_lsn("0/16b3748") == 0x16B3748ULL);
    CHECK_FALSE(parse_lsn("16B374D848"));
    CHECK_FALSE(parse_lsn("/1"));
    CHECK_FALSE(parse_lsn("1/"));
    CHECK_FALSE(parse_lsn("1/xyz"));
    CHECK_FALSE(parse_lsn("100000000/0"));
}
