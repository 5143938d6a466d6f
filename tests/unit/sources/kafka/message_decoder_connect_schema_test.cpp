// debezium-json with `debezium-json.schema-include: true`: column types come from the Kafka
// Connect schema each message carries, not from its values (a FLOAT 3.14 is no DECIMAL(16, 15)),
// and values are read as their Debezium logical types declare them. The captured changelogs are
// Apache Flink's (testdata/README.md); the logical-type messages follow Debezium's documented
// encodings.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "formats/json/change_serializers.h"
#include "pipeline/data/field_format.h"
#include "sources/kafka/message_decoder.h"
#include "tests/unit/sources/kafka/decode_message.h"

using namespace cdcd;
using namespace cdcd::kafka;

namespace {

using test::decode;

std::vector<std::string> testdata(const std::string& name) {
    const char* root = std::getenv("CDCD_SOURCE_DIR");
    const std::string path =
        std::string(root ? root : ".") + "/tests/unit/sources/kafka/testdata/" + name;
    std::ifstream in(path);
    INFO(path);
    REQUIRE(in.good());
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) lines.push_back(line);
    return lines;
}

DecoderSettings schema_included() {
    DecoderSettings s;
    s.format = ValueFormat::DebeziumJson;
    s.debezium_schema_include = true;
    s.table_fields = {"source.db", "source.table"};
    return s;
}

DecoderSettings schema_included_fixed() {
    DecoderSettings s;
    s.format = ValueFormat::DebeziumJson;
    s.debezium_schema_include = true;
    s.fixed_table = TableId::of("db", "t");
    return s;
}

const DataChangeEvent& data(const Event& e) {
    return std::get<DataChangeEvent>(e);
}
const CreateTableEvent& create(const Event& e) {
    return std::get<CreateTableEvent>(e);
}

// {"schema":{before, after: struct of `fields`},"payload":{"op":"c","after":`after`}}
std::string message(const std::string& fields, const std::string& after,
                    const std::string& before = "null", const std::string& op = "c") {
    const std::string image = R"({"type":"struct","fields":[)" + fields + R"(],"optional":true,)";
    return R"({"schema":{"type":"struct","fields":[)" + image + R"("field":"before"},)" + image +
           R"("field":"after"}],"optional":false},"payload":{"before":)" + before + R"(,"after":)" +
           after + R"(,"op":")" + op + R"("}})";
}

