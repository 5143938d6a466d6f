#include "sinks/vikingdb/type_mapping.h"

#include <catch2/catch.hpp>

#include "sinks/vikingdb/collection_naming.h"

using namespace cdcd;
using namespace cdcd::vikingdb;

namespace {

const TableId kTable = TableId::of("db", "t");

std::string wire(const CollectionSpec& s, const std::string& name) {
    for (const auto& f : s.fields)
        if (f.name == name) return wire_name(f.type);
    return "?";
}

}  // namespace

TEST_CASE("the spec's type table") {
    Schema schema = SchemaBuilder()
                        .column("id", DataType::bigint().not_null())
                        .column("c", DataType::char_(3))
                        .column("v", DataType::varchar(20))
                        .column("b", DataType::boolean())
                        .column("ti", DataType::tinyint())
                        .column("si", DataType::smallint())
                        .column("i", DataType::int_())
                        .column("d0", DataType::decimal(12, 0))
                        .column("d2", DataType::decimal(10, 2))
                        .column("f", DataType::float_())
                        .column("db", DataType::double_())
                        .column("dt", DataType::date())
                        .column("tm", DataType::time())
                        .column("ts", DataType::timestamp(3))
                        .column("ltz", DataType::timestamp_ltz(3))
                        .column("tz", DataType::timestamp_tz(3))
                        .column("emb", DataType::array(DataType::float_()))
                        .column("tags", DataType::array(DataType::string()))
                        .column("nums", DataType::array(DataType::bigint()))
                        .column("m", DataType::map(DataType::string(), DataType::int_()))
                        .column("r", DataType::row({RowField{
                                         "a", std::make_shared<DataType>(DataType::int_()), ""}}))
                        .primary_key({"id"})
                        .build();
    auto spec = map_schema(kTable, schema, {}, false);
    CHECK(spec.pk().name == "id");
    CHECK(wire(spec, "id") == "int64");
    CHECK(wire(spec, "c") == "string");
    CHECK(wire(spec, "v") == "string");
    CHECK(wire(spec, "b") == "bool");
    CHECK(wire(spec, "ti") == "int64");
    CHECK(wire(spec, "si") == "int64");
    CHECK(wire(spec, "i") == "int64");
    CHECK(wire(spec, "d0") == "int64");
    CHECK(wire(spec, "d2") == "float32");
    CHECK(wire(spec, "f") == "float32");
    CHECK(wire(spec, "db") == "float32");
    for (const char* t : {"dt", "tm", "ts", "ltz", "tz"}) CHECK(wire(spec, t) == "date_time");
    CHECK(wire(spec, "emb") == "vector");
    CHECK(wire(spec, "tags") == "list<string>");
    CHECK(wire(spec, "nums") == "list<int64>");
    CHECK(wire(spec, "m") == "string");  // JSON text: the API has no map type
    CHECK(wire(spec, "r") == "string");
    // Creating the collection needs the vector's dimension.
    CHECK_THROWS_WITH(map_schema(kTable, schema, {}, true),
                      Catch::Contains("vikingdb.field.emb.dim"));
}

