// Malformed messages, for every value format and every way of reading the table id: each one
// fails with a ParseError that says what is wrong (never a crash, never a misleading "Invalid
// JSON pointer syntax"), and the decoder goes on decoding good messages afterwards.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sources/kafka/message_decoder.h"
#include "tests/unit/sources/kafka/decode_message.h"

using namespace cdcd;
using namespace cdcd::kafka;

namespace {

struct Mode {
    std::string name;
    DecoderSettings settings;
    std::string value;  // a good message
    std::string key;    // its key ("" = none)
};

DecoderSettings fixed(ValueFormat f, bool schema_include = false) {
    DecoderSettings s;
    s.format = f;
    s.debezium_schema_include = schema_include;
    s.fixed_table = TableId::of("db", "t");
    return s;
}

DecoderSettings dynamic(ValueFormat f, std::vector<std::string> fields, bool from_key = false,
                        bool schema_include = false) {
    DecoderSettings s;
    s.format = f;
    s.table_fields = std::move(fields);
    s.table_from_key = from_key;
    s.debezium_schema_include = schema_include;
    return s;
}

const std::string kDbz =
    R"({"before":null,"after":{"id":1,"v":"a"},"op":"c","source":{"db":"app","table":"t"}})";
// The Connect schema of kDbz's images, as Debezium writes it with schemas.enable.
const std::string kDbzSchema =
    R"({"type":"struct","fields":[{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"string","optional":true,"field":"v"}],"optional":true,"field":"before"},{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"string","optional":true,"field":"v"}],"optional":true,"field":"after"}],"optional":false})";
const std::string kCanal =
    R"({"data":[{"id":1,"v":"a"}],"old":null,"type":"INSERT","database":"app","table":"t","pkNames":["id"]})";

std::vector<Mode> modes() {
    using F = ValueFormat;
    return {
        {"json, fixed table", fixed(F::Json), R"({"id":1,"v":"a"})", ""},
        {"json, table from value fields of one object", dynamic(F::Json, {"db", "tbl"}),
         R"({"db":"app","tbl":"t","id":1})", ""},
        {"json, table from value fields of two objects", dynamic(F::Json, {"meta.db", "tbl"}),
         R"({"meta":{"db":"app"},"tbl":"t","id":1})", ""},
        {"json, table from the key", dynamic(F::Json, {"db", "tbl"}, true), R"({"id":1})",
         R"({"db":"app","tbl":"t"})"},
        {"debezium-json, fixed table", fixed(F::DebeziumJson), kDbz, ""},
        {"debezium-json, table from source.db,source.table",
         dynamic(F::DebeziumJson, {"source.db", "source.table"}), kDbz, ""},
        {"debezium-json, table from source.table", dynamic(F::DebeziumJson, {"source.table"}), kDbz,
         ""},
        {"debezium-json, table from the key", dynamic(F::DebeziumJson, {"db", "tbl"}, true), kDbz,
         R"({"db":"app","tbl":"t"})"},
        {"debezium-json with schema, fixed table", fixed(F::DebeziumJson, true),
         R"({"schema":)" + kDbzSchema + R"(,"payload":)" + kDbz + "}", ""},
        {"debezium-json with schema, table from source.db,source.table",
         dynamic(F::DebeziumJson, {"source.db", "source.table"}, false, true),
         R"({"schema":)" + kDbzSchema + R"(,"payload":)" + kDbz + "}", ""},
        {"canal-json, fixed table", fixed(F::CanalJson), kCanal, ""},
        {"canal-json, table from database,table", dynamic(F::CanalJson, {"database", "table"}),
         kCanal, ""},
        {"canal-json, table from the key", dynamic(F::CanalJson, {"db", "tbl"}, true), kCanal,
         R"({"db":"app","tbl":"t"})"},
    };
}

using test::decode;

// The ParseError's message; fails the test on success or on another exception type.
std::string error_of(MessageDecoder& d, const std::string& value, const std::string& key) {
    try {
        decode(d, value, key);
    } catch (const ParseError& e) {
        return e.what();
    } catch (const std::exception& e) {
        FAIL("not a ParseError: " << e.what());
    }
    FAIL("decoded without an error: " << value);
    return {};
}

// After a failure the same decoder still decodes the mode's good message.
void still_decodes(MessageDecoder& d, const Mode& mode) {
    EventBatch out = decode(d, mode.value, mode.key);
    REQUIRE(!out.empty());
    CHECK(std::holds_alternative<DataChangeEvent>(out.back()));
}

}  // namespace