std::string parse_error(MessageDecoder& d, const std::string& value) {
    try {
        decode(d, value);
    } catch (const LimitError& e) {
        return std::string("LimitError: ") + e.what();
    } catch (const ParseError& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace

TEST_CASE("Flink's captured MySQL changelog: column types from the schema, DOUBLE stays DOUBLE",
          "[debezium-schema]") {
    const auto lines = testdata("debezium-data-schema-include.txt");
    REQUIRE(lines.size() == 4);
    MessageDecoder d(schema_included());
    auto out = decode(d, lines[0]);
    REQUIRE(out.size() == 2);
    const Schema schema = create(out[0]).schema;
    CHECK(create(out[0]).table.str() == "inventory.products");
    // Inferred from the values this was `id` BIGINT, ..., `weight` DECIMAL(16, 15).
    CHECK(schema.to_string() ==
          "columns={`id` INT NOT NULL,`name` STRING NOT NULL,`description` STRING,"
          "`weight` DOUBLE}, primaryKeys=, options=()");
    CHECK(format_row(data(out[1]).after->view(), schema) ==
          "[101, scooter, Small 2-wheel scooter, 3.140000104904175]");

    out = decode(d, lines[1]);
    REQUIRE(out.size() == 1);  // the same schema: no schema change
    CHECK(format_row(data(out[0]).after->view(), schema) ==
          "[102, car battery, 12V car battery, 8.100000381469727]");

    out = decode(d, lines[2]);
    REQUIRE(out.size() == 1);
    CHECK(data(out[0]).op == OpType::Update);
    CHECK(format_row(data(out[0]).before->view(), schema) ==
          "[110, jacket, water resistent white wind breaker, 0.20000000298023224]");
    CHECK(format_row(data(out[0]).after->view(), schema) ==
          "[110, jacket, new water resistent white wind breaker, 0.5]");

    out = decode(d, lines[3]);
    REQUIRE(out.size() == 1);
    CHECK(data(out[0]).op == OpType::Delete);
    CHECK(format_row(data(out[0]).before->view(), schema) ==
          "[111, scooter, Big 2-wheel scooter , 5.170000076293945]");
}

TEST_CASE("Flink's captured PostgreSQL changelog: snapshot reads with declared types",
          "[debezium-schema]") {
    const auto lines = testdata("debezium-postgres-data-schema-include.txt");
    REQUIRE(lines.size() == 2);
    MessageDecoder d(schema_included());
    auto out = decode(d, lines[0]);
    REQUIRE(out.size() == 2);
    const Schema schema = create(out[0]).schema;
    CHECK(create(out[0]).table.str() == "postgres.products");
    CHECK(schema.to_string() ==
          "columns={`id` INT NOT NULL,`name` STRING NOT NULL,`description` STRING,"
          "`weight` DOUBLE}, primaryKeys=, options=()");
    CHECK(data(out[1]).op == OpType::Insert);
    CHECK(format_row(data(out[1]).after->view(), schema) ==
          "[101, scooter, Small 2-wheel scooter, 3.14]");
    out = decode(d, lines[1]);
    REQUIRE(out.size() == 1);
    CHECK(format_row(data(out[0]).after->view(), schema) ==
          "[102, car battery, 12V car battery, 8.1]");
}

TEST_CASE("a FLOAT column holding 3.14 stays FLOAT 3.14 (float32, and Flink CDC's \"float\")",
          "[debezium-schema]") {
    MessageDecoder d(schema_included_fixed());
    auto out = decode(d, message(R"({"type":"float32","optional":true,"field":"f"},)"
                                 R"({"type":"float","optional":true,"field":"g"})",
                                 R"({"f":3.14,"g":3.140000104904175})"));
    REQUIRE(out.size() == 2);
    const Schema schema = create(out[0]).schema;
    CHECK(schema.to_string() == "columns={`f` FLOAT,`g` FLOAT}, primaryKeys=, options=()");
    CHECK(format_row(data(out[1]).after->view(), schema) == "[3.14, 3.14]");
}

TEST_CASE("Debezium's logical types: exact decimals, dates, times, timestamps, text, bytes",
          "[debezium-schema]") {
    MessageDecoder d(schema_included_fixed());
    // Encodings as documented for Debezium's MySQL and PostgreSQL connectors (default
    // decimal.handling.mode=precise, time.precision.mode=adaptive_time_microseconds).
    const std::string fields =
        R"({"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2","connect.decimal.precision":"10"},"field":"price"},)"
        R"({"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"loss"},)"
        R"({"type":"struct","fields":[{"type":"int32","optional":false,"field":"scale"},{"type":"bytes","optional":false,"field":"value"}],"optional":true,"name":"io.debezium.data.VariableScaleDecimal","version":1,"field":"ratio"},)"
        R"({"type":"int32","optional":true,"name":"io.debezium.time.Date","version":1,"field":"d"},)"
        R"({"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Date","version":1,"field":"cd"},)"
        R"({"type":"int32","optional":true,"name":"io.debezium.time.Time","version":1,"field":"t3"},)"
        R"({"type":"int64","optional":true,"name":"io.debezium.time.MicroTime","version":1,"field":"t6"},)"
        R"({"type":"int64","optional":true,"name":"io.debezium.time.Timestamp","version":1,"field":"ts3"},)"
        R"({"type":"int64","optional":true,"name":"io.debezium.time.MicroTimestamp","version":1,"field":"ts6"},)"
        R"({"type":"int64","optional":true,"name":"io.debezium.time.NanoTimestamp","version":1,"field":"ts9"},)"
        R"({"type":"string","optional":true,"name":"io.debezium.time.ZonedTimestamp","version":1,"field":"zts"},)"
        R"({"type":"string","optional":true,"name":"io.debezium.data.Json","version":1,"field":"doc"},)"
        R"({"type":"string","optional":true,"name":"io.debezium.data.Enum","version":1,"parameters":{"allowed":"red,green"},"field":"color"},)"
        R"({"type":"bytes","optional":true,"name":"io.debezium.data.Bits","version":1,"parameters":{"length":"16"},"field":"bits"},)"
        R"({"type":"int16","optional":true,"field":"small"},)"
        R"({"type":"int64","optional":true,"field":"big"},)"
        R"({"type":"boolean","optional":true,"field":"flag"},)"
        R"({"type":"string","optional":true,"field":"looks_like_a_date"})";
    // 12345 = 0x3039 ("MDk="), -12345 = 0xCFC7 ("z8c="), 482 = 0x01E2 ("AeI="); 2023-01-01 is
    // epoch day 19358; 10:30:00.123456 is 37800123456 µs of the day.
    auto out = decode(d, message(fields, R"({"price":"MDk=","loss":"z8c=",)"
                                         R"("ratio":{"scale":3,"value":"AeI="},)"
                                         R"("d":19358,"cd":19358,"t3":37800123,"t6":37800123456,)"
                                         R"("ts3":1672569000123,"ts6":1672569000123456,)"
                                         R"("ts9":1672569000123456789,)"
                                         R"("zts":"2023-01-01T10:30:00.123Z",)"
                                         R"("doc":"{\"a\":1}","color":"red","bits":"AQI=",)"
                                         R"("small":-7,"big":9007199254740993,"flag":true,)"
                                         R"("looks_like_a_date":"2023-01-01"})"));
    REQUIRE(out.size() == 2);
    const Schema schema = create(out[0]).schema;
    CHECK(schema.to_string() ==
          "columns={`price` DECIMAL(10, 2) NOT NULL,`loss` DECIMAL(20, 2),`ratio` DECIMAL(3, 3),"
          "`d` DATE,`cd` DATE,`t3` TIME(3),`t6` TIME(6),`ts3` TIMESTAMP(3),`ts6` TIMESTAMP(6),"
          "`ts9` TIMESTAMP(9),`zts` TIMESTAMP_LTZ(3),`doc` STRING,`color` STRING,`bits` BYTES,"
          "`small` SMALLINT,`big` BIGINT,`flag` BOOLEAN,`looks_like_a_date` STRING}, "
          "primaryKeys=, options=()");
    CHECK(format_row(data(out[1]).after->view(), schema) ==
          "[123.45, -123.45, 0.482, 2023-01-01, 2023-01-01, 10:30:00.123, 10:30:00.123456, "
          "2023-01-01T10:30:00.123, 2023-01-01T10:30:00.123456, 2023-01-01T10:30:00.123456789, "
          "2023-01-01T10:30:00.123, {\"a\":1}, red, AQI=, -7, 9007199254740993, true, "
          "2023-01-01]");

    // NULLs take the declared types too; negative epoch values are before 1970.
    out = decode(d, message(fields, R"({"price":"AA==","loss":null,"ratio":null,"d":-1,)"
                                    R"("cd":null,"t3":0,"t6":null,"ts3":-1,"ts6":-1,"ts9":null,)"
                                    R"("zts":null,"doc":null,"color":null,"bits":null,)"
                                    R"("small":null,"big":null,"flag":null,)"
                                    R"("looks_like_a_date":null})"));
    REQUIRE(out.size() == 1);
    CHECK(format_row(data(out[0]).after->view(), schema) ==
          "[0.00, null, null, 1969-12-31, null, 00:00, null, 1969-12-31T23:59:59.999, "
          "1969-12-31T23:59:59.999999, null, null, null, null, null, null, null, null, null]");
}

