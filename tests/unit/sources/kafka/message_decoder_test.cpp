#include "sources/kafka/message_decoder.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "pipeline/data/field_format.h"
#include "sources/kafka/kafka_source_options.h"
#include "sources/kafka/offsets_state.h"
#include "tests/unit/sources/kafka/decode_message.h"

using namespace cdcd;
using namespace cdcd::kafka;

namespace {

using test::decode;

DecoderSettings dynamic(ValueFormat f, std::vector<std::string> fields) {
    DecoderSettings s;
    s.format = f;
    s.table_fields = std::move(fields);
    return s;
}

const DataChangeEvent& data(const Event& e) {
    return std::get<DataChangeEvent>(e);
}
const CreateTableEvent& create(const Event& e) {
    return std::get<CreateTableEvent>(e);
}

}  // namespace

TEST_CASE("string and number values are classified for inference") {
    FieldValue v;
    v.text = "2023-01-01 10:00:00.123";
    classify_string(v);
    CHECK(v.kind == ValueKind::Timestamp);
    CHECK(v.precision == 3);
    v.text = "2023-01-01T10:00:00Z";
    classify_string(v);
    CHECK(v.kind == ValueKind::TimestampLtz);
    v.text = "2023-01-01";
    classify_string(v);
    CHECK(v.kind == ValueKind::Date);
    v.text = "2023-13-01";
    classify_string(v);
    CHECK(v.kind == ValueKind::String);
    classify_number(v, "42");
    CHECK(v.kind == ValueKind::Int);
    classify_number(v, "-12.500");
    CHECK(v.kind == ValueKind::Decimal);
    CHECK(int(v.precision) == 5);
    CHECK(int(v.scale) == 3);
    classify_number(v, "1e10");
    CHECK(v.kind == ValueKind::Double);
    classify_number(v, "123456789012345678901234567890");
    CHECK(v.kind == ValueKind::Decimal);
}

TEST_CASE("debezium-json with table id from source.db,source.table, key gives the primary key") {
    MessageDecoder d(dynamic(ValueFormat::DebeziumJson, {"source.db", "source.table"}));
    auto out = decode(
        d,
        R"({"before":null,"after":{"id":1,"name":"a"},"op":"c","source":{"db":"app","table":"orders"}})",
        R"({"id":1})");
    REQUIRE(out.size() == 2);
    CHECK(create(out[0]).table.str() == "app.orders");
    CHECK(create(out[0]).schema.to_string() ==
          "columns={`id` BIGINT,`name` STRING}, primaryKeys=id, options=()");
    CHECK(data(out[1]).op == OpType::Insert);
    CHECK(format_row(data(out[1]).after->view(), create(out[0]).schema) == "[1, a]");

    out = decode(
        d,
        R"({"schema":{"type":"struct"},"payload":{"before":{"id":1,"name":"a"},"after":{"id":1,"name":"b"},"op":"u","source":{"db":"app","table":"orders"}}})");
    REQUIRE(out.size() == 1);
    CHECK(data(out[0]).op == OpType::Update);
    out = decode(
        d,
        R"({"before":{"id":1,"name":"b"},"after":null,"op":"d","source":{"db":"app","table":"orders"}})");
    CHECK(data(out[0]).op == OpType::Delete);
    CHECK(decode(d, "null").empty());
    CHECK_THROWS_WITH(decode(d, R"({"after":{"id":1},"source":{"db":"app","table":"orders"}})"),
                      Catch::Contains("op"));
    CHECK_THROWS_WITH(decode(d, R"({"after":{"id":1},"op":"c","source":{"db":"app"}})"),
                      Catch::Contains("source.table"));
    CHECK_THROWS(decode(d, "not json"));
}

TEST_CASE("schema merge: new fields added, wider precision, common supertype, missing → NULL") {
    DecoderSettings s;
    s.format = ValueFormat::Json;
    s.fixed_table = TableId::of("db", "t");
    MessageDecoder d(s);
    auto out = decode(d, R"({"a":1,"p":1.5,"ts":"2023-01-01 00:00:00.1"})");
    CHECK(create(out[0]).schema.to_string() ==
          "columns={`a` BIGINT,`p` DECIMAL(2, 1),`ts` TIMESTAMP(1)}, primaryKeys=, options=()");
    out = decode(d, R"({"a":"x","p":123.25,"ts":"2023-01-01 00:00:00.123456","b":true})");
    REQUIRE(out.size() == 3);
    auto& add = std::get<AddColumnEvent>(out[0]);
    REQUIRE(add.added.size() == 1);
    CHECK(add.added[0].column.to_string() == "`b` BOOLEAN");
    auto& alter = std::get<AlterColumnTypeEvent>(out[1]);
    REQUIRE(alter.new_types.size() == 3);
    CHECK(alter.new_types[0].second.to_string() == "STRING");
    CHECK(alter.new_types[1].second.to_string() == "DECIMAL(5, 2)");
    CHECK(alter.new_types[2].second.to_string() == "TIMESTAMP(6)");
    out = decode(d, R"({"p":2})");
    REQUIRE(out.size() == 1);
    Schema merged = SchemaBuilder()
                        .column("a", DataType::string())
                        .column("p", DataType::decimal(5, 2))
                        .column("ts", DataType::timestamp(6))
                        .column("b", DataType::boolean())
                        .build();
    CHECK(format_row(data(out[0]).after->view(), merged) == "[null, 2.00, null, null]");
}