TEST_CASE("overrides: sink options, schema options win, incompatible overrides are refused") {
    Schema schema = SchemaBuilder()
                        .column("id", DataType::string().not_null())
                        .column("emb", DataType::array(DataType::double_()))
                        .column("sp", DataType::map(DataType::string(), DataType::float_()))
                        .column("doc", DataType::string())
                        .column("n", DataType::int_())
                        .primary_key({"id"})
                        .option("vikingdb.field.emb.dim", "16")
                        .option("vikingdb.field.doc.type", "text")
                        .build();
    FieldOverrides sink;
    sink["emb"].type = "vector";
    sink["emb"].dim = 8;
    sink["sp"].type = "sparse_vector";
    sink["doc"].type = "image";
    auto merged = merged_overrides(sink, schema);
    CHECK(merged["emb"].dim == 16);
    CHECK(merged["doc"].type == "text");
    auto spec = map_schema(kTable, schema, merged, true);
    CHECK(wire(spec, "emb") == "vector");
    CHECK(spec.fields[1].dim == 16);
    CHECK(wire(spec, "sp") == "sparse_vector");
    CHECK(wire(spec, "doc") == "text");

    FieldOverrides bad;
    bad["n"].type = "vector";
    bad["doc"].type = "sparse_vector";
    bad["nope"].type = "text";
    try {
        map_schema(kTable, schema, bad, false);
        FAIL("expected a MappingError");
    } catch (const MappingError& e) {
        CHECK(e.problems().size() == 4);
        std::string what = e.what();
        CHECK(what.find("table db.t") != std::string::npos);
        CHECK(what.find("column `n`: vector needs an ARRAY of numbers, not INT") !=
              std::string::npos);
        CHECK(what.find("column `doc`: sparse_vector needs a MAP<STRING, number>") !=
              std::string::npos);
        CHECK(what.find("vikingdb.field.nope.* names no column") != std::string::npos);
        CHECK(what.find("more than one vector field") !=
              std::string::npos);  // n (override) and emb
    }
}

TEST_CASE("primary-key rules are checked when the table is mapped") {
    auto with_pk = [](DataType t, std::vector<std::string> pk) {
        return SchemaBuilder()
            .column("k", t)
            .column("k2", DataType::int_())
            .primary_key(std::move(pk))
            .build();
    };
    CHECK_THROWS_WITH(map_schema(kTable, with_pk(DataType::int_(), {}), {}, false),
                      Catch::Contains("no primary key"));
    CHECK_THROWS_WITH(map_schema(kTable, with_pk(DataType::int_(), {"k", "k2"}), {}, false),
                      Catch::Contains("composite primary key"));
    CHECK_THROWS_WITH(map_schema(kTable, with_pk(DataType::double_(), {"k"}), {}, false),
                      Catch::Contains("primary key `k` has type DOUBLE"));
    CHECK_THROWS_WITH(map_schema(kTable, with_pk(DataType::decimal(10, 2), {"k"}), {}, false),
                      Catch::Contains("DECIMAL(10, 2)"));
    CHECK_THROWS_WITH(map_schema(kTable, with_pk(DataType::timestamp(3), {"k"}), {}, false),
                      Catch::Contains("allowed: CHAR, VARCHAR"));
    for (DataType ok :
         {DataType::char_(4), DataType::varchar(9), DataType::tinyint(), DataType::smallint(),
          DataType::int_(), DataType::bigint(), DataType::decimal(20, 0)})
        CHECK_NOTHROW(map_schema(kTable, with_pk(ok, {"k"}), {}, false));
    Schema dashes =
        SchemaBuilder().column("foo-bar", DataType::int_()).primary_key({"foo-bar"}).build();
    CHECK_THROWS_WITH(map_schema(kTable, dashes, {}, false),
                      Catch::Contains("not a valid VikingDB field name"));
}

TEST_CASE("collection names: default, template, invalid results") {
    CollectionNaming plain(std::nullopt, "default");
    CHECK(plain.name_of(TableId::of("ns", "sch", "tbl")) == "ns_sch_tbl");
    CollectionNaming t(std::string("${database}_${schema}_${table}"), "dflt");
    CHECK(t.name_of(TableId::of("ns", "sch", "tbl")) == "ns_sch_tbl");
    CHECK(t.name_of(TableId::of("mydb", "orders")) == "mydb_mydb_orders");
    CHECK(t.name_of(TableId::of("orders")) == "dflt__orders");
    CollectionNaming fixed(std::string("c_${table}"), "default");
    CHECK(fixed.name_of(TableId::of("a", "b")) == "c_b");
    CHECK_THROWS_WITH(fixed.name_of(TableId::of("a", "b-c")), Catch::Contains("'c_b-c'"));
    CHECK_THROWS_WITH(CollectionNaming(std::string("${db}"), "d"),
                      Catch::Contains("unknown placeholder ${db}"));
    CHECK(CollectionNaming::check_template("x_${table").find("unterminated") != std::string::npos);
}