TEST_CASE("what cdcd's own debezium-json sink writes with include-schema reads back typed",
          "[debezium-schema]") {
    // Flink CDC's serializer declares Connect types but writes Flink JSON values (DATE as
    // "2023-01-01", DECIMAL as a number, timestamps as SQL text): both are read.
    const Schema schema = SchemaBuilder()
                              .column("id", DataType::int_().not_null())
                              .column("f", DataType::float_())
                              .column("x", DataType::double_())
                              .column("dec", DataType::decimal(10, 3))
                              .column("s", DataType::string())
                              .column("b", DataType::boolean())
                              .column("dt", DataType::date())
                              .column("ts", DataType::timestamp(3))
                              .column("ts6", DataType::timestamp(6))
                              .column("ltz", DataType::timestamp_ltz(3))
                              .column("bin", DataType::bytes())
                              .primary_key({"id"})
                              .build();
    RowBuilder row(schema.size());
    row.set_long(0, 7)
        .set_double(1, 3.14f)
        .set_double(2, 2.5)
        .set_decimal(3, Decimal{7123})
        .set_string(4, "x")
        .set_bool(5, true)
        .set_long(6, 19358)
        .set_timestamp(7, Timestamp{1672569000123, 0})
        .set_timestamp(8, Timestamp{1672569000123, 456000})
        .set_timestamp(9, Timestamp{1672569000123, 0})
        .set_bytes(10, std::string("\x01\x02", 2));
    const TableId table = TableId::of("db", "t");
    std::string json;
    json::DebeziumJsonOptions options;
    options.include_schema = true;
    write_debezium_json(json, DataChangeEvent::insert(table, std::move(row).build()), schema,
                        options);
    INFO(json);

    MessageDecoder d(schema_included_fixed());
    auto out = decode(d, json);
    REQUIRE(out.size() == 2);
    const Schema read = create(out[0]).schema;
    CHECK(read.to_string() ==
          "columns={`id` INT NOT NULL,`f` FLOAT,`x` DOUBLE,`dec` DECIMAL(10, 3),`s` STRING,"
          "`b` BOOLEAN,`dt` DATE,`ts` TIMESTAMP(3),`ts6` TIMESTAMP(6),`ltz` TIMESTAMP_LTZ(3),"
          "`bin` BYTES}, primaryKeys=, options=()");
    CHECK(format_row(data(out[1]).after->view(), read) ==
          "[7, 3.14, 2.5, 7.123, x, true, 2023-01-01, 2023-01-01T10:30:00.123, "
          "2023-01-01T10:30:00.123456, 2023-01-01T10:30:00.123, AQI=]");
}

