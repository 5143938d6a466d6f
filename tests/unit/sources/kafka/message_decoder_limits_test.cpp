// The Kafka source's limits on hostile messages (MessageLimits): each message over one fails with
// a LimitError that names the limit, the option that raises it and the table, quickly, without
// changing the inferred schemas; the decoder goes on with good messages afterwards.
#include <catch2/catch.hpp>
#include <ctime>
#include <string>
#include <vector>

#include "sources/kafka/message_decoder.h"
#include "tests/unit/sources/kafka/decode_message.h"

using namespace cdcd;
using namespace cdcd::kafka;

namespace {

using test::decode;

// The LimitError's message; fails the test on success or on another exception type.
std::string limit_error(MessageDecoder& d, const std::string& value, const std::string& key = {}) {
    try {
        decode(d, value, key);
    } catch (const LimitError& e) {
        return e.what();
    } catch (const std::exception& e) {
        FAIL("not a LimitError: " << e.what());
    }
    FAIL("decoded without an error");
    return {};
}

DecoderSettings fixed(ValueFormat format) {
    DecoderSettings s;
    s.format = format;
    s.fixed_table = TableId::of("db", "t");
    return s;
}

DecoderSettings by_field(std::string field) {
    DecoderSettings s;
    s.format = ValueFormat::Json;
    s.table_fields = {std::move(field)};
    return s;
}

// {"k0":0,"k1":1,…}
std::string object_with_keys(int count, const std::string& prefix = "k") {
    std::string out = "{";
    for (int i = 0; i < count; ++i) {
        if (i > 0) out += ',';
        out += '"' + prefix + std::to_string(i) + "\":" + std::to_string(i);
    }
    return out + "}";
}

// [[[…1…]]] nested `depth` deep.
std::string nested_arrays(std::size_t depth) {
    return std::string(depth, '[') + "1" + std::string(depth, ']');
}

// CPU time, not wall time: the test machine may be busy with other work.
double seconds_since(std::clock_t start) {
    return static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
}

}  // namespace

