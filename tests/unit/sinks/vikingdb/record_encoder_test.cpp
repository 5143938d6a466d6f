#include "sinks/vikingdb/record_encoder.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <vector>

#include "pipeline/data/temporal.h"

using namespace cdcd;
using namespace cdcd::vikingdb;

namespace {

TimeZone shanghai() {
    return *TimeZone::of("Asia/Shanghai");
}

Row floats(std::initializer_list<double> v) {
    RowBuilder b(v.size());
    std::size_t i = 0;
    for (double d : v) b.set_double(i++, d);
    return std::move(b).build();
}

}  // namespace

TEST_CASE("RFC 3339 text") {
    CHECK(rfc3339(0, 0) == "1970-01-01T00:00:00+00:00");
    CHECK(rfc3339(1'754'049'600'123, 8 * 3600) == "2025-08-01T12:00:00.123+08:00");
    CHECK(rfc3339(-1000, -5 * 3600 - 1800) == "1969-12-31T23:59:59-05:30");
}

TEST_CASE("RFC 3339 text at the edges: years 0000 and 9999, every millisecond width, offsets") {
    // Milliseconds always three digits (unlike the JSON format's fraction without trailing
    // zeros), a zero offset as +00:00, an offset's seconds dropped.
    CHECK(rfc3339(-62'167'219'200'000, 0) == "0000-01-01T00:00:00+00:00");
    CHECK(rfc3339(-62'162'076'599'877, 0) == "0000-02-29T12:30:00.123+00:00");
    CHECK(rfc3339(-62'135'596'800'000 + 1, 0) == "0001-01-01T00:00:00.001+00:00");
    CHECK(rfc3339(253'402'300'799'999, 14 * 3600) == "9999-12-31T23:59:59.999+14:00");
    CHECK(rfc3339(-1, -12 * 3600) == "1969-12-31T23:59:59.999-12:00");
    CHECK(rfc3339(10, 5 * 3600 + 45 * 60) == "1970-01-01T00:00:00.010+05:45");
    CHECK(rfc3339(100, -(9 * 3600 + 30 * 60 + 15)) == "1970-01-01T00:00:00.100-09:30");
    CHECK(rfc3339(120, 0) == "1970-01-01T00:00:00.120+00:00");
    CHECK(rfc3339(86'399'000, 0) == "1970-01-01T23:59:59+00:00");
    // RFC 3339 has no other years; these keep printf's %04lld text (VikingDB rejects them).
    CHECK(rfc3339(-62'167'219'201'000, 0) == "-001-12-31T23:59:59+00:00");
    CHECK(rfc3339(-62'198'755'199'500, 3600) == "-001-01-01T00:00:00.500+01:00");
    CHECK(rfc3339(253'402'300'800'000, 0) == "10000-01-01T00:00:00+00:00");
    CHECK(rfc3339(9'223'372'036'854'775'807, 0) == "292278994-08-17T07:12:55.807+00:00");
}