TEST_CASE("a new field in the schema is an added column, a wider type an altered one",
          "[debezium-schema]") {
    MessageDecoder d(schema_included_fixed());
    const std::string id32 = R"({"type":"int32","optional":false,"field":"id"})";
    const std::string id64 = R"({"type":"int64","optional":false,"field":"id"})";
    const std::string price =
        R"({"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2","connect.decimal.precision":"8"},"field":"price"})";
    auto out = decode(d, message(id32, R"({"id":1})"));
    REQUIRE(out.size() == 2);
    CHECK(create(out[0]).schema.to_string() ==
          "columns={`id` INT NOT NULL}, primaryKeys=, options=()");

    out = decode(d, message(id32 + "," + price, R"({"id":2,"price":"MDk="})"));
    REQUIRE(out.size() == 2);
    const auto& add = std::get<AddColumnEvent>(out[0]);
    REQUIRE(add.added.size() == 1);
    // Nullable, as every added column: the rows before it have no value.
    CHECK(add.added[0].column.to_string() == "`price` DECIMAL(8, 2)");
    Schema two = SchemaBuilder()
                     .column("id", DataType::int_().not_null())
                     .column("price", DataType::decimal(8, 2))
                     .build();
    CHECK(format_row(data(out[1]).after->view(), two) == "[2, 123.45]");

    out = decode(d, message(id64 + "," + price, R"({"id":5000000000,"price":"MDk="})"));
    REQUIRE(out.size() == 2);
    const auto& alter = std::get<AlterColumnTypeEvent>(out[0]);
    REQUIRE(alter.new_types.size() == 1);
    CHECK(alter.new_types[0].first == "id");
    CHECK(alter.new_types[0].second.to_string() == "BIGINT NOT NULL");
    Schema wider = SchemaBuilder()
                       .column("id", DataType::bigint().not_null())
                       .column("price", DataType::decimal(8, 2))
                       .build();
    CHECK(format_row(data(out[1]).after->view(), wider) == "[5000000000, 123.45]");

    // A narrower declared type again fits the wider column: no schema change.
    out = decode(d, message(id32 + "," + price, R"({"id":3,"price":"AA=="})"));
    REQUIRE(out.size() == 1);
    CHECK(format_row(data(out[0]).after->view(), wider) == "[3, 0.00]");
}