TEST_CASE("canal-json: every row of data, UPDATE before = data with old's columns put back") {
    MessageDecoder d(dynamic(ValueFormat::CanalJson, {"database", "table"}));
    auto out = decode(
        d,
        R"({"data":[{"id":"1","name":"x","v":"2"},{"id":"2","name":"y","v":"3"}],"old":[{"name":"a"},{"v":"9"}],"type":"UPDATE","database":"shop","table":"items","pkNames":["id"],"isDdl":false,"es":1,"ts":2})");
    REQUIRE(out.size() == 3);
    const Schema& s = create(out[0]).schema;
    CHECK(s.primary_keys() == std::vector<std::string>{"id"});
    CHECK(format_row(data(out[1]).before->view(), s) == "[1, a, 2]");
    CHECK(format_row(data(out[1]).after->view(), s) == "[1, x, 2]");
    CHECK(format_row(data(out[2]).before->view(), s) == "[2, y, 9]");
    CHECK(
        decode(
            d,
            R"({"data":null,"type":"CREATE","isDdl":true,"database":"shop","table":"items","sql":"create table"})")
            .empty());
    out = decode(
        d,
        R"({"data":[{"id":"3","name":"z","v":"1"}],"old":null,"type":"DELETE","database":"shop","table":"items"})");
    CHECK(data(out[0]).op == OpType::Delete);
}

TEST_CASE("table id from the key, 1 and 3 fields") {
    DecoderSettings s = dynamic(ValueFormat::Json, {"t"});
    s.table_from_key = true;
    MessageDecoder d(s);
    auto out = decode(d, R"({"a":1})", R"({"t":"only"})");
    CHECK(create(out[0]).table.str() == "only");
    MessageDecoder three(dynamic(ValueFormat::Json, {"$.m.n", "m.s", "m.t"}));
    out = decode(three, R"({"a":1,"m":{"t":"tab","s":"sch","n":"ns"}})");
    CHECK(create(out[0]).table.str() == "ns.sch.tab");
    CHECK_THROWS_WITH(decode(three, R"({"a":1,"m":{"t":1,"s":"sch","n":"ns"}})"),
                      Catch::Contains("not a string"));
}

TEST_CASE("checkpoint state round-trips offsets and schemas") {
    SourceState st;
    st.offsets[{"orders", 0}] = 42;
    st.offsets[{"orders", 3}] = 7;
    st.schemas.emplace_back(
        TableId::of("db", "t"),
        SchemaBuilder().column("id", DataType::bigint()).primary_key({"id"}).build());
    SourceState back = decode_state(encode_state(st));
    CHECK(back.offsets == st.offsets);
    REQUIRE(back.schemas.size() == 1);
    CHECK(back.schemas[0].second == st.schemas[0].second);
    CHECK_THROWS(decode_state("garbage"));
    CHECK(describe_state_json(st).find(R"({"topic":"orders","partition":3,"offset":7})") !=
          std::string::npos);
}

TEST_CASE("scan.startup.specific-offsets") {
    auto m = parse_specific_offsets("partition:0,offset:42;partition:1,offset:300");
    CHECK(m.at(0) == 42);
    CHECK(m.at(1) == 300);
    CHECK_THROWS(parse_specific_offsets("partition:0"));
    CHECK_THROWS(parse_specific_offsets("partition:x,offset:1"));
}

TEST_CASE("a message is decoded the same whatever bytes follow it in memory") {
    // The decoder parses a message where librdkafka keeps it when simdjson's padding, which it
    // reads past the end, is in the same page: those bytes must not change the result.
    constexpr std::size_t kPage = 4096;
    const std::string message =
        R"({"before":null,"after":{"id":7,"name":"x\"y","amount":12.50,"at":"2024-01-01 10:00:00"},)"
        R"("op":"c","source":{"db":"app","table":"orders"}})";
    auto decoded = [](std::string_view value) {
        MessageDecoder d(dynamic(ValueFormat::DebeziumJson, {"source.db", "source.table"}));
        EventBatch out = decode(d, value, R"({"id":7})");
        REQUIRE(out.size() == 2);
        return create(out[0]).schema.to_string() + " " +
               format_row(data(out[1]).after->view(), create(out[0]).schema);
    };
    const std::string expected = decoded(std::string(message) + std::string(64, ' '));
    CHECK(expected ==
          "columns={`id` BIGINT,`name` STRING,`amount` DECIMAL(4, 2),`at` TIMESTAMP(0)}, "
          "primaryKeys=id, options=() [7, x\"y, 12.50, 2024-01-01T10:00]");

    std::vector<char> memory(3 * kPage);
    char* page = memory.data() + (kPage - reinterpret_cast<std::uintptr_t>(memory.data()) % kPage);
    const std::string hostile = "\"\\9}]{[,:-e.1\"\\u00";
    for (std::size_t i = 0; i < 2 * kPage; ++i) page[i] = hostile[i % hostile.size()];
    // At the page's start (parsed in place unless sanitized) and ending at its last bytes (copied).
    for (std::size_t offset :
         {std::size_t{0}, kPage - message.size() - 1, kPage - message.size()}) {
        INFO("offset " << offset);
        std::copy(message.begin(), message.end(), page + offset);
        CHECK(decoded(std::string_view(page + offset, message.size())) == expected);
    }
    CHECK_FALSE(padding_readable_in_place(page + kPage - 10, 5));
    CHECK_FALSE(padding_readable_in_place(page, 0));
}