// The text as printf formatted it before the shared writers: digits written directly must agree
// over years 0000-9999 and beyond, both signs, every millisecond and offsets both ways.
TEST_CASE("RFC 3339 text is printf's") {
    auto printf_rfc3339 = [](std::int64_t local_millis, int offset_seconds) {
        std::int64_t days = temporal::floor_div(local_millis, temporal::kMillisPerDay);
        std::int64_t ms = temporal::floor_mod(local_millis, temporal::kMillisPerDay);
        auto c = temporal::civil_from_days(days);
        char buf[64];
        std::snprintf(
            buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lld",
            static_cast<long long>(c.year), c.month, c.day, static_cast<long long>(ms / 3'600'000),
            static_cast<long long>(ms / 60'000 % 60), static_cast<long long>(ms / 1000 % 60));
        std::string out = buf;
        if (ms % 1000 != 0) {
            std::snprintf(buf, sizeof buf, ".%03lld", static_cast<long long>(ms % 1000));
            out += buf;
        }
        int off = offset_seconds < 0 ? -offset_seconds : offset_seconds;
        std::snprintf(buf, sizeof buf, "%c%02d:%02d", offset_seconds < 0 ? '-' : '+', off / 3600,
                      off / 60 % 60);
        return out + buf;
    };
    std::vector<std::int64_t> millis = {0,
                                        -1,
                                        999,
                                        -62'167'219'200'000,  // 0000-01-01
                                        -62'167'219'200'001,  // -0001-12-31T23:59:59.999
                                        253'402'300'799'999,  // 9999-12-31T23:59:59.999
                                        253'402'300'800'000,  // 10000-01-01
                                        9'223'372'036'854'775'807,
                                        -4'000'000'000'000'000};  // year -126'780'000 or so
    std::uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < 2000; ++i) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        // Mostly years 0000-9999, some far beyond.
        auto span = i % 10 == 0 ? std::uint64_t{1} << 62 : std::uint64_t{600'000'000'000'000};
        millis.push_back(static_cast<std::int64_t>(x % span) - static_cast<std::int64_t>(span / 2) +
                         (i % 10 == 0 ? 0 : 190'000'000'000'000));
    }
    for (std::int64_t m : millis)
        for (int offset : {0, 8 * 3600, -5 * 3600 - 1800, 14 * 3600, 5 * 3600 + 45 * 60 + 30})
            REQUIRE(rfc3339(m, offset) == printf_rfc3339(m, offset));
}

TEST_CASE("date_time values keep milliseconds whatever the column's precision") {
    Schema schema = SchemaBuilder()
                        .column("id", DataType::bigint().not_null())
                        .column("ts0", DataType::timestamp(0))
                        .column("ts3", DataType::timestamp(3))
                        .column("ts6", DataType::timestamp(6))
                        .column("ts9", DataType::timestamp(9))
                        .column("ltz9", DataType::timestamp_ltz(9))
                        .column("d0", DataType::date())
                        .column("d9999", DataType::date())
                        .primary_key({"id"})
                        .build();
    RecordEncoder enc(TableId::of("t"), map_schema(TableId::of("t"), schema, {}, true), shanghai());
    const std::int64_t noon = 1'754'049'600'000;  // 2025-08-01 12:00:00
    RowBuilder r(8);
    r.set_long(0, 1);
    r.set_timestamp(1, Timestamp{noon, 0});
    r.set_timestamp(2, Timestamp{noon + 120, 0});
    r.set_timestamp(3, Timestamp{noon + 120, 456'000});
    r.set_timestamp(4, Timestamp{noon, 789});  // under a millisecond: no fraction
    r.set_timestamp(5, Timestamp{noon - 8 * 3'600'000 + 5, 999'999});
    r.set_long(6, temporal::days_from_civil(0, 1, 1));
    r.set_long(7, temporal::days_from_civil(9999, 12, 31));
    Row row = std::move(r).build();
    std::string out;
    enc.encode(row, enc.key_json(row), out);
    // Shanghai had no DST after 1991; before 1901 its offset is local mean time, +08:05:43.
    CHECK(out ==
          R"({"id":1,"ts0":"2025-08-01T12:00:00+08:00","ts3":"2025-08-01T12:00:00.120+08:00",)"
          R"("ts6":"2025-08-01T12:00:00.120+08:00","ts9":"2025-08-01T12:00:00+08:00",)"
          R"("ltz9":"2025-08-01T12:00:00.005+08:00","d0":"0000-01-01T00:00:00+08:05",)"
          R"("d9999":"9999-12-31T00:00:00+08:00"})");
}

TEST_CASE(
    "rows encode per the mapping, temporal values use the pipeline zone or their own offset") {
    Schema schema = SchemaBuilder()
                        .column("id", DataType::varchar(10).not_null())
                        .column("n", DataType::int_())
                        .column("ok", DataType::boolean())
                        .column("price", DataType::decimal(10, 2))
                        .column("ts", DataType::timestamp(3))
                        .column("ltz", DataType::timestamp_ltz(3))
                        .column("tz", DataType::timestamp_tz(3))
                        .column("d", DataType::date())
                        .column("emb", DataType::array(DataType::float_()))
                        .column("tags", DataType::array(DataType::string()))
                        .column("sp", DataType::map(DataType::string(), DataType::double_()))
                        .column("meta", DataType::map(DataType::string(), DataType::int_()))
                        .column("missing", DataType::string())
                        .primary_key({"id"})
                        .build();
    FieldOverrides o;
    o["emb"].dim = 4;
    o["sp"].type = "sparse_vector";
    RecordEncoder enc(TableId::of("t"), map_schema(TableId::of("t"), schema, o, true), shanghai());

    RowBuilder tags(2);
    tags.set_string(0, "a").set_string(1, "b");
    Row tag_row = std::move(tags).build();
    RowBuilder sk(1), sv(1);
    sk.set_string(0, "tok");
    sv.set_double(0, 0.5);
    Row sk_row = std::move(sk).build(), sv_row = std::move(sv).build();
    RowBuilder mk(1), mv(1);
    mk.set_string(0, "k");
    mv.set_long(0, 7);
    Row mk_row = std::move(mk).build(), mv_row = std::move(mv).build();

    RowBuilder r(13);
    r.set_string(0, "doc-1").set_long(1, 42).set_bool(2, true);
    Decimal price;
    REQUIRE(Decimal::parse("12.50", 2, price));
    r.set_decimal(3, price);
    // 2025-08-01 12:00:00 wall clock; the same instant for LTZ (04:00Z) and a -05:00 TZ value.
    r.set_timestamp(4, Timestamp{1'754'049'600'000, 0});
    r.set_timestamp(5, Timestamp{1'754'049'600'000 - 8 * 3'600'000, 0});
    r.set_zoned_timestamp(6, ZonedTimestamp{Timestamp{1'754'049'600'000, 0}, -5 * 3600});
    r.set_long(7, temporal::days_from_civil(2025, 8, 1));
    r.set_row(8, floats({0.5, -1, 2.25, 0}));
    r.set_row(9, tag_row);
    r.set_map(10, sk_row, sv_row);
    r.set_map(11, mk_row, mv_row);
    Row row = std::move(r).build();

    std::string key = enc.key_json(row);
    CHECK(key == "\"doc-1\"");
    std::string out;
    enc.encode(row, key, out);
    CHECK(
        out ==
        R"({"id":"doc-1","n":42,"ok":true,"price":12.5,"ts":"2025-08-01T12:00:00+08:00",)"
        R"("ltz":"2025-08-01T12:00:00+08:00","tz":"2025-08-01T07:00:00-05:00","d":"2025-08-01T00:00:00+08:00",)"
        R"("emb":[0.5,-1,2.25,0],"tags":["a","b"],"sp":{"tok":0.5},"meta":"{\"k\":7}"})");
}

TEST_CASE("vectors are checked for dimension and finite values, errors name the key") {
    Schema schema = SchemaBuilder()
                        .column("id", DataType::bigint().not_null())
                        .column("emb", DataType::array(DataType::double_()))
                        .primary_key({"id"})
                        .build();
    FieldOverrides o;
    o["emb"].dim = 4;
    RecordEncoder enc(TableId::of("db", "t"), map_schema(TableId::of("t"), schema, o, true),
                      TimeZone::utc());
    auto row = [](std::int64_t id, Row vec) {
        RowBuilder b(2);
        b.set_long(0, id).set_row(1, vec);
        return std::move(b).build();
    };
    std::string out;
    Row short_vec = row(7, floats({1, 2, 3}));
    CHECK_THROWS_WITH(
        enc.encode(short_vec, enc.key_json(short_vec), out),
        Catch::Contains(
            "table db.t, primary key 7, field `emb`: vector has dimension 3, the collection "
            "expects 4"));
    Row nan_vec = row(8, floats({1, 2, std::nan(""), 4}));
    CHECK_THROWS_WITH(
        enc.encode(nan_vec, enc.key_json(nan_vec), out),
        Catch::Contains("primary key 8, field `emb`: vector element 2 is not a finite float32"));
    RowBuilder nul(2);
    nul.set_long(0, 9);
    Row null_vec = std::move(nul).build();
    CHECK_THROWS_WITH(enc.encode(null_vec, "9", out),
                      Catch::Contains("`emb` is NULL but a vector field needs a value"));
    RowBuilder nopk(2);
    Row null_pk = std::move(nopk).build();
    CHECK_THROWS_WITH(enc.key_json(null_pk), Catch::Contains("primary key `id` is NULL"));
}