TEST_CASE("a message with 100,000 keys fails on the column limit in well under a second") {
    MessageDecoder d(fixed(ValueFormat::Json));
    const std::string wide = object_with_keys(100'000);
    const std::clock_t start = std::clock();
    std::string error = limit_error(d, wide);
    const double took = seconds_since(start);
    INFO("took " << took << " s of CPU time");
    CHECK(took < 1.0);  // 154 s when every field was compared with every new column
    CHECK_THAT(error, Catch::StartsWith("table db.t would have more than 4096 columns"));
    CHECK_THAT(error, Catch::Contains("raise scan.max-columns-per-table"));
    // Nothing of it was kept: the next message creates the table with its own columns.
    EventBatch out = decode(d, R"({"id":1})");
    REQUIRE(out.size() == 2);
    CHECK(std::get<CreateTableEvent>(out[0]).schema.size() == 1);
}

TEST_CASE("with the column limit raised, a 100,000-key message is decoded in time linear in it") {
    DecoderSettings s = fixed(ValueFormat::Json);
    s.limits.max_columns_per_table = 200'000;
    MessageDecoder d(s);
    const std::string wide = object_with_keys(100'000);
    const std::clock_t start = std::clock();
    EventBatch out = decode(d, wide);
    CHECK(seconds_since(start) < 5.0);
    REQUIRE(out.size() == 2);
    CHECK(std::get<CreateTableEvent>(out[0]).schema.size() == 100'000);
    CHECK(decode(d, wide).size() == 1);  // no schema change the second time
}

TEST_CASE("a canal-json UPDATE with 100,000 changed columns fails fast on the column limit") {
    MessageDecoder d(fixed(ValueFormat::CanalJson));
    const std::string row = object_with_keys(100'000);
    const std::string message =
        R"({"data":[)" + row + R"(],"old":[)" + row + R"(],"type":"UPDATE"})";
    const std::clock_t start = std::clock();
    CHECK_THAT(limit_error(d, message), Catch::Contains("scan.max-columns-per-table"));
    // 88 s when `old` was merged into the row by comparing every pair of fields; ~0.1 s now
    // (more under ASan).
    CHECK(seconds_since(start) < 3.0);
}

TEST_CASE("the column limit counts the columns a table has already") {
    DecoderSettings s = fixed(ValueFormat::Json);
    s.limits.max_columns_per_table = 3;
    MessageDecoder d(s);
    REQUIRE(decode(d, R"({"a":1,"b":2})").size() == 2);
    CHECK_THAT(limit_error(d, R"({"a":1,"c":3,"d":4})"),
               Catch::StartsWith("table db.t would have more than 3 columns"));
    // The failed message added nothing: one more column still fits.
    EventBatch out = decode(d, R"({"a":1,"c":3,"c":"x"})");
    REQUIRE(out.size() == 2);
    const auto& add = std::get<AddColumnEvent>(out[0]);
    REQUIRE(add.added.size() == 1);
    CHECK(add.added[0].column.to_string() == "`c` STRING");  // both values of the repeated key
}

TEST_CASE("new columns and widened types keep the order their fields first appear in") {
    MessageDecoder d(fixed(ValueFormat::Json));
    decode(d, R"({"a":1,"b":1,"c":1})");
    EventBatch out = decode(d, R"({"z":1,"c":"x","y":true,"a":1.5,"z":"s","b":"t","y":2})");
    REQUIRE(out.size() == 3);
    const auto& add = std::get<AddColumnEvent>(out[0]);
    REQUIRE(add.added.size() == 2);
    CHECK(add.added[0].column.to_string() == "`z` STRING");
    CHECK(add.added[1].column.to_string() == "`y` STRING");
    const auto& alter = std::get<AlterColumnTypeEvent>(out[1]);
    REQUIRE(alter.new_types.size() == 3);
    CHECK(alter.new_types[0].first == "c");
    CHECK(alter.new_types[1].first == "a");
    CHECK(alter.new_types[1].second.to_string() == "DECIMAL(20, 1)");
    CHECK(alter.new_types[2].first == "b");
}

TEST_CASE("the columns of all tables together are bounded") {
    DecoderSettings s = by_field("tbl");
    s.limits.max_total_columns = 5;
    MessageDecoder d(s);
    decode(d, R"({"tbl":"a","x":1})");        // 2 columns
    decode(d, R"({"tbl":"b","x":1,"y":2})");  // 5
    CHECK_THAT(limit_error(d, R"({"tbl":"a","z":1})"),
               Catch::Contains("raise scan.max-total-columns"));
    CHECK(decode(d, R"({"tbl":"a","x":2})").size() == 1);
}

TEST_CASE("the table limit stops new table ids before they are made, restored ones included") {
    DecoderSettings s = by_field("tbl");
    s.limits.max_tables = 3;
    MessageDecoder d(s);
    for (std::string t : {"t0", "t1", "t2"})
        CHECK(decode(d, R"({"tbl":")" + t + R"(","id":1})").size() == 2);
    std::string error = limit_error(d, R"({"tbl":"t3","id":1})");
    CHECK_THAT(error, Catch::StartsWith("table t3 would be one more than the 3 tables"));
    CHECK_THAT(error, Catch::Contains("raise scan.max-tables"));
    CHECK(decode(d, R"({"tbl":"t1","id":2})").size() == 1);  // known tables go on

    MessageDecoder restored(s);
    TableSchemas schemas;
    for (std::string t : {"r0", "r1", "r2"})
        schemas.emplace_back(TableId::of(t), SchemaBuilder()
                                                 .column("tbl", DataType::string())
                                                 .column("id", DataType::bigint())
                                                 .build());
    restored.restore(schemas);
    CHECK(decode(restored, R"({"tbl":"r2","id":1})").size() == 1);
    CHECK_THAT(limit_error(restored, R"({"tbl":"t0","id":1})"), Catch::StartsWith("table t0"));
}

TEST_CASE("the table limit applies to tables read from the key") {
    DecoderSettings s = by_field("tbl");
    s.table_from_key = true;
    s.limits.max_tables = 1;
    MessageDecoder d(s);
    decode(d, R"({"id":1})", R"({"tbl":"a"})");
    CHECK_THAT(limit_error(d, R"({"id":1})", R"({"tbl":"b"})"), Catch::Contains("scan.max-tables"));
}

TEST_CASE("JSON nesting depth is counted from the message's top, in every value format") {
    struct Case {
        std::string name;
        DecoderSettings settings;
        std::string before, after;  // the message around a field's value
        std::size_t level;          // of the object holding the field
    };
    DecoderSettings dbz_source;
    dbz_source.format = ValueFormat::DebeziumJson;
    dbz_source.table_fields = {"source.db", "source.table"};
    const std::string source = R"(,"source":{"db":"app","table":"t"}})";
    const std::vector<Case> cases = {
        {"json", fixed(ValueFormat::Json), R"({"f":)", "}", 1},
        {"debezium-json", fixed(ValueFormat::DebeziumJson), R"({"op":"c","after":{"f":)", "}}", 2},
        {"debezium-json with schema", fixed(ValueFormat::DebeziumJson),
         R"({"schema":{},"payload":{"op":"c","after":{"f":)", "}}}", 3},
        {"debezium-json, table read on the way", dbz_source, R"({"op":"c","after":{"f":)",
         "}" + source, 2},
        {"canal-json", fixed(ValueFormat::CanalJson), R"({"type":"INSERT","data":[{"f":)", "}]}",
         3},
    };
    for (const Case& c : cases) {
        INFO(c.name);
        MessageDecoder d(c.settings);
        const std::size_t fits = MessageLimits::kDefaultJsonDepth - c.level;
        CHECK(decode(d, c.before + nested_arrays(fits) + c.after).size() == 2);
        std::string error = limit_error(d, c.before + nested_arrays(fits + 1) + c.after);
        CHECK_THAT(error, Catch::StartsWith(c.name == "debezium-json, table read on the way"
                                                ? "table app.t: field 'f' nests JSON"
                                                : "table db.t: field 'f' nests JSON"));
        CHECK_THAT(error, Catch::Contains("129 levels deep"));
        CHECK_THAT(error, Catch::Contains("raise scan.max-json-depth"));
    }
}

TEST_CASE("a value nested 100,000 deep is over the depth limit, not 'invalid JSON'") {
    MessageDecoder d(fixed(ValueFormat::Json));
    const std::clock_t start = std::clock();
    CHECK_THAT(limit_error(d, R"({"f":)" + nested_arrays(100'000) + "}"),
               Catch::Contains("100001 levels deep"));
    CHECK(seconds_since(start) < 1.0);
    CHECK(decode(d, R"({"f":[1]})").size() == 2);
}

TEST_CASE("json_nesting_depth skips strings, escapes included") {
    CHECK(json_nesting_depth("1") == 0);
    CHECK(json_nesting_depth("[]") == 1);
    CHECK(json_nesting_depth(R"({"a":[{"b":1}],"c":[]})") == 3);
    CHECK(json_nesting_depth(R"(["[[[{{{", "\"[[", 1])") == 1);
    CHECK(json_nesting_depth(R"(["\\", [2]])") == 2);
}

TEST_CASE("a message larger than the size limit fails before it is parsed") {
    DecoderSettings s = fixed(ValueFormat::Json);
    s.limits.max_message_bytes = 20;
    MessageDecoder d(s);
    const std::string value = R"({"v":"123456789"})";  // 17 bytes
    CHECK(decode(d, value).size() == 2);
    CHECK(decode(d, value, "abc").size() == 1);  // 20 with the key
    std::string error = limit_error(d, value, "abcd");
    CHECK_THAT(error, Catch::StartsWith("table db.t: the message is 21 bytes (key and value), "
                                        "more than the limit of 20"));
    CHECK_THAT(error, Catch::Contains("raise scan.max-message-size"));
    DecoderSettings dynamic = by_field("tbl");
    dynamic.limits.max_message_bytes = 5;
    MessageDecoder d2(dynamic);
    CHECK_THAT(limit_error(d2, "not even JSON"), Catch::StartsWith("the message is 13 bytes"));
}
