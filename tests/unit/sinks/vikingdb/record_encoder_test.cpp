#include "sinks/vikingdb/record_encoder.h"

#include <catch2/catch.hpp>
#include <cmath>

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

TEST_CASE(
    "rows encode per the mapping; temporal values use the pipeline zone or their own offset") {
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

TEST_CASE("vectors are checked for dimension and finite values; errors name the key") {
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
