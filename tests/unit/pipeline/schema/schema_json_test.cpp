#include "pipeline/schema/schema_json.h"

#include <catch2/catch.hpp>

#include "pipeline/util/json_escape.h"

using namespace cdcd;

TEST_CASE("json escaping", "[schema_json]") {
    CHECK(json::quoted("a\"b\\c\n\x01é") == "\"a\\\"b\\\\c\\n\\u0001é\"");
}

TEST_CASE("schema round-trips through JSON", "[schema_json]") {
    Schema s = SchemaBuilder()
                   .column("id", DataType::int_().not_null(), "the \"key\"")
                   .column("price", DataType::decimal(12, 3))
                   .column("at", DataType::timestamp_ltz(3))
                   .column("tags", DataType::array(DataType::string()))
                   .column("attrs", DataType::map(DataType::string(), DataType::bigint()))
                   .primary_key({"id"})
                   .partition_key({"at"})
                   .option("bucket", "4")
                   .comment("orders\ttable")
                   .build();
    s.mutable_columns()[1].default_value = "0.000";
    std::string json = schema_to_json(s);
    CHECK(json.find("\"type\":\"INT NOT NULL\"") != std::string::npos);
    CHECK(schema_from_json(json) == s);

    TableSchemas tables = {
        {TableId::of("ns", "db", "t"), s},
        {TableId::of("t2"), SchemaBuilder().column("a", DataType::boolean()).build()}};
    TableSchemas back = table_schemas_from_json(table_schemas_to_json(tables));
    REQUIRE(back.size() == 2);
    CHECK(back[0].first == TableId::of("ns", "db", "t"));
    CHECK(back[1].first == TableId::of("t2"));
    CHECK(back[0].second == s);
    CHECK(back[1].second == tables[1].second);
}

TEST_CASE("invalid schema JSON is reported", "[schema_json]") {
    CHECK_THROWS_AS(schema_from_json("{"), SchemaJsonError);
    CHECK_THROWS_AS(schema_from_json("{\"columns\":[{\"name\":\"a\",\"type\":\"NOPE\"}]}"),
                    SchemaJsonError);
    CHECK_THROWS_AS(table_schemas_from_json("{}"), SchemaJsonError);
}