TEST_CASE("every truncation of a message is reported as not valid JSON, in every mode") {
    for (const Mode& mode : modes()) {
        INFO(mode.name);
        MessageDecoder d(mode.settings);
        still_decodes(d, mode);
        for (std::size_t n = 0; n < mode.value.size(); ++n) {
            const std::string cut = mode.value.substr(0, n);
            INFO("value: " << cut);
            CHECK_THAT(error_of(d, cut, mode.key),
                       Catch::Contains("the message value is not valid JSON: "));
        }
        for (std::size_t n = 1; n < mode.key.size(); ++n) {
            const std::string cut = mode.key.substr(0, n);
            INFO("key: " << cut);
            CHECK_THAT(error_of(d, mode.value, cut),
                       Catch::Contains("the message key is not valid JSON: "));
        }
        still_decodes(d, mode);
    }
}

TEST_CASE("text that is not JSON says so, with simdjson's reason") {
    const std::vector<std::string> not_json = {
        "abc", "not json", "nul", "tru", "{]", "{\"a\" 1}", "\"unterminated", "{\"a\":1,}"};
    for (const Mode& mode : modes()) {
        INFO(mode.name);
        MessageDecoder d(mode.settings);
        for (const auto& value : not_json) {
            INFO("value: " << value);
            std::string error = error_of(d, value, mode.key);
            CHECK_THAT(error, Catch::StartsWith("the message value is not valid JSON: "));
            CHECK_THAT(error, !Catch::Contains("pointer"));
        }
        still_decodes(d, mode);
    }
}

TEST_CASE("JSON that is not an object is reported as such (JSON null is a tombstone)") {
    const std::vector<std::pair<std::string, std::string>> values = {
        {"123", "a number"}, {"\"x\"", "a string"}, {"[1,2]", "an array"}, {"true", "a boolean"}};
    for (const Mode& mode : modes()) {
        INFO(mode.name);
        MessageDecoder d(mode.settings);
        for (const auto& [value, type] : values) {
            INFO("value: " << value);
            std::string error = error_of(d, value, mode.key);
            CHECK_THAT(error, Catch::Contains(type + ", not a JSON object"));
            CHECK_THAT(error, !Catch::Contains("pointer"));
        }
        if (mode.settings.format != ValueFormat::Json) CHECK(decode(d, "null", mode.key).empty());
        still_decodes(d, mode);
    }
}

