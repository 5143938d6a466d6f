#include "sinks/vikingdb/collection_validator.h"

#include <catch2/catch.hpp>

#include "sinks/vikingdb/collection_catalog.h"

using namespace cdcd;
using namespace cdcd::vikingdb;

namespace {

Schema table_schema() {
    return SchemaBuilder()
        .column("id", DataType::bigint().not_null())
        .column("title", DataType::string())
        .column("emb", DataType::array(DataType::float_()))
        .column("n", DataType::int_())
        .primary_key({"id"})
        .build();
}

CollectionInfo existing(std::vector<ExistingField> fields, std::string pk) {
    CollectionInfo c;
    c.name = "docs";
    c.fields = std::move(fields);
    c.primary_key = std::move(pk);
    return c;
}

}  // namespace

TEST_CASE("a compatible collection adopts its dims and string-like types") {
    auto spec = map_schema(TableId::of("t"), table_schema(), {}, false);
    auto info = existing({{"id", "int64", {}, true},
                          {"title", "text", {}, false},
                          {"emb", "vector", 8, false},
                          {"n", "int64", {}, false},
                          {"extra", "string", {}, false}},
                         "id");
    auto r = validate_collection(spec, info);
    CHECK(r.mismatches.empty());
    CHECK(r.spec.fields[1].type == VType::Text);
    CHECK(r.spec.fields[2].dim == 8);
}

TEST_CASE("every mismatch is listed") {
    FieldOverrides o;
    o["emb"].dim = 16;
    auto spec = map_schema(TableId::of("t"), table_schema(), o, false);
    auto info = existing({{"key", "string", {}, true},
                          {"id", "string", {}, false},
                          {"emb", "vector", 8, false},
                          {"n", "bool", {}, false},
                          {"img", "image", {}, false}},
                         "key");
    auto r = validate_collection(spec, info);
    REQUIRE(r.mismatches.size() == 6);
    std::string msg = mismatch_message("docs", "t", r.mismatches);
    CHECK(msg.find("existing collection 'docs' is not compatible with table t (6 mismatches)") !=
          std::string::npos);
    CHECK(msg.find("field `id`: the collection has type string, the table's column BIGINT NOT NULL "
                   "maps to int64") != std::string::npos);
    CHECK(msg.find("column `title` (string) has no field in the collection") != std::string::npos);
    CHECK(
        msg.find(
            "field `emb`: the collection's vector dimension is 8, vikingdb.field.emb.dim is 16") !=
        std::string::npos);
    CHECK(msg.find("field `n`: the collection has type bool") != std::string::npos);
    CHECK(msg.find("primary key: the collection's is `key`, the table's is `id`") !=
          std::string::npos);
    CHECK(msg.find("field `img` (image) needs a value in every upsert") != std::string::npos);
}

TEST_CASE("CreateVikingdbCollection bodies carry fields, the primary key, dims and Vectorize") {
    FieldOverrides o;
    o["emb"].dim = 8;
    auto spec = map_schema(TableId::of("t"), table_schema(), o, true);
    std::string body = create_collection_body("default", "docs", spec, {});
    CHECK(
        body ==
        R"({"ProjectName":"default","CollectionName":"docs","Description":"created by cdcd","Fields":[)"
        R"({"FieldName":"id","FieldType":"int64","IsPrimaryKey":true},{"FieldName":"title","FieldType":"string"},)"
        R"({"FieldName":"emb","FieldType":"vector","Dim":8},{"FieldName":"n","FieldType":"int64"}]})");
    std::string v = create_collection_body(
        "p", "docs", spec,
        {{"dense.model-name", "bge"}, {"dense.dim", "512"}, {"dense.text-field", "title"}});
    CHECK(v.find(R"("Vectorize":{"Dense":{"Dim":512,"ModelName":"bge","TextField":"title"}})") !=
          std::string::npos);
    // The spec's flat vikingdb.vectorize.<param> is the dense model's; a kind's JSON passes as is.
    std::string flat = create_collection_body(
        "p", "docs", spec,
        {{"model-name", "bge"}, {"dim", "512"}, {"sparse", R"({"ModelName":"bge-m3"})"}});
    CHECK(flat.find(R"("Vectorize":{"Sparse":{"ModelName":"bge-m3"},"Dense":{"Dim":512,)"
                    R"("ModelName":"bge"}})") != std::string::npos);
}

TEST_CASE("GetVikingdbCollection results parse") {
    auto info = parse_collection_info(
        R"({"ResponseMetadata":{"RequestId":"r"},"Result":{"CollectionName":"c","ResourceId":"rid","PrimaryKey":"id",)"
        R"("Fields":[{"FieldName":"id","FieldType":"string"},{"FieldName":"v","FieldType":"vector","Dim":4}],)"
        R"("Vectorize":{"Dense":{"ModelName":"m"}}}})");
    CHECK(info.name == "c");
    CHECK(info.resource_id == "rid");
    CHECK(info.primary_key == "id");
    CHECK(info.fields.size() == 2);
    CHECK(info.fields[0].primary_key);
    CHECK(info.fields[1].dim == 4);
    CHECK(info.vectorize);
    CHECK_THROWS(parse_collection_info(R"({"ResponseMetadata":{}})"));
}