TEST_CASE("a DATE field declared a timestamp later widens its column and dates then fit it",
          "[debezium-schema]") {
    MessageDecoder d(schema_included_fixed());
    const std::string date =
        R"({"type":"int32","optional":true,"name":"io.debezium.time.Date","field":"at"})";
    const std::string micros =
        R"({"type":"int64","optional":true,"name":"io.debezium.time.MicroTimestamp","field":"at"})";
    auto out = decode(d, message(date, R"({"at":19358})"));
    REQUIRE(out.size() == 2);
    CHECK(create(out[0]).schema.to_string() == "columns={`at` DATE}, primaryKeys=, options=()");
    out = decode(d, message(micros, R"({"at":1672569000123456})"));
    REQUIRE(out.size() == 2);
    // DATE's merging tree holds TIMESTAMP(9), as Flink CDC's.
    CHECK(std::get<AlterColumnTypeEvent>(out[0]).new_types[0].second.to_string() == "TIMESTAMP(9)");
    const Schema wider = SchemaBuilder().column("at", DataType::timestamp(9)).build();
    CHECK(format_row(data(out[1]).after->view(), wider) == "[2023-01-01T10:30:00.123456]");
    out = decode(d, message(date, R"({"at":19358})"));
    REQUIRE(out.size() == 1);
    CHECK(format_row(data(out[0]).after->view(), wider) == "[2023-01-01T00:00]");
}