TEST_CASE("fields of the wrong type are named in the error") {
    struct Case {
        Mode mode;
        std::string value, key, expected;
    };
    const std::vector<Mode> all = modes();
    auto mode = [&](const std::string& name) {
        for (const auto& m : all)
            if (m.name == name) return m;
        FAIL("no mode " << name);
        return Mode{};
    };
    const Mode dbz = mode("debezium-json, fixed table");
    const Mode dbz_source = mode("debezium-json, table from source.db,source.table");
    const Mode dbz_schema = mode("debezium-json with schema, table from source.db,source.table");
    const Mode canal = mode("canal-json, fixed table");
    const Mode canal_table = mode("canal-json, table from database,table");
    const Mode json_table = mode("json, table from value fields of one object");
    const Mode json_key = mode("json, table from the key");
    const std::vector<Case> cases = {
        {dbz, R"({"before":null,"after":{"id":1},"op":5})", "",
         R"("op" is a number, not a string)"},
        {dbz, R"({"before":null,"after":{"id":1},"op":null})", "", R"("op" is null, not a string)"},
        {dbz, R"({"before":"x","after":{"id":1},"op":"u"})", "",
         R"("before" is a string, not an object)"},
        {dbz, R"({"before":null,"after":[1],"op":"c"})", "",
         R"("after" is an array, not an object)"},
        {dbz, R"({"after":{"id":1},"op":"x"})", "", "unknown op 'x'"},
        {dbz, R"({"after":{"id":1}})", "", R"(no "op" field)"},
        {dbz_source, R"({"before":null,"after":{"id":1},"op":5,"source":{"db":"a","table":"t"}})",
         "", R"("op" is a number, not a string)"},
        {dbz_source, R"({"before":null,"after":{"id":1},"op":"c","source":"x"})", "",
         "table id field 'source.db': parent is not an object"},
        {dbz_source, R"({"before":null,"after":{"id":1},"op":"c","source":{"db":1,"table":"t"}})",
         "", "table id field 'source.db' is not a string"},
        {dbz_source, R"({"before":null,"after":{"id":1},"op":"c"})", "",
         "table id field 'source.db'"},
        {dbz_schema, R"({"schema":{},"payload":5})", "", "table id field 'source.db'"},
        {mode("debezium-json with schema, fixed table"), R"({"schema":{},"payload":5})", "",
         R"("payload" is a number, not an object)"},
        {dbz_schema, R"({"before":null,"after":{"id":1},"op":"c","source":{"db":"a","table":"t"}})",
         "", "no schema envelope"},
        {canal, R"({"data":"x","type":"INSERT"})", "", R"("data" is a string, not an array)"},
        {canal, R"({"data":[1],"type":"INSERT"})", "", R"("data" holds a number, not an object)"},
        {canal, R"({"data":[{"id":1}],"old":5,"type":"UPDATE"})", "",
         R"("old" is a number, not an array)"},
        {canal, R"({"data":[{"id":1}],"type":5})", "", R"("type" is a number, not a string)"},
        {canal, R"({"data":[{"id":1}],"type":"INSERT","pkNames":[1]})", "",
         R"("pkNames" holds a value that is not a string)"},
        {canal, R"({"type":"INSERT"})", "", R"(no "data" array)"},
        {canal_table, R"({"data":[{"id":1}],"type":"INSERT","database":5,"table":"t"})", "",
         "table id field 'database' is not a string"},
        {json_table, R"({"db":"a","id":1})", "", "table id field 'tbl' is missing"},
        {json_key, R"({"id":1})", "5", "the document is a number, not a JSON object"},
        {json_key, R"({"id":1})", R"({"db":"a","tbl":[]})", "table id field 'tbl' is not a string"},
    };
    for (const Case& c : cases) {
        INFO(c.mode.name << ": " << c.value << " key " << c.key);
        MessageDecoder d(c.mode.settings);
        CHECK_THAT(error_of(d, c.value, c.key.empty() ? c.mode.key : c.key),
                   Catch::Contains(c.expected));
        still_decodes(d, c.mode);
    }
}

// Found by the kafka_message fuzz target: a table id field holding "" made a table with an empty
// name, which the checkpoint then recorded and the restore refused, so the source could not
// restart.
TEST_CASE("an empty table id field is refused and named") {
    MessageDecoder d(dynamic(ValueFormat::DebeziumJson, {"source.db", "source.table"}));
    CHECK(error_of(d,
                   R"({"before":null,"after":{"id":1},"op":"c","source":{"db":"app","table":""}})",
                   "") == "table id field 'source.table' is empty");
    CHECK(error_of(d, R"({"before":null,"after":{"id":1},"op":"c","source":{"db":"","table":"t"}})",
                   "") == "table id field 'source.db' is empty");
    MessageDecoder canal(dynamic(ValueFormat::CanalJson, {"database", "table"}));
    CHECK(error_of(canal, R"({"data":[{"id":1}],"type":"INSERT","database":"app","table":""})",
                   "") == "table id field 'table' is empty");
}