TEST_CASE("a malformed schema or a value unlike its declared type is a ParseError naming it",
          "[debezium-schema]") {
    MessageDecoder d(schema_included_fixed());
    const std::string id = R"({"type":"int32","optional":false,"field":"id"})";
    const std::string dec =
        R"({"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2","connect.decimal.precision":"4"},"field":"p"})";
    struct Case {
        std::string value, error;
    };
    const std::vector<Case> cases = {
        {message(R"({"type":"int128","optional":true,"field":"x"})", R"({"x":1})"),
         "the message's schema, field 'before.x': unknown type 'int128'"},
        {message(R"({"type":"int32","field":"x"},{"type":"string","field":"x"})", R"({"x":1})"),
         "the message's schema, field 'before.x': declared twice"},
        {message(
             R"({"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","field":"p"})",
             R"({"p":"AQ=="})"),
         "the message's schema, field 'before.p': a Decimal without \"parameters\""},
        {message(
             R"({"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"x"},"field":"p"})",
             R"({"p":"AQ=="})"),
         "the message's schema, field 'before.p': a Decimal's \"scale\" parameter is missing or "
         "not 0 to 38"},
        {R"({"schema":{"type":"struct","fields":[]},"payload":{"op":"c","after":{"id":1}}})",
         "the message's schema: it declares neither \"before\" nor \"after\""},
        {R"({"schema":[1],"payload":{"op":"c","after":{"id":1}}})",
         "\"schema\" is an array, not an object"},
        {R"({"payload":{"op":"c","after":{"id":1}},"schema":null})",
         "\"schema\" is null, not an object"},
        {R"({"payload":{"op":"c","after":{"id":1}}})",
         "debezium-json.schema-include is true but the message has no \"schema\" object to take "
         "its column types from"},
        {message(id, R"({"id":"1"})"),
         "field 'after.id' (declared int32): the value is a string, not an integer"},
        {message(id, R"({"id":2147483648})"),
         "field 'after.id' (declared int32): 2147483648 is out of the type's range"},
        {message(id, R"({"id":null})"),
         "field 'after.id' (declared int32): the value is null but the field is not optional"},
        {message(id, R"({"id":1,"extra":2})"),
         "field 'after.extra' is not in the message's schema"},
        {message(id, R"({"id":1})", R"({"id":1.5})", "u"),
         "field 'before.id' (declared int32): the value is a number, not an integer"},
        {message(dec, R"({"p":"%%%"})"),
         "field 'after.p' (declared bytes org.apache.kafka.connect.data.Decimal): '%%%' is not "
         "base64"},
        {message(dec, R"({"p":"AYag"})"),  // 100000 → 1000.00: four integer digits
         "field 'after.p' (declared bytes org.apache.kafka.connect.data.Decimal): '1000.00' has "
         "more integer digits than DECIMAL(4, 2) holds"},
        {message(dec, R"({"p":true})"),
         "field 'after.p' (declared bytes org.apache.kafka.connect.data.Decimal): the value is a "
         "boolean, not a base64 string or a number"},
        {message(R"({"type":"int32","optional":true,"name":"io.debezium.time.Date","field":"d"})",
                 R"({"d":2147483647})"),
         "field 'after.d' (declared int32 io.debezium.time.Date): 2147483647 epoch days is out of "
         "the years 0000 to 9999"},
        {message(
             R"({"type":"int64","optional":true,"name":"io.debezium.time.Timestamp","field":"t"})",
             R"({"t":-9223372036854775808})"),
         "field 'after.t' (declared int64 io.debezium.time.Timestamp): epoch value out of the "
         "years "
         "0000 to 9999"},
        {message(
             R"({"type":"int64","optional":true,"name":"io.debezium.time.MicroTime","field":"t"})",
             R"({"t":86400000000})"),
         "field 'after.t' (declared int64 io.debezium.time.MicroTime): 86400000000 is not a time "
         "of day (0 to 24 hours)"},
        {message(
             R"({"type":"string","optional":true,"name":"io.debezium.time.ZonedTimestamp","field":"z"})",
             R"({"z":"2023-01-01 10:00:00"})"),
         "field 'after.z' (declared string io.debezium.time.ZonedTimestamp): '2023-01-01 10:00:00' "
         "is not an ISO-8601 timestamp with an offset (2023-01-01T10:00:00Z)"},
        {message(
             R"({"type":"struct","optional":true,"name":"io.debezium.data.VariableScaleDecimal","field":"v"})",
             R"({"v":{"scale":1}})"),
         "field 'after.v' (declared struct io.debezium.data.VariableScaleDecimal): the value is "
         "not an object {\"scale\": int, \"value\": base64 string}"},
    };
    for (const Case& c : cases) {
        INFO(c.value);
        CHECK(parse_error(d, c.value) == c.error);
        // The decoder goes on with good messages.
        CHECK(decode(d, message(id, R"({"id":1})")).size() >= 1);
    }
}

TEST_CASE("without schema-include the Connect schema is ignored and types are inferred",
          "[debezium-schema]") {
    DecoderSettings s = schema_included_fixed();
    s.debezium_schema_include = false;
    MessageDecoder d(s);
    auto out = decode(d, message(R"({"type":"float32","optional":true,"field":"f"})",
                                 R"({"f":3.140000104904175})"));
    REQUIRE(out.size() == 2);
    CHECK(create(out[0]).schema.to_string() ==
          "columns={`f` DECIMAL(16, 15)}, primaryKeys=, options=()");
}
